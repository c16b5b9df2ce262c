"""A span of the wearer's days named in a question: "yesterday evening", "this morning",
"last night", "on Monday", "3 days ago", as a wall-clock window.

Times of day are local time (the device's time zone). A window never runs past now: "this
evening" asked at 18:30 is 17:00-18:30. Parts of the day: morning 05-12, afternoon 12-17,
evening 17-24, night 21-05 (into the next day); "last night" and "tonight" run 17-05.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from edge_assist.text.numbers import CARDINALS

PARTS = {"morning": (5, 12), "afternoon": (12, 17), "evening": (17, 24), "night": (21, 29)}
NIGHT_OUT = (17, 29)  # "last night", "tonight": the evening and the night after it (dinner included)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# "three days ago": number words up to a week; a longer span is read in digits only.
NUMBERS = {w: n for w, n in CARDINALS.items() if 2 <= n <= 7}

_PART = "|".join(PARTS)
_DAY = rf"(?P<day>yesterday|today|this)(?:\s+(?P<part>{_PART}))?"
_PATTERNS = (
    re.compile(rf"\b(?:on\s+)?(?:the\s+)?{_DAY}\b"),
    re.compile(r"\b(?P<last_night>last\s+night|tonight)\b"),
    re.compile(r"\b(?P<ago>\d+|" + "|".join(NUMBERS) + r")\s+days?\s+ago\b"),
    re.compile(r"\b(?:on\s+|last\s+)(?P<weekday>" + "|".join(WEEKDAYS) + r")\b"),
)


@dataclass(frozen=True)
class Period:
    label: str  # as said back: "yesterday evening"
    start: float  # wall-clock seconds
    end: float
    phrase: str  # the words of the question that named it


def find_period(question: str, now_wall: float, tz: dt.tzinfo | None = None) -> Period | None:
    """The window the question names, or None. `tz`: the wearer's time zone (default: local)."""
    q = " ".join(question.lower().split())
    now = dt.datetime.fromtimestamp(now_wall, tz) if tz is not None else dt.datetime.fromtimestamp(now_wall)
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)

    def window(day_offset: int, part: str | None, label: str, phrase: str) -> Period | None:
        day = midnight - dt.timedelta(days=day_offset)
        lo, hi = NIGHT_OUT if label in ("last night", "tonight") else PARTS[part] if part else (0, 24)
        start = (day + dt.timedelta(hours=lo)).timestamp()
        end = min((day + dt.timedelta(hours=hi)).timestamp(), now_wall)
        return Period(label, start, end, phrase) if end > start else None

    for pat in _PATTERNS:
        m = pat.search(q)
        if m is None:
            continue
        g = m.groupdict()
        if g.get("day"):
            day, part = g["day"], g.get("part")
            if day == "this" and not part:
                continue  # "this" alone ("this bowl") names no time
            offset = 1 if day == "yesterday" else 0
            label = f"{'yesterday' if offset else 'this' if part else 'today'}{' ' + part if part else ''}"
            if part == "night" and offset == 0:
                label = "tonight"
            return window(offset, part, label, m.group(0))
        if g.get("last_night"):
            if g["last_night"].startswith("last"):
                return window(1, "night", "last night", m.group(0))
            return window(0, "night", "tonight", m.group(0))
        if g.get("ago"):
            n = int(g["ago"]) if g["ago"].isdigit() else NUMBERS[g["ago"]]
            if not 1 <= n <= 366:
                return None
            return window(n, None, "yesterday" if n == 1 else f"{n} days ago", m.group(0))
        if g.get("weekday"):
            back = (now.weekday() - WEEKDAYS.index(g["weekday"])) % 7 or 7  # the last one before today
            return window(
                back, None, "yesterday" if back == 1 else f"on {g['weekday'].capitalize()}", m.group(0)
            )
    return None
