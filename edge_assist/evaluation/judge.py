"""The LLM judge: 1–5 for the rationality and the effectiveness of each matched pair.

A fixed prompt, temperature 0 and a schema-constrained answer, so the same model gives the
same scores. Reported separately from F1: it grades what was said, not when.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from edge_assist.evaluation.scorer import Pair
from edge_assist.inference.base import LLM

JUDGE_SYSTEM = (
    "You grade a proactive assistant for smart glasses. You are given what the wearer was doing, "
    "what an expert annotator says should be pointed out, and what the assistant said. "
    "Rationality: is the assistant's remark justified by the situation (5 = fully, 1 = not at all)? "
    "Effectiveness: would it help the wearer fix or avoid the annotated problem (5 = fully, 1 = not at all)? "
    "Answer with JSON only."
)
SCORE = {"type": "integer", "enum": [1, 2, 3, 4, 5]}
JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"rationality": SCORE, "effectiveness": SCORE},
    "required": ["rationality", "effectiveness"],
}
JUDGE_MAX_TOKENS = 48


def judge_messages(pair: Pair, situation: str) -> list[dict[str, str]]:
    user = (
        f"Situation: {situation or '(not given)'}\n"
        f"Service type: {pair.gt.sub_type.label}\n"
        f"Annotated problem: {pair.gt.description}\n"
        f"Assistant said: {pair.prediction.text or '(nothing)'}\n"
        'Reply as {"rationality": 1-5, "effectiveness": 1-5}.'
    )
    return [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}]


def judge_pairs(llm: LLM, pairs: Sequence[Pair], situations: Sequence[str]) -> dict[str, Any]:
    """Scores for each correct pair (in order) and their means."""
    scores: list[dict[str, int]] = []
    for pair, situation in zip(pairs, situations, strict=True):
        if not pair.correct:
            continue
        ans = llm.chat_json(
            judge_messages(pair, situation), JUDGE_SCHEMA, max_tokens=JUDGE_MAX_TOKENS, temperature=0.0
        )
        scores.append({"rationality": int(ans["rationality"]), "effectiveness": int(ans["effectiveness"])})
    n = len(scores)
    return {
        "model": getattr(llm, "name", "llm"),
        "pairs": n,
        "rationality": round(sum(s["rationality"] for s in scores) / n, 3) if n else None,
        "effectiveness": round(sum(s["effectiveness"] for s in scores) / n, 3) if n else None,
        "scores": scores,
    }
