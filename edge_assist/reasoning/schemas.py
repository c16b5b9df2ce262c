"""JSON schemas of every structured answer the assistant asks a model for, and their parsing.

Schemas are flat objects (no anyOf): llama.cpp turns them into a grammar and the
inference layer checks remote answers against the same subset. The free-text fields
("observation", "problem", "facts") are written *before* the decision: a tiny model that
has to describe and compare first decides better than one asked for a verdict cold
(DESIGN.md, Models). The grammar builder sorts property names, so the names are chosen
to sort in the order the model should write them (observation < problem < reply < say <
search_query < service); `test_reasoning_schemas` checks it. String lengths are capped
so an answer always closes within `reasoner.max_tokens`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from edge_assist.events import MainType, SubType
from edge_assist.reasoning.answer_text import grammar_cut
from edge_assist.retrieval.prompts import QUERY_CHARS

NOTE_CHARS = 90  # observation / problem / facts
SAY_CHARS = 110  # what the glasses say

# Pass 1 may speak only services the present can support; Episodic and Long-Term ones
# need memory, so asking for them *is* a search (DESIGN.md, Services: "needs").
PASS1_SUB_TYPES = tuple(st.value for st in SubType if st.main_type in (MainType.INSTANT, MainType.SHORT_TERM))
ALL_SUB_TYPES = tuple(st.value for st in SubType)


def _s(n: int) -> dict[str, Any]:
    return {"type": "string", "maxLength": n}


def pass1_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "observation": _s(NOTE_CHARS),
            "problem": _s(NOTE_CHARS),
            "reply": {"enum": ["silent", "respond", "search"]},
            "say": _s(SAY_CHARS),
            "search_query": _s(QUERY_CHARS),
            "service": {"enum": ["none", *PASS1_SUB_TYPES]},
        },
        "required": ["observation", "problem", "reply", "say", "search_query", "service"],
    }


def pass2_schema(*, must_answer: bool) -> dict[str, Any]:
    actions = ["respond"] if must_answer else ["silent", "respond"]
    return {
        "type": "object",
        "properties": {
            "facts": _s(NOTE_CHARS),
            "reply": {"enum": actions},
            "say": _s(SAY_CHARS),
            "service": {"enum": ["none", *ALL_SUB_TYPES]},
        },
        "required": ["facts", "reply", "say", "service"],
    }


def query_pass1_schema() -> dict[str, Any]:
    """A wearer's question: answer from what is in view, or search memory. Never silent."""
    return {
        "type": "object",
        "properties": {
            "facts": _s(NOTE_CHARS),
            "reply": {"enum": ["answer", "search"]},
            "say": _s(SAY_CHARS),
            "search_query": _s(QUERY_CHARS),
        },
        "required": ["facts", "reply", "say", "search_query"],
    }


def sufficiency_schema(choices: tuple[str, ...] = ()) -> dict[str, Any]:
    """Offline coarse pass: is what the summaries say enough to answer?"""
    answer: dict[str, Any] = {"enum": list(choices)} if choices else _s(SAY_CHARS)
    return {
        "type": "object",
        "properties": {
            "facts": _s(NOTE_CHARS),
            "is_enough": {"type": "boolean"},
            "the_answer": answer,
        },
        "required": ["facts", "is_enough", "the_answer"],
    }


def answer_schema(choices: tuple[str, ...] = ()) -> dict[str, Any]:
    answer: dict[str, Any] = {"enum": list(choices)} if choices else _s(SAY_CHARS)
    return {
        "type": "object",
        "properties": {"facts": _s(NOTE_CHARS), "the_answer": answer},
        "required": ["facts", "the_answer"],
    }


class AnswerFormatError(ValueError):
    """A schema-valid answer that still cannot be acted on (e.g. respond without text)."""


@dataclass(frozen=True)
class FirstPass:
    action: str  # "silent" | "respond" | "search"
    sub_type: SubType | None = None
    text: str = ""
    query: str = ""
    why: str = ""
    observation: str = ""


@dataclass(frozen=True)
class SecondPass:
    speak: bool
    sub_type: SubType | None = None
    text: str = ""
    evidence: str = ""


def _sub(value: object) -> SubType | None:
    if not isinstance(value, str) or value.strip().lower() in ("", "none"):
        return None
    try:
        return SubType.parse(value)
    except ValueError:
        raise AnswerFormatError(f"unknown sub_type {value!r}") from None


# A tiny model under a grammar sometimes fills a field with a field's own name or an enum
# word ("say": "says", "search_query": "search_query"). That is form without content.
_ECHOES = frozenset(
    "observation problem reply say says search search_query query service facts the_answer answer respond "
    "silent none n/a na null empty text".split()
)


def _text(raw: dict[str, Any], key: str) -> str:
    v = raw.get(key, "")
    text = " ".join(v.split()) if isinstance(v, str) else ""
    return "" if text.lower().strip(" .:!?\"'") in _ECHOES else text


def _sentence(raw: dict[str, Any], key: str) -> str:
    """What the glasses would say: at least two words, else nothing."""
    text = grammar_cut(_text(raw, key), SAY_CHARS)
    return text if len(text.split()) >= 2 else ""


def parse_pass1(raw: dict[str, Any]) -> FirstPass:
    action = raw.get("reply")
    obs, check = _text(raw, "observation"), _text(raw, "problem")
    if action == "silent":
        return FirstPass("silent", why=check, observation=obs)
    if action == "respond":
        st, say = _sub(raw.get("service")), _sentence(raw, "say")
        if st is None or not say:
            # A wish to speak with nothing to say or no service is no decision: stay silent.
            return FirstPass(
                "silent", why=f"respond without {'sub_type' if st is None else 'text'}", observation=obs
            )
        return FirstPass("respond", sub_type=st, text=say, why=check, observation=obs)
    if action == "search":
        query = _text(raw, "search_query") or _text(raw, "say") or obs
        if not query:
            return FirstPass("silent", why="search without a query", observation=obs)
        return FirstPass("search", query=query, why=check, observation=obs)
    raise AnswerFormatError(f"unknown action {action!r}")


def parse_query_pass1(raw: dict[str, Any], question: str) -> FirstPass:
    action = raw.get("reply")
    check = _text(raw, "facts")
    if action == "answer" and _text(raw, "say"):
        return FirstPass("respond", text=grammar_cut(_text(raw, "say"), SAY_CHARS), why=check)
    if action in ("answer", "search"):
        return FirstPass("search", query=_text(raw, "search_query") or question, why=check)
    raise AnswerFormatError(f"unknown action {action!r}")


def parse_pass2(raw: dict[str, Any], *, must_answer: bool) -> SecondPass:
    action = raw.get("reply")
    evidence, say, st = _text(raw, "facts"), _sentence(raw, "say"), _sub(raw.get("service"))
    if action not in ("silent", "respond"):
        raise AnswerFormatError(f"unknown action {action!r}")
    if must_answer:
        if not say:
            raise AnswerFormatError("an answer to a question is empty")
        return SecondPass(True, sub_type=st, text=say, evidence=evidence)
    if action == "silent":
        return SecondPass(False, evidence=evidence)
    if st is None or not say:
        return SecondPass(False, evidence=f"respond without {'sub_type' if st is None else 'text'}")
    return SecondPass(True, sub_type=st, text=say, evidence=evidence)
