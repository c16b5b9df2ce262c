"""The reads of memory that turn stored rows into what retrieval reads: summaries as hits, keyframes
as images. Plain reads (searches, captions, sessions, the graph) go straight to the store or the graph."""

from __future__ import annotations

import logging

import numpy as np

from edge_assist.memory.api import TextHit
from edge_assist.memory.keyframes import KeyframeFiles
from edge_assist.memory.store import MemoryStore

log = logging.getLogger(__name__)


class MemoryReads:
    """Reads that shape what the store returns; nothing here writes."""

    def __init__(self, store: MemoryStore) -> None:
        self.store = store

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
