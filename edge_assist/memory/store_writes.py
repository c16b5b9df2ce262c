"""Writing captions and summaries with their vectors, each in one transaction."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from edge_assist.memory.store_base import StoreBase
from edge_assist.memory.store_rows import _ITEM_COLS, Item, KeyframeRow, Windows, _item, _vec


class StoreWrites(StoreBase):
    def has_clip(self, session_id: str, clip_index: int) -> bool:
        return bool(
            self._read(
                "SELECT 1 FROM items WHERE session_id = ? AND level = 'clip' AND idx = ?",
                (session_id, clip_index),
            )
        )

    def add_clip(
        self,
        *,
        session_id: str,
        clip_index: int,
        t0: float,
        t1: float,
        text: str,
        source: str,
        vector: np.ndarray,
        keyframes: Sequence[KeyframeRow] = (),
        extract_entities: bool = True,
    ) -> bool:
        """Store one caption with its vector and keyframes atomically. False if it was already stored."""
        blob = _vec(vector, self.text_dim, "text")
        with self.transaction() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO items(level, session_id, idx, t0, t1, text, clips, source, entities, graph_done,"
                " written_wall) VALUES ('clip', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    clip_index,
                    t0,
                    t1,
                    text,
                    json.dumps([clip_index]),
                    source,
                    None if extract_entities else "null",
                    0 if extract_entities else 1,
                    self.wall(),
                ),
            )
            if cur.rowcount == 0:
                return False
            item_id = cur.lastrowid
            c.execute(
                "INSERT INTO text_vec(rowid, embedding, level, session_id, t1) VALUES (?, ?, 'clip', ?, ?)",
                (item_id, blob, session_id, t1),
            )
            self._index_add(c, item_id, blob, "clip", session_id, t1)
            for kf in keyframes:
                kcur = c.execute(
                    "INSERT OR IGNORE INTO keyframes(session_id, clip_index, k, stream_t, t1, path, bytes, written_wall)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (session_id, clip_index, kf.k, kf.stream_t, t1, kf.path, kf.bytes, self.wall()),
                )
                if kf.vector is not None and self.image_dim is not None and kcur.rowcount:
                    c.execute(
                        "INSERT INTO keyframe_vec(rowid, embedding, session_id, t1) VALUES (?, ?, ?, ?)",
                        (kcur.lastrowid, _vec(kf.vector, self.image_dim, "keyframe"), session_id, t1),
                    )
        self._committed(session_id, [(item_id, "clip", t1, blob)])
        return True

    def add_clips(
        self,
        rows: Sequence[tuple[str, int, float, float, str, np.ndarray]],
        *,
        windows: Windows,
        source: str = "bulk",
    ) -> int:
        """Many (session, clip index, t0, t1, text, vector) at once, in one transaction, without entity
        extraction: bulk loads (benchmarks, soak fills, imports). Returns how many were new."""
        for sid in dict.fromkeys(r[0] for r in rows):
            self.session_windows(sid, windows)
        new: list[tuple[int, np.ndarray, str, str, float]] = []
        with self.transaction() as c:
            for sid, idx, t0, t1, text, vec in rows:
                blob = _vec(vec, self.text_dim, "text")
                cur = c.execute(
                    "INSERT OR IGNORE INTO items(level, session_id, idx, t0, t1, text, clips, source, entities, graph_done,"
                    " written_wall) VALUES ('clip', ?, ?, ?, ?, ?, ?, ?, 'null', 1, ?)",
                    (sid, idx, t0, t1, text, json.dumps([idx]), source, self.wall()),
                )
                if cur.rowcount:
                    c.execute(
                        "INSERT INTO text_vec(rowid, embedding, level, session_id, t1) VALUES (?, ?, 'clip', ?, ?)",
                        (cur.lastrowid, blob, sid, t1),
                    )
                    new.append((int(cur.lastrowid), np.frombuffer(blob, np.float32), "clip", sid, float(t1)))
            if self.ivf is not None:
                self.ivf.add_many(c, new)
        with self._lock:
            for iid, v, lv, sid, t1 in new:
                self._cache_added(sid, iid, lv, t1, v)
        return len(new)

    def add_summary(
        self,
        *,
        level: str,
        session_id: str,
        window_index: int,
        t0: float,
        t1: float,
        text: str,
        clips: Sequence[int],
        source: str,
        partial: bool,
        vector: np.ndarray,
    ) -> bool:
        """Store one summary once; False (and nothing changed) if its window already has one."""
        if level not in ("activity", "session"):
            raise ValueError(f"not a summary level: {level}")
        blob = _vec(vector, self.text_dim, "text")
        with self.transaction() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO items(level, session_id, idx, t0, t1, text, clips, source, partial, entities,"
                " graph_done, written_wall) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'null', 1, ?)",
                (
                    level,
                    session_id,
                    window_index,
                    t0,
                    t1,
                    text,
                    json.dumps(sorted(set(clips))),
                    source,
                    int(partial),
                    self.wall(),
                ),
            )
            if cur.rowcount == 0:
                return False
            c.execute(
                "INSERT INTO text_vec(rowid, embedding, level, session_id, t1) VALUES (?, ?, ?, ?, ?)",
                (cur.lastrowid, blob, level, session_id, t1),
            )
            self._index_add(c, cur.lastrowid, blob, level, session_id, t1)
            item_id = cur.lastrowid
        self._committed(session_id, [(item_id, level, t1, blob)])
        return True

    def set_entities(self, session_id: str, clip_index: int, entities: dict[str, Any]) -> None:
        with self.transaction() as c:
            c.execute(
                "UPDATE items SET entities = ? WHERE session_id = ? AND level = 'clip' AND idx = ?",
                (json.dumps(entities, sort_keys=True), session_id, clip_index),
            )

    def mark_graph_done(self, session_id: str, clip_index: int) -> None:
        with self.transaction() as c:
            c.execute(
                "UPDATE items SET graph_done = 1 WHERE session_id = ? AND level = 'clip' AND idx = ?",
                (session_id, clip_index),
            )

    def reset_graph_flags(self) -> int:
        """Mark every extracted caption as not yet in the graph (the graph was lost or is new)."""
        with self.transaction() as c:
            return int(
                c.execute(
                    "UPDATE items SET graph_done = 0 WHERE level = 'clip' AND entities IS NOT NULL AND entities != 'null'"
                ).rowcount
            )

    def pending_graph(self) -> list[tuple[Item, dict[str, Any] | None]]:
        """Captions whose graph update is not known to be done, oldest first.

        A None extraction means the LLM has not run on it yet.
        """
        rows = self._read(
            f"SELECT {_ITEM_COLS}, entities FROM items WHERE graph_done = 0 AND level = 'clip' ORDER BY id"
        )
        return [(_item(r[:-1]), None if r[-1] is None else json.loads(r[-1])) for r in rows]

    # -- the IVF index (see ivf.py) ------------------------------------------------------
    def _index_add(self, c: Any, item_id: int, blob: bytes, level: str, session_id: str, t1: float) -> None:
        if self.ivf is not None:
            self.ivf.add(c, item_id, blob, level, session_id, t1)

    def _cache_added(self, session_id: str, item_id: int, level: str, t1: float, vec: np.ndarray) -> None:
        """A committed vector, copied into the in-memory caches that exact searches read (vector_cache)."""
        self.session_vectors.added(session_id, item_id, level, t1, vec)
        self.small_vectors.added(session_id, item_id, level, t1, vec)

    def _committed(self, session_id: str, rows: Sequence[tuple[int, str, float, bytes]]) -> None:
        with self._lock:
            for iid, level, t1, blob in rows:
                self._cache_added(session_id, iid, level, t1, np.frombuffer(blob, np.float32))
