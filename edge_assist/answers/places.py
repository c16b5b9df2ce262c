"""Where a remembered moment happened: "where was that?" after an answer.

A caption names a place when anything does, in a phrase after a preposition of place: "in a
large skillet", "on the cutting board", "into the mug". The place is a container, a tool or
an appliance (`tasks/word_kinds.py`), or a surface of a room (`SURFACES`). When the moment's
own caption names none, the clips right next to it in the same session often do ("heat oil in
the pan", then "cook the tomatoes"): that clip is told with its time, as what was seen next to
the moment, never as the moment's own place. When none does, the answer says it does not
know where, and tells the moment again with its time.
"""

from __future__ import annotations

import re

from edge_assist.clock import Clock
from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import TOOL, lexical_kind
from edge_assist.text.stream_time import stream_clock

# Surfaces and fittings of a room a thing is put on or in, which are no tool.
SURFACES = frozenset(
    """counter countertop worktop table bench shelf cupboard cabinet drawer sink stove stovetop hob
    fridge freezer floor windowsill desk tray rack""".split()
)
_PREPOSITIONS = frozenset("in into on onto inside over under at from".split())
_FROM = frozenset({"from", "at"})
_DETERMINERS = frozenset("the a an my your his her their some".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|[,.;:]")
PHRASE_WORDS = 4  # a place's noun within this many words of its preposition ("on a large serving dish")
# A neighbouring clip further than this from the moment shows another moment, not its place.
NEAR_S = 90.0


def place_in(text: str, *, went: bool = False) -> str | None:
    """The first place phrase of a caption ("in the large skillet"), or None; with `went`, only
    where a thing went ("onto a serving dish", not "from the skillet")."""
    words = _WORD.findall(text)
    for i, w in enumerate(words):
        if w.lower() not in _PREPOSITIONS or (went and w.lower() in _FROM):
            continue
        j = i + 1
        det = "the"
        if j < len(words) and words[j].lower() in _DETERMINERS:
            det = {"my": "your", "a": "the", "an": "the", "some": "the"}.get(
                words[j].lower(), words[j].lower()
            )
            j += 1
        for k in range(j, min(j + PHRASE_WORDS, len(words))):
            if not words[k][0].isalpha():
                break
            if _is_place(words[k]):
                while k + 1 < len(words) and words[k + 1][0].isalpha() and _is_place(words[k + 1]):
                    k += 1  # "the ramekin cup", "the frying pan": the whole name
                return " ".join([w.lower(), det, *words[j : k + 1]])
    return None


def _is_place(word: str) -> bool:
    noun = singular(word.lower())
    return noun in SURFACES or lexical_kind(noun) == TOOL


async def where(m: Moment, recall: Recall, clock: Clock, before_t: float, *, went: bool = False) -> str:
    """Where the moment happened, as its caption or the clips next to it say, or that it is not
    known. With `went` ("where did they go?"), where the things were put: the clip right after
    is looked at first."""
    own = place_in(m.text, went=went)
    if own is not None:
        return f"{own[0].upper()}{own[1:]}: {_lower(tell(m.text, m.t0, m.note))}"
    for step in (1, -1) if went else (-1, 1):
        near = await recall.neighbour(clock, m, step=step, before_t=before_t)
        if near is None or abs(near.t0 - m.t0) > NEAR_S + (m.t1 - m.t0):
            continue
        if place_in(near.text, went=went) is not None:
            side = "just before" if step < 0 else "right after"
            # The place is in the neighbour's own words; it is told, not claimed for the moment.
            return (
                f"I don't see where at {stream_clock(m.t0)}, but {side}, "
                f"{_lower(tell(near.text, near.t0, near.note))}"
            )
    return f"I don't know where: {_lower(tell(m.text, m.t0, m.note))}"


def _lower(s: str) -> str:
    return s[0].lower() + s[1:] if s else s
