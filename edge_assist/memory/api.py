"""What the rest of the product may read from memory.

Retrieval depends on this protocol only; `edge_assist.memory` implements it. Every read
takes `before_t` (stream seconds): nothing that ended after it is returned, so the
assistant can never look into the future (DESIGN.md, causality t' <= t).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from edge_assist.memory.graph_hops import GraphHops

LEVELS = ("clip", "activity", "session")


@dataclass(frozen=True)
class CaptionRecord:
    session_id: str
    clip_index: int
    t0: float
    t1: float
    text: str
    keyframe_paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class TextHit:
    """A hit in the temporal memory at any level, mapped to the clips it covers."""

    level: str  # one of LEVELS
    session_id: str
    t0: float
    t1: float
    text: str
    clip_indices: tuple[int, ...]
    score: float  # cosine similarity, higher is closer


@dataclass(frozen=True)
class EntityHit:
    """An entity of the graph that matched the query, with its one-hop neighbourhood."""

    name: str
    kind: str
    clip_indices: tuple[int, ...]  # captions the entity was seen in (t1 <= before_t)
    neighbours: tuple[
        tuple[str, str, str, float], ...
    ]  # (relation, other entity, session_id, stream time seen)
    neighbour_clip_indices: tuple[int, ...]
    session_id: str
    score: float


@dataclass(frozen=True)
class KeyframeHit:
    session_id: str
    clip_index: int
    stream_t: float
    path: str
    score: float


def sessions_before(starts: Mapping[str, float], session_id: str) -> list[str]:
    """Sessions that began before `session_id` (every one if it has not begun yet), oldest first.

    `starts` is each session's wall-clock start (`session_starts()`). Stream time restarts
    per session, so these are wholly in the past of any moment of `session_id`.
    """
    mine = starts.get(session_id)
    return [s for s, w in starts.items() if s != session_id and (mine is None or w < mine)]


class MemoryReader(Protocol):
    def search_text(
        self,
        vector: np.ndarray,
        *,
        k: int,
        before_t: float,
        levels: Sequence[str] = LEVELS,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[TextHit]:
        """Nearest items that ended by `before_t` in `session_id` (every session if None);
        with `earlier_sessions`, also any item of those sessions (they are wholly past)."""
        ...

    def session_starts(self) -> dict[str, float]:
        """Wall-clock start of every session, oldest first."""
        ...

    def earlier_sessions(self, session_id: str) -> list[str]:
        """Sessions that began before this one: earlier hours or days of the wearer."""
        ...

    def session_task(self, session_id: str) -> tuple[str, str]:
        """The task the session's stream named: (library name, task context); blanks if none."""
        ...

    def captions(self, session_id: str, clip_indices: Sequence[int]) -> list[CaptionRecord]: ...

    def recent_captions(self, session_id: str, *, before_t: float, n: int) -> list[CaptionRecord]: ...

    def clips_with_vectors(
        self, session_id: str, t_from: float, t_to: float
    ) -> tuple[list[CaptionRecord], np.ndarray]:
        """Clips that began in [t_from, t_to) of the session's stream, in order, with their text vectors."""
        ...

    def latest_summary(self, session_id: str, level: str, *, before_t: float) -> TextHit | None: ...

    def summaries(self, level: str, *, before_t: float, session_id: str | None = None) -> list[TextHit]: ...

    def graph_neighbourhood(
        self,
        names: Sequence[str],
        *,
        before_t: float,
        k: int,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[EntityHit]: ...

    def graph_hops(self) -> GraphHops:
        """Two-hop reads of the entity graph (Kùzu), for the questions one hop cannot answer."""
        ...

    def search_keyframes(
        self,
        vector: np.ndarray,
        *,
        k: int,
        before_t: float,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[KeyframeHit]: ...

    def keyframe_images(self, session_id: str, clip_index: int) -> list[np.ndarray]: ...
