"""Retention and forgetting: expired keyframes, forgetting everything before a date, VACUUM."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from edge_assist.memory.store_base import StoreBase


class StoreRetention(StoreBase):
    def expired_keyframes(self, older_than_wall: float) -> list[tuple[int, str]]:
        return [
            (r[0], r[1])
            for r in self._read(
                "SELECT id, path FROM keyframes WHERE path != '' AND written_wall < ?", (older_than_wall,)
            )
        ]

    def clear_keyframe_paths(self, ids: Sequence[int]) -> None:
        """The JPEG is gone; its vector stays so a visual hit still maps to a clip."""
        with self.transaction() as c:
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
        with self.transaction() as c:
            ids, gone_clips = _forget_selection(c, cutoff_wall)
            if ids and self.ivf is not None:
                self.ivf.drop_retired(c)  # a replaced index generation still holds copies of the vectors
            for iid in ids:
                c.execute("DELETE FROM text_vec WHERE rowid = ?", (iid,))
                if self.ivf is not None:
                    self.ivf.delete(c, iid)
                c.execute("DELETE FROM items WHERE id = ?", (iid,))
            files: list[str] = []
            for sid, ci in gone_clips:
                for kid, path in c.execute(
                    "SELECT id, path FROM keyframes WHERE session_id = ? AND clip_index = ?", (sid, ci)
                ).fetchall():
                    if path:
                        files.append(path)
                    if self.image_dim is not None:
                        c.execute("DELETE FROM keyframe_vec WHERE rowid = ?", (kid,))
                    c.execute("DELETE FROM keyframes WHERE id = ?", (kid,))
            c.execute("DELETE FROM sessions WHERE session_id NOT IN (SELECT DISTINCT session_id FROM items)")
            self._sessions_changed()  # under the transaction's lock: no reader sees the old list after the commit
            if gone_clips:
                # In the same transaction: the graph side of this deletion survives a kill.
                row = c.execute("SELECT value FROM meta WHERE key = ?", (tombstone_key,)).fetchone()
                pending = {(s, int(i)) for s, i in json.loads(row[0])} if row else set()
                c.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                    (tombstone_key, json.dumps(sorted(pending | gone_clips))),
                )
            # still under the lock: rebuilt from the store on the next search
            self.session_vectors.clear()
            self.small_vectors.clear()
        return sorted(gone_clips), files

    def forgettable(self, cutoff_wall: float) -> tuple[list[tuple[str, int]], list[str], list[str]]:
        """What `forget_before(cutoff_wall)` would delete, without deleting: clip pairs, the
        texts (captions and summaries) and the sessions left with nothing, so the logs can
        forget them first."""
        with self._lock:
            ids, gone_clips = _forget_selection(self._conn, cutoff_wall)
            texts = [
                r[0]
                for iid in sorted(ids)
                for r in self._conn.execute("SELECT text FROM items WHERE id = ?", (iid,))
            ]
            emptied = [
                sid
                for sid in sorted({s for s, _ in gone_clips})
                if all(
                    r[0] in ids
                    for r in self._conn.execute("SELECT id FROM items WHERE session_id = ?", (sid,))
                )
            ]
        return sorted(gone_clips), texts, emptied

    def vacuum(self) -> None:
        """Rewrite the file so deleted rows leave the disk, not only the tables."""
        with self._lock:
            try:
                self._conn.execute("VACUUM")
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except self._errors as e:
                raise self._translate(e) from None


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
