"""Stream seconds as a wearer reads them: "1:40", and "1:04:50" past the first hour.

A session is a day of wear; "64:50" for an hour and five minutes in is not a time anyone
says. Answers, prompts and traces all print stream times through this one function, so a
prompt cites a moment the way the answer that comes from it does.
"""

from __future__ import annotations


def stream_clock(seconds: float) -> str:
    s = max(0, int(round(seconds)))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


def age(seconds: float) -> str:
    """How long ago, as said: "40 seconds", "1 minute", "12 minutes", "2.5 hours"."""
    if seconds < 45:
        return _seconds(seconds)
    if seconds < 90 * 60:
        return _minutes(seconds)
    return _hours(seconds)


def length(seconds: float) -> str:
    """How long something went on, as said: finer than an age while it is short ("2 minutes 30
    seconds"), as whole minutes from ten, in hours from ninety."""
    if seconds < 55:
        return _seconds(seconds)
    if seconds < 10 * 60:
        m, s = divmod(int(round(seconds / 10.0)) * 10, 60)
        return f"{_minutes(m * 60)} {s} seconds" if s else _minutes(m * 60)
    if seconds < 90 * 60:
        return _minutes(seconds)
    return _hours(seconds)


def _seconds(seconds: float) -> str:
    return f"{max(5, int(round(seconds / 5.0)) * 5)} seconds"


def _minutes(seconds: float) -> str:
    n = max(1, int(round(seconds / 60)))
    return f"{n} minute{'s' if n != 1 else ''}"


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.1f}".rstrip("0").rstrip(".") + " hours"
