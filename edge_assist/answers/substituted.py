"""A thing used in place of the one asked about: "did I use the ramekin?" over "coating a big
microwavable mug instead of ramekin cup" is a "No", said with what was used.

Where a caption says one thing was used instead of another, every later caption that still calls
it by the planned name (a recipe's own words kept by a captioner: "tipping two eggs into the
ramekin mug") names the planned thing that never came out. So the substitution, once told, is the
answer to a yes/no question about the replaced thing, whatever the other moments say; a question
about the thing used instead is answered as asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from edge_assist.answers import meaning, thing_naming
from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import Moment

if TYPE_CHECKING:
    from edge_assist.answers.answer_record import GroundedAnswer

# "<what was used> instead of <what was planned>": the planned thing, up to three words
_INSTEAD = re.compile(
    r"\binstead\s+of\s+(?:the\s+|a\s+|an\s+|my\s+|some\s+)?([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2})", re.I
)


def replaced(thing: str, caption: str, focus: str = "") -> bool:
    """Whether the caption says `thing` (singular) was replaced by another. A name of several
    words is the thing by its own word ("ramekin" of "ramekin cup"); its last word alone names
    any of its kind ("cup" is the mug used as well), unless the question says the rest too."""
    for m in _INSTEAD.finditer(caption):
        words = m.group(1).lower().split()
        if not thing_naming.thing_in(thing, m.group(1), general=False):
            continue
        if len(words) == 1 or not _said(thing, words[-1]) or all(_said(w, focus) for w in words[:-1]):
            return True
    return False


def _said(word: str, text: str) -> bool:
    return re.search(rf"\b{re.escape(word)}(?:e?s)?\b", text.lower()) is not None


def substitution(focus: str, moments: Sequence[Moment]) -> Moment | None:
    """The first of `moments` (in time order) that says the thing the yes/no question names was
    replaced, or None."""
    things = [t.replace("-", " ") for t in meaning.things(focus, verb_first=True)]
    if not things:
        return None
    for clip in moments:
        if "instead" in clip.text.lower() and any(replaced(t, clip.text, focus) for t in things):
            # the thing used is itself asked about ("did I use the mug instead of the ramekin?"),
            # by its own word: a vessel's other names call the mug used a ramekin too
            used = clip.text.lower().split("instead")[0]
            if not any(_said(t, used) for t in things):
                return clip
    return None


def checked(
    ga: GroundedAnswer, focus: str, session_id: str | None
) -> tuple[str, Moment, dict[str, str]] | None:
    """The "No" a substitution earns for a yes/no answer that is not already one (its text, its
    moment and the trace), or None. The caption telling the substitution names the replaced thing,
    so it is among the moments ranked for the question: no other part of the session is read."""
    if session_id is None or ga.text.startswith("No") or "instead" in focus.lower():
        return None
    today = sorted(
        (m for m in ga.candidates if m.session_id == session_id and m.note == ""), key=lambda m: m.t0
    )
    told = substitution(focus, today)
    if told is None:
        return None
    said = tell(told.text, told.t0, "").rstrip(".")
    return f"No: {said[0].lower()}{said[1:]}.", told, {"kind": "substituted", "observed": told.text}
