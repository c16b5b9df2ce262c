"""Stored text vectors read back by item id: vec0 rowid lookups, or sqlite-vec's chunk tables in bulk.

The index reads them to train and backfill (`store_indexing`), the in-memory copies to load
(`vector_cache`), and `clips_with_vectors` to hand a session's clips over with their vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from edge_assist.memory.sqlite import sqlite_module


def read_vectors(c: Any, ids: Sequence[int], dim: int) -> dict[int, np.ndarray]:
    """The stored text vectors of these item ids, read on connection `c` (the caller holds its lock)."""
    if len(ids) > 256:  # a rowid lookup is ~0.1 ms; a chunk read serves hundreds
        fast = chunk_vectors(c, ids, dim)
        if fast is not None:
            return fast
    out: dict[int, np.ndarray] = {}
    # vec0 answers a rowid lookup in ~0.1 ms: fine for a few thousand, slow for a million.
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        for rid, emb in c.execute(
            f"SELECT rowid, embedding FROM text_vec WHERE rowid IN ({','.join('?' * len(part))})",
            list(part),
        ):
            out[int(rid)] = np.frombuffer(emb, np.float32)
    return out


def chunk_vectors(c: Any, ids: Sequence[int], dim: int) -> dict[int, np.ndarray] | None:
    """Bulk read of `text_vec` through sqlite-vec's chunk tables (a million rows in seconds).

    This reads sqlite-vec 0.1's storage layout (`<t>_chunks`: capacity, validity bitmap,
    int64 rowids; `<t>_vector_chunks00`: float32 vectors), so every chunk read is checked
    against vec0's own answer for one of its rows; on any mismatch (another sqlite-vec
    layout) it returns None and the caller falls back to rowid lookups.
    """
    want = np.unique(np.asarray(ids, np.int64))
    lo, hi = int(want[0]), int(want[-1])
    out: dict[int, np.ndarray] = {}
    try:
        chunks = c.execute(
            "SELECT chunk_id, size, validity, rowids FROM text_vec_chunks ORDER BY chunk_id"
        ).fetchall()
        for cid, size, validity, rowids in chunks:
            rid = np.frombuffer(rowids, np.int64)
            valid = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[: int(size)].astype(
                bool
            )
            if len(rid) != int(size):
                return None
            live = np.flatnonzero(valid & (rid >= lo) & (rid <= hi))
            live = live[np.isin(rid[live], want)]
            if not len(live):
                continue
            blob = c.execute(
                "SELECT vectors FROM text_vec_vector_chunks00 WHERE rowid = ?", (cid,)
            ).fetchone()
            if blob is None or len(blob[0]) != int(size) * dim * 4:
                return None
            vecs = np.frombuffer(blob[0], np.float32).reshape(int(size), dim)
            check = c.execute(
                "SELECT embedding FROM text_vec WHERE rowid = ?", (int(rid[live[0]]),)
            ).fetchone()
            if check is None or np.frombuffer(check[0], np.float32).tobytes() != vecs[live[0]].tobytes():
                return None
            for j in live:
                out[int(rid[j])] = vecs[j].copy()
    except sqlite_module().Error:
        return None
    return out
