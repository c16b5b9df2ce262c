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
        return f"{max(5, int(round(seconds / 5.0)) * 5)} seconds"
    if seconds < 90 * 60:
        n = max(1, int(round(seconds / 60)))
        return f"{n} minute{'s' if n != 1 else ''}"
    return f"{seconds / 3600:.1f}".rstrip("0").rstrip(".") + " hours"
