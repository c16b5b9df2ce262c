"""Reading memory: the `MemoryReader` protocol that retrieval uses (search, captions, summaries, graph)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

from edge_assist.memory.api import LEVELS, CaptionRecord, EntityHit, KeyframeHit, TextHit
from edge_assist.memory.graph import EntityGraph
from edge_assist.memory.keyframes import KeyframeFiles
from edge_assist.memory.store import MemoryStore

log = logging.getLogger(__name__)


class MemoryReads:
    """The `MemoryReader` side of `Memory`: every read goes to the store or the graph; nothing here writes."""

    def __init__(self, store: MemoryStore, graph: EntityGraph) -> None:
        self.store = store
        self.graph = graph

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
        return self.store.search_text(
            vector,
            k=k,
            before_t=before_t,
            levels=levels,
            session_id=session_id,
            earlier_sessions=earlier_sessions,
        )

    def session_starts(self) -> dict[str, float]:
        return self.store.session_starts()

    def earlier_sessions(self, session_id: str) -> list[str]:
        return self.store.earlier_sessions(session_id)

    def captions(self, session_id: str, clip_indices: Sequence[int]) -> list[CaptionRecord]:
        return self.store.captions(session_id, clip_indices)

    def recent_captions(self, session_id: str, *, before_t: float, n: int) -> list[CaptionRecord]:
        return self.store.recent_captions(session_id, before_t=before_t, n=n)

    def clips_with_vectors(
        self, session_id: str, t_from: float, t_to: float
    ) -> tuple[list[CaptionRecord], np.ndarray]:
        return self.store.clips_with_vectors(session_id, t_from, t_to)

    def latest_summary(self, session_id: str, level: str, *, before_t: float) -> TextHit | None:
        it = self.store.latest_item(session_id, level, before_t=before_t)
        if it is None:
            return None
        return TextHit(it.level, it.session_id, it.t0, it.t1, it.text, it.clips, 1.0)

    def summaries(self, level: str, *, before_t: float, session_id: str | None = None) -> list[TextHit]:
        return [
            TextHit(it.level, it.session_id, it.t0, it.t1, it.text, it.clips, 1.0)
            for it in self.store.level_items(level, before_t=before_t, session_id=session_id)
        ]

    def graph_neighbourhood(
        self,
        names: Sequence[str],
        *,
        before_t: float,
        k: int,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[EntityHit]:
        return self.graph.neighbourhood(
            names, before_t=before_t, k=k, session_id=session_id, earlier_sessions=earlier_sessions
        )

    def search_keyframes(
        self,
        vector: np.ndarray,
        *,
        k: int,
        before_t: float,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[KeyframeHit]:
        return self.store.search_keyframes(
            vector, k=k, before_t=before_t, session_id=session_id, earlier_sessions=earlier_sessions
        )

    def keyframe_images(self, session_id: str, clip_index: int) -> list[np.ndarray]:
        out = []
        for p in self.store.keyframe_paths(session_id, clip_index):
            img = KeyframeFiles.load(p)
            if img is not None:
                out.append(img)
            else:
                # Reconstruction goes on from the caption text; say why the picture is missing.
                log.warning(
                    "keyframe %s of clip %d of %s is missing or corrupt; using the caption only",
                    p,
                    clip_index,
                    session_id,
                )
        return out
