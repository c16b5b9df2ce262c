"""Grounded answers: the model chooses which remembered moment answers a question; the
answer is composed from that moment; an optional rephrasing is kept only if faithful.

A 135M model picks well among a few listed options under a grammar (`ask --choices`
showed it) and writes badly when free: so the model's only job here is a constrained
choice among candidate moments (or "none"), and the sentence comes from the evidence
(`answer_text.compose`). When the model rephrases (`reasoner.answer_rephrase`), the
result must stay close to the composed sentence (text-encoder cosine) and add no content
word that neither it nor the evidence holds; otherwise the composed sentence is said.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_assist.clock import Clock
from edge_assist.inference.base import LLM, Message, TextEncoder
from edge_assist.inference.llm_call import CallResult, call_json
from edge_assist.reasoning import prompts
from edge_assist.reasoning.answer_text import content_words, new_content
from edge_assist.retrieval.api import Moment

NONE = "none"
CHOICE_TOKENS = 16
REPHRASE_CHARS = 200
FAITHFUL_COSINE = 0.8

CHOOSE_SYSTEM = (
    "You help the wearer of smart glasses remember what they did. You get a question and "
    "numbered moments from their memory. Reply with the number of the moment that answers "
    "the question, or none when no moment is about it."
)
# No worked examples: measured on a probe of eight demo questions, SmolLM2-135M copied the
# answer of the last example it was shown ("none" every time, or "2" every time); without
# examples it mostly keeps the first listed moment, the encoder's best, and the grammar
# already fixes the form.
CHOOSE_EXAMPLES: tuple[tuple[str, str], ...] = ()

REPHRASE_SYSTEM = (
    "Rewrite the answer as one short, friendly sentence to the wearer. Keep the time and every "
    "fact. Add nothing that is not in it."
)


def moment_line(i: int, m: Moment) -> str:
    when = m.note or prompts.clip_time(m.t0, m.t1).split("-")[0]
    return f"{i}. [{when}] {prompts.clip(m.text, prompts.LINE_CHARS)}"


def choose_messages(question: str, moments: Sequence[Moment]) -> list[Message]:
    msgs: list[Message] = [{"role": "system", "content": CHOOSE_SYSTEM}]
    for user, answer in CHOOSE_EXAMPLES:
        msgs.append({"role": "user", "content": user})
        msgs.append({"role": "assistant", "content": answer})
    listed = "\n".join(moment_line(i, m) for i, m in enumerate(moments, 1))
    msgs.append(
        {
            "role": "user",
            "content": f"Question: {prompts.clip(question, prompts.LINE_CHARS)}\nMoments:\n{listed}",
        }
    )
    return msgs


def choose_schema(n: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"moment": {"enum": [*(str(i) for i in range(1, n + 1)), NONE]}},
        "required": ["moment"],
    }


def parse_choice(raw: dict[str, Any], n: int) -> int | None:
    """1-based index of the chosen moment, or None for "none"."""
    v = str(raw.get("moment", "")).strip().lower()
    if v == NONE:
        return None
    if v.isdigit() and 1 <= int(v) <= n:
        return int(v)
    raise ValueError(f"moment {v!r} is not one of 1..{n} or none")


@dataclass(frozen=True)
class Choice:
    moment: Moment | None  # None: the model said no moment answers
    call: CallResult[int | None]


async def choose_moment(
    llm: LLM, clock: Clock, question: str, moments: Sequence[Moment], *, temperature: float = 0.0
) -> Choice:
    """The model's pick among `moments` (non-empty). A failed call counts as "none": an
    answer that cannot be grounded is not given."""
    res = await call_json(
        llm,
        clock,
        "choose moment",
        choose_messages(question, moments),
        choose_schema(len(moments)),
        lambda raw: parse_choice(raw, len(moments)),
        max_tokens=CHOICE_TOKENS,
        temperature=temperature,
    )
    picked = res.value
    return Choice(moments[picked - 1] if picked is not None else None, res)


def rephrase_messages(question: str, composed: str) -> list[Message]:
    return [
        {"role": "system", "content": REPHRASE_SYSTEM},
        {
            "role": "user",
            "content": f"Question: {prompts.clip(question, prompts.LINE_CHARS)}\nAnswer: {composed}",
        },
    ]


def rephrase_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"sentence": {"type": "string", "maxLength": REPHRASE_CHARS}},
        "required": ["sentence"],
    }


@dataclass(frozen=True)
class Faithfulness:
    ok: bool
    cosine: float
    new_words: tuple[str, ...]

    def reason(self) -> str:
        if self.ok:
            return f"faithful (cosine {self.cosine:.2f})"
        parts = []
        if self.cosine < FAITHFUL_COSINE:
            parts.append(f"cosine {self.cosine:.2f} < {FAITHFUL_COSINE}")
        if self.new_words:
            parts.append("new words: " + ", ".join(self.new_words))
        return "unfaithful (" + "; ".join(parts) + ")"


def check_faithful(
    encoder: TextEncoder,
    composed: str,
    rephrased: str,
    evidence: Sequence[str],
    *,
    min_cosine: float = FAITHFUL_COSINE,
) -> Faithfulness:
    """A rephrasing is faithful when it means the composed sentence (encoder cosine) and
    says nothing the composed sentence and the evidence do not (no new content word)."""
    vecs = np.asarray(encoder.encode([composed, rephrased]))
    cos = float(vecs[0] @ vecs[1])
    new = tuple(sorted(new_content(rephrased, [composed, *evidence])))
    return Faithfulness(cos >= min_cosine and not new, cos, new)


REPHRASE_TOKENS = 80


async def rephrased(
    llm: LLM,
    clock: Clock,
    encoder: TextEncoder,
    question: str,
    composed: str,
    moment: Moment,
    temperature: float,
    timings: dict[str, float],
    trace: dict[str, Any],
) -> str:
    """The model's rephrasing of the composed answer when it is faithful, else the composed one."""
    res = await call_json(
        llm,
        clock,
        "rephrase answer",
        rephrase_messages(question, composed),
        rephrase_schema(),
        lambda raw: " ".join(str(raw.get("sentence", "")).split()),
        max_tokens=REPHRASE_TOKENS,
        temperature=temperature,
    )
    timings["rephrase"] = res.seconds
    trace["rephrase"] = res.trace()
    if not res.value:
        trace["rephrase"]["kept"] = "composed (no rephrasing)"
        return composed
    check = await clock.run_blocking(check_faithful, encoder, composed, res.value, [moment.text])
    trace["rephrase"]["check"] = check.reason()
    return res.value if check.ok else composed


async def option(
    clock: Clock, encoder: TextEncoder, choices: Sequence[str], moment: Moment, composed: str
) -> str:
    """The option the evidence names (all its content words in the caption), else the
    one closest to the composed answer."""
    evidence = content_words(moment.text)
    named = [c for c in choices if (w := content_words(c)) and w <= evidence]
    if len(named) == 1:
        return named[0]
    pool = named or list(choices)
    vecs = np.asarray(await clock.run_blocking(encoder.encode, [composed, *pool]))
    return pool[int(np.argmax(vecs[1:] @ vecs[0]))]
