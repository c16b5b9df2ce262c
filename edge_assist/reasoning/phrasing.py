"""The LLM as the voice: it phrases what the gate decided to say, never decides it.

Given the structured finding (which step, what differs, what to do) the model writes one
sentence under a JSON schema. The sentence is used only if it stays faithful to the
template built from the same finding (encoder cosine, and no number the finding does not
contain); otherwise, or when the step's budget has no time for a model call (an Instant
alert), the template goes out at once.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_assist.clock import Clock
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.inference.llm_call import call_json
from edge_assist.tasks.findings import ORDER, PREREQUISITE, Finding, TrackerState, skipped_sentence

SENTENCE_CHARS = 120
FAITHFUL_COS = 0.7  # a rephrasing this close to the template says the same thing
MAX_WORDS = 25
PHRASE_BUDGET_S = 2.0  # below this much time left in the step, the template goes out
PHRASE_MAX_TOKENS = 96  # a 120-character sentence in JSON, with room: a cut answer is a wasted call

SYSTEM = (
    "You are the voice of smart glasses that help someone follow a procedure. You get one finding "
    "about what the wearer just did. Write ONE short, friendly sentence (under 20 words) that tells "
    "them what to fix, in the second person. Use only the facts given."
)


@dataclass(frozen=True)
class Phrased:
    text: str
    how: str  # "llm", "template" or "template (<why>)"
    seconds: float = 0.0


def template(finding: Finding | None, state: TrackerState | None) -> str:
    if finding is not None:
        return finding.say()
    if state is not None and state.missing:
        return state.missing_sentence()
    if state is not None and state.step_text:
        return f'Check this step: "{state.step_text.rstrip(".")}".'
    return "Something may have gone wrong in this step."


def repeat_key(
    finding: Finding | None, state: TrackerState | None, *, late_step_is_news: bool = False
) -> str:
    """What an alert is about, for the policy's repeat check: a missing step is the same advice
    whichever step it is noticed at (the sentence also names that step, so texts differ). Steps
    found missing together are told in one sentence, which names the first: a later reminder of
    another of them is that advice again.

    A step reported skipped and then done late is the wearer putting it right: "it was meant to
    come before" tells them again what they were told, unless `late_step_is_news` (a chattier
    wearer also wants to hear that the order was broken, the steps after it done too early)."""
    if finding is not None and finding.kind == PREREQUISITE and finding.missing:
        return skipped_sentence(finding.missing[0])
    if finding is not None and finding.kind == ORDER and not late_step_is_news:
        return skipped_sentence(finding.step_text)
    if finding is None and state is not None and state.missing:
        first = state.missing_told_with[0] if state.missing_told_with else state.missing[0]
        return skipped_sentence(state.text_of(first))
    return ""


def _facts(finding: Finding | None, state: TrackerState | None) -> str:
    lines = []
    if state is not None and state.step_text:
        lines.append(f"Step now: {state.step_text}")
    if finding is not None:
        lines.append(f"Finding: {finding.kind.replace('_', ' ')}: {finding.evidence}")
        for d in finding.differences:
            lines.append(f"Should be {d.expected}; seen {d.observed}")
        if finding.missing:
            lines.append("Not done yet: " + "; ".join(finding.missing[:2]))
    elif state is not None and state.missing:
        lines.append("Not done yet: " + "; ".join(state.text_of(s) for s in state.missing[:2]))
    return "\n".join(lines)


def _schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"sentence": {"type": "string", "maxLength": SENTENCE_CHARS}},
        "required": ["sentence"],
    }


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:[./]\d+)?", text))


class Phraser:
    def __init__(
        self,
        llm: LLM | None,
        encoder: TextEncoder,
        clock: Clock,
        *,
        use_llm: bool = True,
        time_left_s: Callable[[], float | None] = lambda: None,
    ) -> None:
        # The step's remaining budget comes from whoever runs the step (the scheduler).
        self.time_left_s = time_left_s
        self.llm = llm
        self.encoder = encoder
        self.clock = clock
        self.use_llm = use_llm and llm is not None

    async def phrase(
        self, finding: Finding | None, state: TrackerState | None, *, instant: bool = False
    ) -> Phrased:
        base = template(finding, state)
        if not self.use_llm or self.llm is None:
            return Phrased(base, "template")
        if instant:
            return Phrased(base, "template (instant: no time for a model)")
        left = self.time_left_s()
        if left is not None and left < PHRASE_BUDGET_S:
            return Phrased(base, f"template (budget: {max(left, 0):.1f} s left)")
        start = time.perf_counter()
        msgs = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": _facts(finding, state) + f"\nPlain version: {base}\nYour sentence:"},
        ]
        res = await call_json(
            self.llm,
            self.clock,
            "phrasing",
            msgs,
            _schema(),
            lambda raw: " ".join(str(raw.get("sentence", "")).split()),
            max_tokens=PHRASE_MAX_TOKENS,
            attempts=1,
            setting="",
        )  # a fixed allowance, and the template goes out anyway
        took = time.perf_counter() - start
        text = res.value or ""
        why = await self.clock.run_blocking(unfaithful, text, base, _facts(finding, state), self.encoder)
        if why:
            return Phrased(base, f"template ({why})", took)
        return Phrased(text, "llm", took)


def unfaithful(text: str, base: str, facts: str, encoder: TextEncoder) -> str:
    """Why a model's sentence may not be said instead of the template ("" when it may)."""
    if not text:
        return "no sentence from the model"
    if (
        len(text.split()) > MAX_WORDS
        or len([s for s in re.split(r"[.!?]+", text) if s.strip()]) > 1
        or re.search(r"[{}\[\]<>]", text)
    ):
        return "the model wrote more than one plain sentence"
    if not _numbers(text) <= _numbers(base + " " + facts):
        return "the model added a number"
    vecs = np.asarray(encoder.encode([base, text]))
    cos = float(vecs[0] @ vecs[1])
    if cos < FAITHFUL_COS:
        return f"model sentence not faithful, cosine {cos:.2f}"
    return ""
