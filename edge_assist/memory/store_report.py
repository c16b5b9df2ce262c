"""What the store holds, as figures and as rows: stats, export, the rows the consistency check compares."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from edge_assist.memory.api import LEVELS
from edge_assist.memory.ivf import TextIvf
from edge_assist.memory.store_connection import StoreConnection
from edge_assist.memory.store_rows import _ITEM_COLS, _item
from edge_assist.memory.store_sessions import SessionTable


class StoreReport:
    """Read-only accounts of the whole store, for `memory stats`, `memory export` and the checks."""

    def __init__(self, db: StoreConnection, ivf: TextIvf, sessions: SessionTable) -> None:
        self.db = db
        self.ivf = ivf
        self.sessions = sessions

    def stats(self) -> dict[str, Any]:
        db = self.db
        counts = {lv: 0 for lv in LEVELS}
        chars = {lv: 0 for lv in LEVELS}
        for lv, n, ch in db.read(
            "SELECT level, count(*), coalesce(sum(length(text)), 0) FROM items GROUP BY level"
        ):
            counts[lv], chars[lv] = n, ch
        kf = db.read("SELECT count(*), coalesce(sum(bytes), 0), coalesce(sum(path != ''), 0) FROM keyframes")[
            0
        ]
        pending = db.read("SELECT count(*) FROM items WHERE graph_done = 0")[0][0]
        files = [db.path, Path(f"{db.path}-wal")]
        size = sum(p.stat().st_size for p in files if p.exists())
        return {
            "path": str(db.path),
            "bytes": size,
            "sessions": len(self.sessions.sessions()),
            "items": counts,
            "text_bytes": chars,
            "text_vector_bytes": {lv: counts[lv] * db.text_dim * 4 for lv in LEVELS},
            "keyframes": {
                "count": kf[0],
                "files": kf[2],
                "jpeg_bytes": kf[1],
                "vector_bytes": kf[0] * 4 * (db.image_dim or 0),
            },
            "graph_pending": pending,
            "text_index": self.ivf.describe(),
            "meta": db.meta(),
        }

    def export_rows(self) -> Iterator[dict[str, Any]]:
        """Everything the wearer's memory holds, one JSON-ready dict a row (vectors excluded)."""
        for r in self.db.read(
            f"SELECT {_ITEM_COLS}, entities, source, written_wall FROM items ORDER BY session_id, level, idx"
        ):
            it = _item(r[:9])
            yield {
                "type": it.level,
                "session_id": it.session_id,
                "index": it.idx,
                "t0": it.t0,
                "t1": it.t1,
                "text": it.text,
                "clips": list(it.clips),
                "partial": it.partial,
                "entities": json.loads(r[9]) if r[9] else None,
                "source": r[10],
                "written_wall": r[11],
            }
        for r in self.db.read(
            "SELECT session_id, clip_index, k, stream_t, path, bytes FROM keyframes"
            " ORDER BY session_id, clip_index, k"
        ):
            yield {
                "type": "keyframe",
                "session_id": r[0],
                "clip_index": r[1],
                "k": r[2],
                "stream_t": r[3],
                "path": r[4],
                "bytes": r[5],
            }

    def integrity_rows(self) -> dict[str, Any]:
        """What the crash-consistency check compares (kept apart from the store's search code).

        Clip rows with their graph flag, duplicate (session, level, index) keys, and the text
        vectors whose row is missing or rows without a vector.
        """
        read = self.db.read
        return {
            # in_graph: applied to the graph (a clip stored without entity extraction never is).
            "clips": [
                (str(s), int(i), int(g))
                for s, i, g in read(
                    "SELECT session_id, idx, graph_done AND coalesce(entities, '') != 'null' AS in_graph"
                    " FROM items WHERE level = 'clip' ORDER BY session_id, idx"
                )
            ],
            "duplicates": read(
                "SELECT session_id, level, idx, count(*) FROM items GROUP BY session_id, level, idx"
                " HAVING count(*) > 1"
            ),
            "items_without_vector": read(
                "SELECT count(*) FROM items WHERE id NOT IN (SELECT rowid FROM text_vec)"
            )[0][0],
            "vectors_without_item": read(
                "SELECT count(*) FROM text_vec WHERE rowid NOT IN (SELECT id FROM items)"
            )[0][0],
            "levels": dict(read("SELECT level, count(*) FROM items GROUP BY level")),
        }
