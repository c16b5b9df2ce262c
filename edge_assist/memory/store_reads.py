"""Reading captions, summaries and keyframe paths back, in the store's order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from edge_assist.memory.api import CaptionRecord
from edge_assist.memory.store_connection import StoreConnection
from edge_assist.memory.store_rows import _ITEM_COLS, Item, _item
from edge_assist.memory.vector_reads import read_vectors

# (session, level, before_t) -> the newest row: read backwards on `items_by_time`, stopping at one.
LATEST_ITEM_SQL = (
    f"SELECT {_ITEM_COLS} FROM items WHERE session_id = ? AND level = ? AND t1 <= ?"
    " ORDER BY t1 DESC, idx DESC LIMIT 1"
)


class ItemReads:
    """Rows of `items` and `keyframes` by session, level and time; nothing here writes."""

    def __init__(self, db: StoreConnection) -> None:
        self.db = db

    def has_clip(self, session_id: str, clip_index: int) -> bool:
        return bool(
            self.db.read(
                "SELECT 1 FROM items WHERE session_id = ? AND level = 'clip' AND idx = ?",
                (session_id, clip_index),
            )
        )

    def clips_with_vectors(
        self, session_id: str, t_from: float, t_to: float
    ) -> tuple[list[CaptionRecord], np.ndarray]:
        """The clips of a session that began in [t_from, t_to) of its stream, in order, with their
        stored text vectors (rows aligned; a clip whose vector is missing is left out)."""
        db = self.db
        with db.lock:
            rows = db.read(
                "SELECT id, idx, t0, t1, text FROM items WHERE session_id = ? AND level = 'clip' AND t0 >= ?"
                " AND t0 < ? ORDER BY t0, idx",
                (session_id, t_from, t_to),
            )
            try:
                vecs = read_vectors(db.conn, [r[0] for r in rows], db.text_dim)
            except db.errors as e:
                raise db.translate(e) from None
        kept = [r for r in rows if r[0] in vecs]
        mat = np.stack([vecs[r[0]] for r in kept]) if kept else np.zeros((0, db.text_dim), np.float32)
        return [CaptionRecord(session_id, r[1], r[2], r[3], r[4]) for r in kept], mat

    def clip_items(
        self, session_id: str, *, t1_after: float = float("-inf"), t1_upto: float = float("inf")
    ) -> list[Item]:
        rows = self.db.read(
            f"SELECT {_ITEM_COLS} FROM items WHERE session_id = ? AND level = 'clip' AND t1 > ? AND t1 <= ?"
            " ORDER BY t1, idx",
            (session_id, t1_after, t1_upto),
        )
        return [_item(r) for r in rows]

    def level_items(
        self, level: str, *, before_t: float = float("inf"), session_id: str | None = None
    ) -> list[Item]:
        sql = f"SELECT {_ITEM_COLS} FROM items WHERE level = ? AND t1 <= ?"
        args: list[Any] = [level, before_t]
        if session_id is not None:
            sql += " AND session_id = ?"
            args.append(session_id)
        return [_item(r) for r in self.db.read(sql + " ORDER BY session_id, t1, idx", args)]

    def latest_item(self, session_id: str, level: str, *, before_t: float) -> Item | None:
        """The last of `level_items(level, before_t=..., session_id=...)`, reading one row.

        A range read of `items_by_time` from its end: constant time, however long the session."""
        rows = self.db.read(LATEST_ITEM_SQL, (session_id, level, before_t))
        return _item(rows[0]) if rows else None

    def window_indices(self, session_id: str, level: str) -> set[int]:
        return {
            r[0]
            for r in self.db.read(
                "SELECT idx FROM items WHERE session_id = ? AND level = ?", (session_id, level)
            )
        }

    def frontier(self, session_id: str) -> float | None:
        """The latest clip end seen in a session: windows ending before it are full."""
        rows = self.db.read(
            "SELECT max(t1) FROM items WHERE session_id = ? AND level = 'clip'", (session_id,)
        )
        return None if rows[0][0] is None else float(rows[0][0])

    def next_clip_index(self, session_id: str) -> int:
        rows = self.db.read(
            "SELECT max(idx) FROM items WHERE session_id = ? AND level = 'clip'", (session_id,)
        )
        return 0 if rows[0][0] is None else int(rows[0][0]) + 1

    def captions(self, session_id: str, clip_indices: Sequence[int]) -> list[CaptionRecord]:
        if not clip_indices:
            return []
        marks = ",".join("?" * len(clip_indices))
        rows = self.db.read(
            "SELECT idx, t0, t1, text FROM items WHERE session_id = ? AND level = 'clip'"
            f" AND idx IN ({marks}) ORDER BY idx",
            [session_id, *map(int, clip_indices)],
        )
        paths = self._keyframe_paths(session_id, [r[0] for r in rows])
        return [CaptionRecord(session_id, r[0], r[1], r[2], r[3], paths.get(r[0], ())) for r in rows]

    def recent_captions(self, session_id: str, *, before_t: float, n: int) -> list[CaptionRecord]:
        rows = self.db.read(
            "SELECT idx, t0, t1, text FROM items WHERE session_id = ? AND level = 'clip' AND t1 <= ?"
            " ORDER BY t1 DESC, idx DESC LIMIT ?",
            (session_id, before_t, max(0, n)),
        )
        rows.reverse()
        paths = self._keyframe_paths(session_id, [r[0] for r in rows])
        return [CaptionRecord(session_id, r[0], r[1], r[2], r[3], paths.get(r[0], ())) for r in rows]

    def keyframe_paths(self, session_id: str, clip_index: int) -> tuple[str, ...]:
        return self._keyframe_paths(session_id, [clip_index]).get(clip_index, ())

    def _keyframe_paths(self, session_id: str, clip_indices: Sequence[int]) -> dict[int, tuple[str, ...]]:
        if not clip_indices:
            return {}
        marks = ",".join("?" * len(clip_indices))
        out: dict[int, list[str]] = {}
        for idx, path in self.db.read(
            f"SELECT clip_index, path FROM keyframes WHERE session_id = ? AND clip_index IN ({marks})"
            " AND path != '' ORDER BY clip_index, k",
            [session_id, *clip_indices],
        ):
            out.setdefault(idx, []).append(path)
        return {k: tuple(v) for k, v in out.items()}
