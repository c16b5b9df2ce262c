"""What retrieval hands up: the plan a search runs under, and the moments it proposes.

The scheduler answers a search request with a `SearchPlan`; answers read remembered
clips as `Moment`s. Both are plain frozen values, so the layers above never open the store.
"""

from __future__ import annotations

from dataclasses import dataclass

# Memory's records, handed up as they are: the rooms above read them, never the store.
from edge_assist.memory.api import CaptionRecord, TextHit

__all__ = ["PATHS", "CaptionRecord", "Moment", "SearchPlan", "TextHit"]

PATHS = ("temporal", "graph", "visual")


@dataclass(frozen=True)
class SearchPlan:
    paths: tuple[str, ...] = PATHS
    top_k: int = 5
    reconstruction: bool = True
    deferred: bool = False  # true: not now; the scheduler retries in the next idle slot
    note: str = ""  # why the plan is smaller than asked (logged in the trace)


@dataclass(frozen=True)
class Moment:
    """A remembered clip offered as evidence for an answer: what happened, when, how close.

    Retrieval proposes moments; reasoning only reads them (it never opens the store).
    """

    session_id: str
    clip_index: int
    t0: float
    t1: float
    text: str
    score: float  # text-encoder cosine between the question's focus and the caption
    note: str = ""  # age of a moment of an earlier session ("yesterday"); "" in the current one

    @classmethod
    def of_clip(cls, clip: CaptionRecord, score: float = 0.0) -> Moment:
        """A clip of today's session read straight from memory, as a moment."""
        return cls(clip.session_id, clip.clip_index, clip.t0, clip.t1, clip.text, score)
