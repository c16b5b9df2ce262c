"""Retention and forgetting: expired keyframes, forgetting everything before a date, VACUUM."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from edge_assist.memory.ivf import TextIvf
from edge_assist.memory.store_connection import StoreConnection
from edge_assist.memory.store_sessions import SessionTable
from edge_assist.memory.vector_cache import VectorCopies


class Retention:
    """Every delete: keyframe files past retention, and whatever was written before a date."""

    def __init__(
        self, db: StoreConnection, ivf: TextIvf, copies: VectorCopies, sessions: SessionTable
    ) -> None:
        self.db = db
        self.ivf = ivf
        self.copies = copies
        self.sessions = sessions

    def expired_keyframes(self, older_than_wall: float) -> list[tuple[int, str]]:
        return [
            (r[0], r[1])
            for r in self.db.read(
                "SELECT id, path FROM keyframes WHERE path != '' AND written_wall < ?", (older_than_wall,)
            )
        ]

    def clear_keyframe_paths(self, ids: Sequence[int]) -> None:
        """The JPEG is gone; its vector stays so a visual hit still maps to a clip."""
        with self.db.transaction() as c:
            c.executemany("UPDATE keyframes SET path = '', bytes = 0 WHERE id = ?", [(i,) for i in ids])

    def forget_before(
        self, cutoff_wall: float, tombstone_key: str
    ) -> tuple[list[tuple[str, int]], list[str]]:
        """Delete everything written before `cutoff_wall` (epoch seconds), in one transaction.

        A summary that covers any forgotten clip goes too, since its prose still tells it.
        Returns the forgotten (session, clip index) pairs and keyframe file paths, for the
        graph and the file system; the pairs are also left under `tombstone_key` in `meta`
        until the graph has forgotten them too.
        """
        with self.db.transaction() as c:
            ids, gone_clips = _forget_selection(c, cutoff_wall)
            if ids:
                self.ivf.drop_retired(c)  # a replaced index generation still holds copies of the vectors
            for iid in ids:
                c.execute("DELETE FROM text_vec WHERE rowid = ?", (iid,))
                self.ivf.delete(c, iid)
                c.execute("DELETE FROM items WHERE id = ?", (iid,))
            files: list[str] = []
            for sid, ci in gone_clips:
                for kid, path in c.execute(
                    "SELECT id, path FROM keyframes WHERE session_id = ? AND clip_index = ?", (sid, ci)
                ).fetchall():
                    if path:
                        files.append(path)
                    if self.db.image_dim is not None:
                        c.execute("DELETE FROM keyframe_vec WHERE rowid = ?", (kid,))
                    c.execute("DELETE FROM keyframes WHERE id = ?", (kid,))
            c.execute("DELETE FROM sessions WHERE session_id NOT IN (SELECT DISTINCT session_id FROM items)")
            # under the transaction's lock: no reader sees the old list after the commit
            self.sessions.changed()
            if gone_clips:
                # In the same transaction: the graph side of this deletion survives a kill.
                row = c.execute("SELECT value FROM meta WHERE key = ?", (tombstone_key,)).fetchone()
                pending = {(s, int(i)) for s, i in json.loads(row[0])} if row else set()
                c.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                    (tombstone_key, json.dumps(sorted(pending | gone_clips))),
                )
            # still under the lock: rebuilt from the store on the next search
            self.copies.clear()
        return sorted(gone_clips), files

    def forgettable(self, cutoff_wall: float) -> tuple[list[tuple[str, int]], list[str], list[str]]:
        """What `forget_before(cutoff_wall)` would delete, without deleting: clip pairs, the
        texts (captions and summaries) and the sessions left with nothing, so the logs can
        forget them first."""
        with self.db.lock:
            ids, gone_clips = _forget_selection(self.db.conn, cutoff_wall)
            texts = [
                r[0]
                for iid in sorted(ids)
                for r in self.db.conn.execute("SELECT text FROM items WHERE id = ?", (iid,))
            ]
            emptied = [
                sid
                for sid in sorted({s for s, _ in gone_clips})
                if all(
                    r[0] in ids
                    for r in self.db.conn.execute("SELECT id FROM items WHERE session_id = ?", (sid,))
                )
            ]
        return sorted(gone_clips), texts, emptied

    def vacuum(self) -> None:
        """Rewrite the file so deleted rows leave the disk, not only the tables."""
        db = self.db
        with db.lock:
            try:
                db.conn.execute("VACUUM")
                db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except db.errors as e:
                raise db.translate(e) from None


def _forget_selection(c: Any, cutoff_wall: float) -> tuple[set[int], set[tuple[str, int]]]:
    """Item ids to delete and the forgotten (session, clip index) pairs: every clip written
    before the cutoff, every summary written before it or covering a forgotten clip."""
    gone = c.execute(
        "SELECT id, session_id, idx FROM items WHERE level = 'clip' AND written_wall < ?", (cutoff_wall,)
    ).fetchall()
    gone_clips = {(s, i) for _, s, i in gone}
    ids = {r[0] for r in gone}
    for iid, sid, clips in c.execute(
        "SELECT id, session_id, clips FROM items WHERE level != 'clip'"
    ).fetchall():
        if any((sid, ci) in gone_clips for ci in json.loads(clips)):
            ids.add(iid)
    ids.update(
        r[0]
        for r in c.execute(
            "SELECT id FROM items WHERE level != 'clip' AND written_wall < ?", (cutoff_wall,)
        ).fetchall()
    )
    return ids, gone_clips
