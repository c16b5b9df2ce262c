"""When a remembered moment happened, in words the reasoner and the wearer can use.

Stream time restarts with every session (each start of the glasses, each replayed
recording), so "0:35-0:45" alone is ambiguous once memory spans days. A moment of the
current session keeps its stream time; a moment of an earlier session gets how long ago
it was ("3 h earlier", "yesterday", "4 days ago"), from the wall-clock start of each
session kept by the store.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

from edge_assist.retrieval import prompts

HOUR = 3600.0
DAY = 24 * HOUR


def age_text(seconds: float) -> str:
    if seconds < HOUR:
        return f"{max(1, round(seconds / 60))} min earlier"
    if seconds < DAY:
        return f"{round(seconds / HOUR)} h earlier"
    days = round(seconds / DAY)
    return "yesterday" if days == 1 else f"{days} days ago"


class SessionAges:
    """Labels for moments of other sessions, relative to `now_t` in `current`.

    An unbounded `now_t` (a question over the whole of `current`, as `edge-assist ask` asks
    after the fact) measures ages from the wall clock now."""

    def __init__(
        self, starts: Mapping[str, float], current: str | None, now_t: float, now_wall: float | None = None
    ) -> None:
        self.starts = dict(starts)
        self.current = current
        if current is not None and current in self.starts and math.isfinite(now_t):
            self.now_abs = self.starts[current] + now_t
        else:
            self.now_abs = time.time() if now_wall is None else now_wall

    def note(self, session_id: str, t0: float) -> str:
        """'' for the current session (or with no current session), else its age."""
        if self.current is None or session_id == self.current or session_id not in self.starts:
            return ""
        return age_text(max(0.0, self.now_abs - (self.starts[session_id] + t0)))

    def stamp(self, session_id: str, t0: float, t1: float) -> str:
        note = self.note(session_id, t0)
        return f"{prompts.clip_time(t0, t1)}, {note}" if note else prompts.clip_time(t0, t1)

    def order(self, session_id: str) -> float:
        """Sort key: earlier sessions first, the current one last."""
        return self.starts.get(session_id, float("inf"))


NO_AGES = SessionAges({}, None, 0.0, 0.0)
