"""How long an activity went on when no caption states it: "how long was I kneading the dough?"
over a day cut into 10-s clips, where the kneading is told by one clip after another and no
caption says "for 6 minutes".

The length is read from the clips that tell the act: clips close enough in time make one
stretch (a clip or two the captioner missed, or spent on something else, does not end it), and
a stretch lasts from its first clip's start to its last clip's end. "The first time" is the
first stretch, "the last time" the last; otherwise the stretches add up, each told.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from edge_assist.answers.meaning import caption_verbs
from edge_assist.retrieval.api import CaptionRecord
from edge_assist.text.stream_time import length, stream_clock

# Clips this far apart or closer are one stretch of the activity: two missed 10-s clips, or an
# aside as short (a glance at the phone while kneading).
GAP_S = 30.0
_THEN = re.compile(r"(?:,\s*|\s+)(?:and\s+)?then$", re.IGNORECASE)  # the join to the next clause
TOLD = 3  # stretches told one by one; more are counted


@dataclass(frozen=True)
class Stretch:
    t0: float
    t1: float
    clips: tuple[CaptionRecord, ...]

    @property
    def seconds(self) -> float:
        return max(0.0, self.t1 - self.t0)


def clauses(caption: str) -> list[str]:
    """A caption's actions, one clause each: "The person stirs the mixture, washes the pepper, then
    slices it." is three. A verb starts a clause after a comma or "then", not after "and" ("adds
    onions, peppers and salt" is one), so an act and a thing are read together only when one
    clause tells both."""
    words = caption.split()
    starts: list[int] = []
    acted = False  # whether the clause so far tells an action: "In a blender, I'm mashing" is one
    for i, _ in caption_verbs(caption):
        if acted and _starts_clause(words, i):
            starts.append(i)
        acted = True
    bounds = [0, *starts, len(words)]
    parts = (" ".join(words[a:b]) for a, b in zip(bounds, bounds[1:], strict=False))
    return [p for p in (_THEN.sub("", p).strip(" ,") for p in parts) if p]


def _starts_clause(words: list[str], i: int) -> bool:
    """Whether the verb at word `i` starts a clause: after "then", or after a comma unless it is a
    participle that tells how the last action went ("frying for a minute, mixing everything",
    "microwaving the dish, covered")."""
    before = words[i - 1]
    if before.lower() == "then":
        return True
    return before.endswith(",") and not words[i].lower().strip(".,;!?").endswith(("ing", "ed", "en"))


def stretches(clips: Sequence[CaptionRecord], tells: Callable[[str], bool]) -> list[Stretch]:
    """The stretches of time covered by the clips with a clause that tells the activity, in time
    order; each clip told by the clause that tells it."""
    out: list[list[CaptionRecord]] = []
    for c in sorted(clips, key=lambda c: (c.t0, c.clip_index)):
        told = clauses(c.text)
        k = next((k for k, x in enumerate(told) if tells(x)), None)
        if k is None:
            continue
        c = replace(c, text=told[k] if k == 0 else with_subject(c.text, told[k]))
        if out and c.t0 - max(x.t1 for x in out[-1]) <= GAP_S:
            out[-1].append(c)
        else:
            out.append([c])
    return [Stretch(run[0].t0, max(c.t1 for c in run), tuple(run)) for run in out]


def with_subject(caption: str, clause: str) -> str:
    """A later clause told with the caption's subject ("The person stir-fries vegetables" of
    "The person stir-fries meat, then stir-fries vegetables"), so that it is told as an act of
    the wearer's; a lead longer than a subject ("In a blender, I'm") is not repeated."""
    verbs = caption_verbs(caption)
    lead = caption.split()[: verbs[0][0]] if verbs else []
    if not lead or len(lead) > 3 or any(w.endswith(",") for w in lead):
        return clause
    return f"{' '.join(lead)} {clause}"


def _from_to(s: Stretch) -> str:
    return f"from {stream_clock(s.t0)} to {stream_clock(s.t1)}"


def told(found: list[Stretch], which: str, said: Callable[[CaptionRecord], str]) -> tuple[str, CaptionRecord]:
    """The answer for the time asked ("first", "second", "last" or "all") and the clip it rests on.
    `said` tells a clip in the answer's words ("you kneaded the dough")."""
    if which != "all" or len(found) == 1:
        pick = {"first": 0, "second": 1, "last": -1, "all": 0}[which]
        s = found[min(pick, len(found) - 1) if pick >= 0 else pick]
        return f"About {length(s.seconds)}, {_from_to(s)}: {said(s.clips[0])}", s.clips[0]
    total = sum(s.seconds for s in found)
    parts = [_from_to(s) for s in found[:TOLD]]
    more = f" and {len(found) - TOLD} more" if len(found) > TOLD else ""
    listed = ", ".join(parts) + more if more else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return (
        f"About {length(total)} in all, in {len(found)} stretches: {listed}. {said(found[0].clips[0])}",
        found[0].clips[0],
    )
