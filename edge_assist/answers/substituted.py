"""A thing used in place of the one asked about: "did I use the ramekin?" over "coating a big
microwavable mug instead of ramekin cup" is a "No", said with what was used.

Where a caption says one thing was used instead of another, every later caption that still calls
it by the planned name (a recipe's own words kept by a captioner: "tipping two eggs into the
ramekin mug") names the planned thing that never came out. So the substitution, once told, is the
answer to a yes/no question about the replaced thing, whatever the other moments say; a question
about the thing used instead is answered as asked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from edge_assist.answers import meaning, thing_naming
from edge_assist.clock import Clock
from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall

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


def substitution(focus: str, clips: Sequence[CaptionRecord]) -> CaptionRecord | None:
    """The clip that says the thing the yes/no question names was replaced, or None."""
    things = [t.replace("-", " ") for t in meaning.things(focus, verb_first=True)]
    if not things:
        return None
    for clip in clips:
        if "instead" in clip.text.lower() and any(replaced(t, clip.text, focus) for t in things):
            # the thing used is itself asked about ("did I use the mug instead of the ramekin?"),
            # by its own word: a vessel's other names call the mug used a ramekin too
            used = clip.text.lower().split("instead")[0]
            if not any(_said(t, used) for t in things):
                return clip
    return None


async def checked(
    ga: GroundedAnswer, focus: str, recall: Recall, clock: Clock, session_id: str | None, before_t: float
) -> tuple[str, Moment, dict[str, str]] | None:
    """The "No" a substitution earns for a yes/no answer that is not already one (its text, its
    moment and the trace), or None."""
    if session_id is None or ga.text.startswith("No") or "instead" in focus.lower():
        return None
    clips, _ = await clock.run_blocking(recall.clips_in_period, session_id, -math.inf, before_t)
    clips = sorted((c for c in clips if c.t1 <= before_t + 1e-6), key=lambda c: (c.t0, c.clip_index))
    clip = substitution(focus, clips)
    if clip is None:
        return None
    moment = Moment(clip.session_id, clip.clip_index, clip.t0, clip.t1, clip.text, 1.0)
    told = tell(clip.text, clip.t0, "").rstrip(".")
    return f"No: {told[0].lower()}{told[1:]}.", moment, {"kind": "substituted", "observed": clip.text}
