"""Whether something went wrong: "did I spill anything?", "did anything spill?", "did some of the
herb end up outside the bowl?", "did anything catch and burn?".

A mishap is no act the wearer meant, so the answer gate, which matches a question's act to a
caption's, has nothing to match: a caption tells a spill as an aside ("in the dish, but some of
them splash outside, I'm scattering oregano"), in words of its own. So a question that asks
after a mishap is answered from the captions that tell one of its family:

- a spill: spill, slop, overflow, boil over, leak, a mess, splashed out or over, something
  outside the vessel, fallen or dropped onto the counter or the floor, knocked or tipped over;
- a burn: burnt, scorched, smoking, caught fire, overcooked (not "charred" or "blackened", which
  recipes ask for, nor "smoked" paprika).

A caption that says the mishap was avoided ("without spilling", "careful not to burn") tells
none. When the question names a thing ("did I spill any butter?"), the caption must name it (or
a member of it: oregano for "the herb"). "Yes" is said with the first such moment. "No" is
said only when memory covers the session (answers/earned_no.py) and no caption tells a mishap
of the family at all; a caption of one that does not name the thing asked leaves the question
to the answer gate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from edge_assist.answers import earned_no, meaning, thing_naming
from edge_assist.clock import Clock
from edge_assist.reasoning.answer_text import compose
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.word_kinds import TOOL, lexical_kind

_V = r"[a-z]*"  # the rest of a verb form: "spill" -> "spilled", "spilling", "spills"
_PLACE = r"(?:counter\w*|floor|table|worktop|ground|stove\w*|hob|side|edge|rim)"
# "over" of a mishap, not of a place something is put ("tip it over the pasta" pours it there).
_OVER = r"over\b(?!\s+(?:the|a|an|some|it|them|my|your|his|her|their|top)\b)"
# What a question says of a spill, and what a caption says of one.
_SPILL_ASKED = re.compile(
    rf"\b(?:spill{_V}|spilt|slop{_V}|overflow{_V}|boil{_V}\s+over|leak{_V}|mess(?:es|y)?\b(?!\s+up)|"
    rf"splash{_V}\s+(?:\w+\s+)?(?:out|outside|{_OVER}|everywhere)|end{_V}\s+(?:up\s+)?(?:outside|on\s+the\s+{_PLACE})|"
    rf"(?:fall|fell|drop{_V})\s+(?:\w+\s+)?(?:out|{_OVER}|on\s+the\s+{_PLACE}|onto\s+the\s+{_PLACE})|"
    rf"knock{_V}\s+(?:\w+\s+){{0,2}}?{_OVER}|tip{_V}\s+(?:\w+\s+){{0,2}}?{_OVER})",
    re.I,
)
_SPILL_TOLD = re.compile(
    rf"\b(?:spill{_V}|spilt|slop{_V}|overflow{_V}|boil{_V}\s+over|leak{_V}|mess{_V}|"
    rf"splash{_V}\s+(?:\w+\s+){{0,3}}?(?:out|outside|{_OVER}|everywhere)|outside\s+(?:of\s+)?the|"
    rf"(?:fall{_V}|fell|drop{_V})\s+(?:\w+\s+){{0,3}}?(?:on|onto|to)\s+the\s+{_PLACE}|"
    rf"knock{_V}\s+(?:\w+\s+){{0,2}}?{_OVER}|tip{_V}\s+(?:\w+\s+){{0,2}}?{_OVER})",
    re.I,
)
# A burn, asked or told in the same words.
_BURN = re.compile(
    rf"\b(?:burn(?:t|s|ed|ing)?|scorch{_V}|smok(?:e|es|ing)|catch{_V}\s+fire|caught\s+fire|on\s+fire|"
    rf"overcook{_V}|overdone)\b",
    re.I,
)
# A mishap said to be avoided: "without spilling", "careful not to burn it", "to prevent burning".
_AVOIDED = re.compile(
    r"\b(?:without|no|not|never|avoid\w*|prevent\w*|careful|so\s+as\s+not)\s+(?:\w+\s+){0,2}$", re.I
)
# A question that asks whether something happened: a helping verb first ("did anything spill?").
_ASKS_IF = re.compile(r"^\s*(?:did|was|were|has|have|had|is|are|does|do)\b", re.I)
_FAMILIES = {"spill": (_SPILL_ASKED, _SPILL_TOLD), "burn": (_BURN, _BURN)}


@dataclass(frozen=True)
class Asked:
    family: str  # "spill" or "burn"
    things: tuple[str, ...]  # what the question names as spilled or burnt (no tools: a bowl is a place)


def parse(question: str) -> Asked | None:
    """The mishap a yes/no question asks after, or None."""
    if not _ASKS_IF.search(question):
        return None
    for family, (asked, _) in _FAMILIES.items():
        if asked.search(question):
            said = asked.sub(" ", question)
            things = tuple(t for t in meaning.things(said, verb_first=False) if lexical_kind(t) != TOOL)
            return Asked(family, things)
    return None


def tells(family: str, caption: str) -> bool:
    """Whether a caption tells a mishap of the family (and not one avoided)."""
    told = _FAMILIES[family][1]
    return any(not _AVOIDED.search(caption[: m.start()]) for m in told.finditer(caption))


def _names(asked: Asked, caption: str) -> bool:
    return not asked.things or any(thing_naming.thing_in(t, caption) for t in asked.things)


def answer(
    asked: Asked, clips: Sequence[CaptionRecord], before_t: float
) -> tuple[str, CaptionRecord | None] | None:
    """ "Yes" with the first clip that tells the mishap on a thing asked; "No" (no clip) when the
    clips cover the session and none tells one of the family; else None."""
    told = [c for c in clips if c.t1 <= before_t + 1e-6 and tells(asked.family, c.text)]
    hit = next((c for c in told if _names(asked, c.text)), None)
    if hit is not None:
        return compose("yesno", hit.text, hit.t0), hit
    if told or not earned_no.covers(list(clips), before_t):
        return None
    what = " or ".join(asked.things) if asked.things else "anything"
    return f"No, I didn't see {what} {asked.family}.", None  # the family is named by its verb


async def answered(
    recall: Recall, clock: Clock, question: str, before_t: float, session_id: str | None
) -> tuple[str, Moment | None, dict[str, Any]] | None:
    """The answer to a question about a mishap in this session (its text, the moment it rests on
    and what was found, for the trace), or None when it asks after none or memory cannot tell."""
    asked = parse(question)
    if asked is None or session_id is None or not earned_no.may_say_no(question, session_id):
        return None
    clips, _ = await clock.run_blocking(recall.clips_in_period, session_id, 0.0, before_t)
    said = answer(asked, clips, before_t)
    if said is None:
        return None
    text, c = said
    moment = None if c is None else Moment.of_clip(c, 1.0)
    return text, moment, {"mishap": [asked.family, list(asked.things), None if c is None else c.clip_index]}
