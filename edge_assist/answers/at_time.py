"""What the wearer was doing at a time they name: "what was I doing two minutes in?", "at the
five-minute mark, what was going on?", "what was I doing at 4:30?", "what did I do at the start?",
"what was happening towards the end?", "what was I doing ten minutes ago?".

No act is named, so retrieval by meaning has nothing to go on; the time is the question. It is
read as stream time (the session's clock, as answers tell times: "at 4:16"), or before the time
asked for "ago", and the moment that covers it told. A time past what memory holds, or before
its first moment, is not guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edge_assist.clock import Clock
from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.text.numbers import CARDINALS, TIME_CARDINALS

_DOING = re.compile(
    r"\bwhat\s+(?:was\s+(?:i|you)\s+(?:doing|up\s+to|making|working\s+on)|did\s+(?:i|you)\s+do"
    r"|was\s+(?:happening|going\s+on)|happened|were\s+(?:i|you)\s+doing)\b"
)
_NUMBER = (
    r"(\d+(?:\.\d+)?|an?|half\s+an?|" + "|".join(sorted({*CARDINALS, *TIME_CARDINALS}, key=len)[::-1]) + ")"
)
_UNIT = r"(seconds?|secs?|minutes?|mins?|hours?|hrs?)"
# "two minutes in", "at the two-minute mark", "at 2 minutes", "around 90 seconds": a time said as
# one, with "at" before it or "in"/"mark" after ("for 2 minutes" times an act, it names no time)
_SINCE_START = re.compile(
    rf"\b(?:(?:at|around|about|by)\s+(?:the\s+)?{_NUMBER}[\s-]*{_UNIT}(?:\s+mark)?"
    rf"|{_NUMBER}[\s-]*{_UNIT}\s+(?:mark|in|into\s+(?:it|the\s+\w+)|since\s+(?:i|you)\s+started))\b"
)
_CLOCK = re.compile(r"\b(?:at\s+|around\s+|about\s+)?(\d{1,2}):(\d{2})\b")
_AGO = re.compile(rf"\b{_NUMBER}[\s-]*{_UNIT}\s+ago\b")
_START = re.compile(r"\b(?:at\s+the\s+(?:very\s+)?(?:start|beginning)|first\s+thing|to\s+begin\s+with)\b")
_END = re.compile(r"\b(?:(?:towards?|near|at)\s+the\s+(?:very\s+)?end|last\s+thing)\b")
_HALF = re.compile(r"\bhalf\s*way(?:\s+through)?\b|\bin\s+the\s+middle\b")


@dataclass(frozen=True)
class Named:
    """A time a question names: `at` seconds of stream time, or relative to the ask (`ago`), or
    a part of the session ("start", "end", "middle")."""

    at: float | None = None
    ago: float | None = None
    part: str = ""


def _seconds(number: str, unit: str) -> float:
    n = number.lower()
    value = 0.5 if n.startswith("half") else 1.0 if n in ("a", "an") else None
    if value is None:
        value = float(CARDINALS.get(n, TIME_CARDINALS.get(n, 0))) if n.isalpha() else float(n)
    scale = 3600.0 if unit.startswith("h") else 60.0 if unit.startswith("m") else 1.0
    return value * scale


def named_time(question: str) -> Named | None:
    """The time a "what was I doing then" question names, or None when it is not one."""
    q = " ".join(question.lower().split())
    if not _DOING.search(q):
        return None
    if m := _AGO.search(q):
        return Named(ago=_seconds(m.group(1), m.group(2)))
    if m := _CLOCK.search(q):
        return Named(at=int(m.group(1)) * 60.0 + int(m.group(2)))
    if m := _SINCE_START.search(q):
        number, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        return Named(at=_seconds(number, unit))
    if _START.search(q):
        return Named(part="start")
    if _END.search(q):
        return Named(part="end")
    if _HALF.search(q):
        return Named(part="middle")
    return None


def covering(clips: list[CaptionRecord], named: Named, before_t: float) -> CaptionRecord | None:
    """The clip that covers the time named: the latest that began by then (a time between two
    clips is in the one before), bounded by what memory holds."""
    held = sorted((c for c in clips if c.t1 <= before_t + 1e-6), key=lambda c: (c.t0, c.clip_index))
    if not held:
        return None
    if named.part == "start":
        return held[0]
    if named.part == "end":
        return held[-1]
    end = max(c.t1 for c in held)
    if named.part == "middle":
        t = (held[0].t0 + end) / 2
    elif named.ago is not None:
        t = (before_t if before_t != float("inf") else end) - named.ago
    else:
        t = named.at if named.at is not None else 0.0
    if t < held[0].t0 or t > end:
        return None  # before the first moment or past the last one held: not guessed
    begun = [c for c in held if c.t0 <= t + 1e-6]
    return begun[-1] if begun else None


class TimeAnswers:
    """ "What was I doing at ...": the moment at a named time, told."""

    def __init__(self, recall: Recall, clock: Clock) -> None:
        self.recall, self.clock = recall, clock

    async def answer(
        self, question: str, *, session_id: str | None, before_t: float
    ) -> tuple[str, Moment, dict[str, object]] | None:
        named = named_time(question)
        if named is None or session_id is None:
            return None
        clips, _ = await self.clock.run_blocking(self.recall.clips_in_period, session_id, 0.0, before_t)
        clip = covering(list(clips), named, before_t)
        why: dict[str, object] = {"named": [named.at, named.ago, named.part]}
        if clip is None:
            return None
        m = Moment.of_clip(clip, 1.0)
        why["outcome"] = "the moment at the time named"
        return tell(clip.text, clip.t0), m, why
