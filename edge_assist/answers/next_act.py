"""The next act of the kind a question names: "what did I add after the onions?" is the next
thing added, not whatever the clip after the onions shows (a stir, a wipe of the counter)."""

from __future__ import annotations

import re

from edge_assist.answers import meaning
from edge_assist.clock import Clock
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.text.action_families import ANY_ACT, known

# How many clips on from the act asked about the next act of that kind is looked for: a few
# minutes of 10-s clips, or a recipe's next several steps.
LOOK_AHEAD = 12
_ASKED_ACT = re.compile(
    r"\bwhat\s+(?:else\s+|other\s+\w+\s+)?(?:did|do)\s+(?:i|you)\s+([a-z]+)(?:\s+(?:in|on|into|to|up))?"
    r"\s+(?:(?:\w+\s+){0,2}?)(?:right\s+|just\s+|straight\s+|immediately\s+)?(?:after|before|next)\b",
    re.I,
)


def asked_act(question: str) -> str | None:
    """The act the question asks the next (or last) of: "add" of "what did I add after that?";
    None for "what did I do after ...?" and for a verb the act families do not know."""
    m = _ASKED_ACT.search(question)
    if m is None:
        return None
    verb = meaning.verb_base(m.group(1).lower())
    return verb if verb and verb not in ANY_ACT and verb != "happen" and known(verb) else None


async def of_act(
    recall: Recall, clock: Clock, near: Moment, verb: str, *, step: int, before_t: float
) -> Moment:
    """`near` when it tells the act `verb` names; else the first of the next clips that does, in
    the direction of `step`; else `near` (the clip next to the act, as for any question)."""
    if meaning.tells(verb, near.text):
        return near
    more = await recall.neighbours(clock, near, step=step, count=LOOK_AHEAD, before_t=before_t)
    return next((m for m in more if meaning.tells(verb, m.text)), near)
