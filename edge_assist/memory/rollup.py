"""The multi-scale roll-up: which windows are full, and their LLM summaries.

Window i of length w covers stream time (i*w, (i+1)*w]; an item belongs to the window
that holds its END time, so a summary's t1 (its latest member's end) is never later than
what it tells: causal reads (t' <= t) stay exact. A window is full once the stream has
moved past its end (a later clip ended after it), or at the end of the stream (then it
is written as `partial`). A summary is stamped t0/t1 of its first/last member, so it is
visible to reads at t >= t1 even if it was written a little later (when the window
filled): its content never tells anything after t1. A full window is summarised once; a
window that already has a summary is never recomputed, and a late clip landing in it stays
at the clip level only.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

from edge_assist.errors import AnswerCutError, ModelError
from edge_assist.inference.base import LLM, StopFlag, warn_answer_cut
from edge_assist.memory.store import Item

log = logging.getLogger(__name__)

SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"summary": {"type": "string", "minLength": 8, "maxLength": 240}},
    "required": ["summary"],
}

_SYSTEM = {
    "activity": (
        "You keep a diary of what the camera wearer did. Summarise the timed log lines of the last minutes "
        "in one or two sentences: the activity, the objects used, and anything unusual. Answer in JSON."
    ),
    "session": (
        "You keep a diary of what the camera wearer did. Summarise the timed activity notes into one short "
        "paragraph: the overall task, its main stages in order, and anything unusual. Answer in JSON."
    ),
}
# A summary must fit the prompt of a small model: members beyond this are cut, oldest kept.
MAX_MEMBER_CHARS = 2400
FALLBACK_CHARS = 400


def window_of(t1: float, window_s: float) -> int:
    return max(0, math.ceil(t1 / window_s - 1e-9) - 1)


def window_end(index: int, window_s: float) -> float:
    return (index + 1) * window_s


def full_windows(
    items: Sequence[Item], window_s: float, frontier: float, done: set[int], *, flush: bool
) -> list[tuple[int, list[Item], bool]]:
    """Windows ready to summarise: (index, members, partial), in time order."""
    groups: dict[int, list[Item]] = {}
    for it in items:
        groups.setdefault(window_of(it.t1, window_s), []).append(it)
    out = []
    for i in sorted(groups):
        if i in done:
            continue
        end = window_end(i, window_s)
        if frontier > end:
            out.append((i, groups[i], False))
        elif flush:
            out.append((i, groups[i], True))
    return out


def _clock(t: float) -> str:
    m, s = divmod(int(t), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def extractive(members: Sequence[Item]) -> str:
    """The members' own words, joined and cut: what a summary is without the LLM."""
    return "; ".join(it.text for it in members)[:FALLBACK_CHARS]


def summarise(
    llm: LLM | None, level: str, members: Sequence[Item], *, max_tokens: int, stop: StopFlag | None = None
) -> tuple[str, str, int]:
    """(text, source, llm_calls). One member is its own summary; no LLM call for it; no LLM
    (`memory.summaries = "extractive"`): the extractive summary, no call either."""
    if len(members) == 1:
        return members[0].text, "copy", 0
    if llm is None:
        return extractive(members), "extractive", 0
    lines, used = [], 0
    for it in members:
        line = f"[{_clock(it.t0)}-{_clock(it.t1)}] {it.text}"
        if used + len(line) > MAX_MEMBER_CHARS:
            break
        lines.append(line)
        used += len(line)
    messages = [
        {"role": "system", "content": _SYSTEM[level]},
        {"role": "user", "content": "\n".join(lines)},
    ]
    try:
        out = llm.chat_json(messages, SUMMARY_SCHEMA, max_tokens=max_tokens, temperature=0.0, stop=stop)
        text = " ".join(str(out.get("summary", "")).split())
        if text:
            return text, getattr(llm, "name", "llm"), 1
    except AnswerCutError as e:
        # Deterministic decoding would fail the same way again; an extractive summary keeps
        # the window closed instead of retrying it on every caption.
        warn_answer_cut(log, f"{level} summary (kept extractive)", "memory.summary_max_tokens", e.max_tokens)
    except ModelError as e:
        log.debug("%s summary fell back to extractive: %s", level, e)
    return extractive(members), "extractive", 1
