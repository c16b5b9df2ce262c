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
