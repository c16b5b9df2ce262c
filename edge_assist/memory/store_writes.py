"""Writing captions and summaries with their vectors, each in one transaction, and the graph flags.

A caption's row, its text vector, its place in the IVF index and its keyframe rows and
vectors are committed together; the in-memory copies of the vectors (`vector_cache`) are
appended only after the commit, so they never hold a row the store lacks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from edge_assist.memory.ivf import TextIvf
from edge_assist.memory.store_connection import StoreConnection
from edge_assist.memory.store_rows import _ITEM_COLS, Item, KeyframeRow, Windows, _item, _vec
from edge_assist.memory.store_sessions import SessionTable
from edge_assist.memory.vector_cache import VectorCopies


class ItemWrites:
    """Every insert into `items`, `text_vec` and `keyframes`, and the flags the graph side sets."""

    def __init__(
        self, db: StoreConnection, ivf: TextIvf, copies: VectorCopies, sessions: SessionTable
    ) -> None:
        self.db = db
        self.ivf = ivf
        self.copies = copies
        self.sessions = sessions

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
        blob = _vec(vector, self.db.text_dim, "text")
        with self.db.transaction() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO items(level, session_id, idx, t0, t1, text, clips, source, entities,"
                " graph_done, written_wall) VALUES ('clip', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                    self.db.wall(),
                ),
            )
            if cur.rowcount == 0:
                return False
            item_id = cur.lastrowid
            c.execute(
                "INSERT INTO text_vec(rowid, embedding, level, session_id, t1) VALUES (?, ?, 'clip', ?, ?)",
                (item_id, blob, session_id, t1),
            )
            self.ivf.add(c, item_id, blob, "clip", session_id, t1)
            self._add_keyframes(c, session_id, clip_index, t1, keyframes)
        self._committed(session_id, [(item_id, "clip", t1, blob)])
        return True

    def _add_keyframes(
        self, c: Any, session_id: str, clip_index: int, t1: float, keyframes: Sequence[KeyframeRow]
    ) -> None:
        image_dim = self.db.image_dim
        for kf in keyframes:
            kcur = c.execute(
                "INSERT OR IGNORE INTO keyframes(session_id, clip_index, k, stream_t, t1, path, bytes,"
                " written_wall) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (session_id, clip_index, kf.k, kf.stream_t, t1, kf.path, kf.bytes, self.db.wall()),
            )
            if kf.vector is not None and image_dim is not None and kcur.rowcount:
                c.execute(
                    "INSERT INTO keyframe_vec(rowid, embedding, session_id, t1) VALUES (?, ?, ?, ?)",
                    (kcur.lastrowid, _vec(kf.vector, image_dim, "keyframe"), session_id, t1),
                )

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
            self.sessions.session_windows(sid, windows)
        new: list[tuple[int, np.ndarray, str, str, float]] = []
        with self.db.transaction() as c:
            for sid, idx, t0, t1, text, vec in rows:
                blob = _vec(vec, self.db.text_dim, "text")
                cur = c.execute(
                    "INSERT OR IGNORE INTO items(level, session_id, idx, t0, t1, text, clips, source,"
                    " entities, graph_done, written_wall) VALUES ('clip', ?, ?, ?, ?, ?, ?, ?, 'null', 1, ?)",
                    (sid, idx, t0, t1, text, json.dumps([idx]), source, self.db.wall()),
                )
                if cur.rowcount:
                    c.execute(
                        "INSERT INTO text_vec(rowid, embedding, level, session_id, t1)"
                        " VALUES (?, ?, 'clip', ?, ?)",
                        (cur.lastrowid, blob, sid, t1),
                    )
                    new.append((int(cur.lastrowid), np.frombuffer(blob, np.float32), "clip", sid, float(t1)))
            self.ivf.add_many(c, new)
        with self.db.lock:
            for iid, v, lv, sid, t1 in new:
                self.copies.added(sid, iid, lv, t1, v)
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
        blob = _vec(vector, self.db.text_dim, "text")
        with self.db.transaction() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO items(level, session_id, idx, t0, t1, text, clips, source, partial,"
                " entities, graph_done, written_wall) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'null', 1, ?)",
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
                    self.db.wall(),
                ),
            )
            if cur.rowcount == 0:
                return False
            c.execute(
                "INSERT INTO text_vec(rowid, embedding, level, session_id, t1) VALUES (?, ?, ?, ?, ?)",
                (cur.lastrowid, blob, level, session_id, t1),
            )
            self.ivf.add(c, cur.lastrowid, blob, level, session_id, t1)
            item_id = cur.lastrowid
        self._committed(session_id, [(item_id, level, t1, blob)])
        return True

    def _committed(self, session_id: str, rows: Sequence[tuple[int, str, float, bytes]]) -> None:
        """Committed vectors, copied into the in-memory caches that exact searches read."""
        with self.db.lock:
            for iid, level, t1, blob in rows:
                self.copies.added(session_id, iid, level, t1, np.frombuffer(blob, np.float32))

    # -- the graph side's flags ------------------------------------------------------------
    def set_entities(self, session_id: str, clip_index: int, entities: dict[str, Any]) -> None:
        with self.db.transaction() as c:
            c.execute(
                "UPDATE items SET entities = ? WHERE session_id = ? AND level = 'clip' AND idx = ?",
                (json.dumps(entities, sort_keys=True), session_id, clip_index),
            )

    def mark_graph_done(self, session_id: str, clip_index: int) -> None:
        with self.db.transaction() as c:
            c.execute(
                "UPDATE items SET graph_done = 1 WHERE session_id = ? AND level = 'clip' AND idx = ?",
                (session_id, clip_index),
            )

    def reset_graph_flags(self) -> int:
        """Mark every extracted caption as not yet in the graph (the graph was lost or is new)."""
        with self.db.transaction() as c:
            return int(
                c.execute(
                    "UPDATE items SET graph_done = 0 WHERE level = 'clip' AND entities IS NOT NULL"
                    " AND entities != 'null'"
                ).rowcount
            )

    def pending_graph(self) -> list[tuple[Item, dict[str, Any] | None]]:
        """Captions whose graph update is not known to be done, oldest first.

        A None extraction means the LLM has not run on it yet.
        """
        rows = self.db.read(
            f"SELECT {_ITEM_COLS}, entities FROM items WHERE graph_done = 0 AND level = 'clip' ORDER BY id"
        )
        return [(_item(r[:-1]), None if r[-1] is None else json.loads(r[-1])) for r in rows]
