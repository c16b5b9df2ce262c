"""Remembered moments for answer tests: captions a fixed time apart, and the moment of one."""

from __future__ import annotations

from edge_assist.retrieval.api import CaptionRecord, Moment


def clips(*texts: str, every: float = 30.0) -> list[CaptionRecord]:
    """One caption every `every` seconds, each lasting all of it but 5 s."""
    return [CaptionRecord("s", i, every * i, every * i + every - 5.0, t) for i, t in enumerate(texts)]


def at(records: list[CaptionRecord], i: int) -> Moment:
    return Moment.of_clip(records[i], 1.0)
