"""The store's KNN reads: text (exact or through the IVF index) and keyframes.

A search has up to two scopes, each filtered inside sqlite-vec: the current session up
to `before_t` (t' <= t), and earlier sessions whole (they are over) — or, without a
session, every item up to `before_t`. A scope of fewer than `min_items` rows (the current
session on most days) is searched exactly: in `text_vec` while memory is small, in the
session's own vectors (`SessionVectors`) once it is big; a larger scope goes through the
IVF lists when the index is ready. The filters are the same SQL in both cases, so the
index can miss a near neighbour but can never return a row outside the scope.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from edge_assist.memory.api import LEVELS, KeyframeHit, TextHit
from edge_assist.memory.ivf import TextIvf, rows_dot

# vec0 refuses k above this; a search never needs more.
MAX_K = 4096

_ITEM_SQL = "SELECT id, level, session_id, t0, t1, text, clips FROM items WHERE id IN ({marks})"


def text_knn(
    store: Any,
    blob: bytes,
    *,
    k: int,
    before_t: float,
    levels: Sequence[str],
    session_id: str | None,
    earlier_sessions: Sequence[str],
) -> list[TextHit]:
    levels = [lv for lv in levels if lv in LEVELS]
    if not levels or k <= 0:
        return []
    k = min(int(k), MAX_K)
    ivf: TextIvf | None = store.ivf
    scopes: list[tuple[str, list[Any], bool]] = []  # (SQL filter, its args, may use the index)
    if session_id is None:
        scopes.append((" AND v.t1 <= ?", [float(before_t)], True))
    else:
        big = ivf is not None and ivf.ready and store.count_items(session_id) >= ivf.settings.min_items
        scopes.append((" AND v.t1 <= ? AND v.session_id = ?", [float(before_t), session_id], big))
        if earlier_sessions:
            # Two KNN queries, each filtered inside vec0, then merged: a long current session
            # cannot crowd the earlier days out of the k.
            others = set(store.sessions()) - {session_id}
            if set(earlier_sessions) == others:
                scopes.append((" AND v.session_id != ?", [session_id], True))  # the usual case: all of the past
            else:
                scopes.append((f" AND v.session_id IN ({','.join('?' * len(earlier_sessions))})",
                               list(earlier_sessions), True))
    # Each scope answers (cosine distance, item id) only; the k kept rows are read from `items`
    # once at the end (a JOIN inside the KNN read the row of every candidate: k per probed list).
    near: list[tuple[float, int]] = []
    # vec0 cuts a group of equal distances at k in its own order; asking for twice as many and
    # cutting here, ties to the newer item, makes the exact scan and the index keep the same rows.
    kk = min(2 * k, MAX_K)
    q = np.frombuffer(blob, np.float32)
    lv = f" AND v.level IN ({','.join('?' * len(levels))})"
    for where, args, may_index in scopes:
        if not may_index and session_id is not None and ivf is not None and ivf.ready:
            with store._lock:
                part = store.session_vectors.rows(store, session_id).nearest(q, k, before_t, levels)
        elif may_index and ivf is not None and ivf.ready:
            name, lists, qblob, to_cosine = ivf.knn_sql(q)
            sql = (f"SELECT v.distance, v.rowid FROM {name} v WHERE v.embedding MATCH ? AND v.k = ?"
                   f" AND v.list_id IN ({','.join(map(str, lists))})" + lv + where)
            # vec0 answers k rows per probed list: keep the k nearest of them all.
            part = sorted(((to_cosine(float(d)), int(i)) for d, i in store._read(sql, [qblob, kk, *levels, *args])),
                          key=newest_first)[:k]
        else:
            sql = "SELECT v.distance, v.rowid FROM text_vec v WHERE v.embedding MATCH ? AND v.k = ?" + lv + where
            part = sorted(((float(d), int(i)) for d, i in store._read(sql, [blob, kk, *levels, *args])), key=newest_first)[:k]
        near = merge_nearest(near, part, k)
    if not near:
        return []
    dist = {iid: d for d, iid in near}
    rows = store._read(_ITEM_SQL.format(marks=",".join("?" * len(near))), [iid for _, iid in near])
    rows.sort(key=lambda r: (dist[r[0]], -r[0]))
    return [
        TextHit(level=r[1], session_id=r[2], t0=r[3], t1=r[4], text=r[5], clip_indices=tuple(json.loads(r[6])),
                score=1.0 - dist[r[0]])
        for r in rows
    ]


class SessionVectors:
    """Exact search inside one session without a scan of the whole `text_vec`.

    A vec0 metadata filter still reads every vector of the table (0.5 s at 100k rows), so once
    memory is big the current session's own vectors (a day: a few thousand) are kept in
    memory, loaded once from the store and appended as captions are committed, and searched
    by one matrix product. It holds only copies of committed rows; the store clears it when
    it deletes. The store's lock guards it.
    """

    MAX_SESSIONS = 2

    def __init__(self) -> None:
        self._cache: OrderedDict[str, _Rows] = OrderedDict()

    def rows(self, store: Any, session_id: str) -> _Rows:
        got = self._cache.get(session_id)
        if got is None:
            items = store._conn.execute(
                "SELECT id, level, t1 FROM items WHERE session_id = ? ORDER BY id", (session_id,)
            ).fetchall()
            vecs = store._vectors(store._conn, [r[0] for r in items])
            got = _Rows()
            for iid, level, t1 in items:
                if iid in vecs:
                    got.append(iid, level, t1, vecs[iid])
            self._cache[session_id] = got
            while len(self._cache) > self.MAX_SESSIONS:
                self._cache.popitem(last=False)
        self._cache.move_to_end(session_id)
        return got

    def start(self, session_id: str) -> None:
        """A session that has just begun (nothing stored yet): kept from its first row."""
        if session_id not in self._cache:
            self._cache[session_id] = _Rows()
            while len(self._cache) > self.MAX_SESSIONS:
                self._cache.popitem(last=False)

    def added(self, session_id: str, item_id: int, level: str, t1: float, vec: np.ndarray) -> None:
        got = self._cache.get(session_id)
        if got is not None:
            got.append(item_id, level, t1, vec)

    def clear(self) -> None:
        self._cache.clear()


class _Rows:
    def __init__(self) -> None:
        self.ids: list[int] = []
        self.levels: list[str] = []
        self.t1: list[float] = []
        self.vecs: list[np.ndarray] = []
        self._mat: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def append(self, item_id: int, level: str, t1: float, vec: np.ndarray) -> None:
        v = np.asarray(vec, np.float32)
        self.ids.append(int(item_id))
        self.levels.append(level)
        self.t1.append(float(t1))
        self.vecs.append(v / max(float(np.linalg.norm(v)), 1e-12))
        self._mat = None

    def nearest(self, q: np.ndarray, k: int, before_t: float, levels: Sequence[str]) -> list[tuple[float, int]]:
        """(cosine distance, item id) of the k nearest rows with t1 <= before_t at these levels."""
        if not self.ids:
            return []
        if self._mat is None:
            self._mat = (np.stack(self.vecs), np.asarray(self.ids), np.asarray(self.levels), np.asarray(self.t1))
        mat, ids, lv, t1 = self._mat
        # One product over every row, then the mask: indexing the matrix first copied it (4 ms a day).
        sims = rows_dot(mat, q / max(float(np.linalg.norm(q)), 1e-12))
        keep = t1 <= before_t
        if len(set(levels)) < len(LEVELS):
            keep &= np.logical_or.reduce([lv == x for x in set(levels)])
        sims = np.where(keep, sims, -np.inf)
        n = min(k, int(keep.sum()))
        if n <= 0:
            return []
        top = np.argpartition(-sims, n - 1)[:n]
        return sorted(((1.0 - float(sims[i]), int(ids[i])) for i in top), key=newest_first)


def keyframe_knn(
    store: Any, blob: bytes, *, k: int, before_t: float, session_id: str | None, earlier_sessions: Sequence[str]
) -> list[KeyframeHit]:
    sql = (
        "SELECT v.distance, f.session_id, f.clip_index, f.stream_t, f.path FROM keyframe_vec v "
        "JOIN keyframes f ON f.id = v.rowid WHERE v.embedding MATCH ? AND v.k = ?"
    )
    base: list[Any] = [blob, min(int(k), MAX_K)]
    scope = " AND v.t1 <= ?" + (" AND v.session_id = ?" if session_id is not None else "")
    args = [float(before_t), *([session_id] if session_id is not None else [])]
    rows = store._read(sql + scope + " ORDER BY v.distance", [*base, *args])
    if session_id is not None and earlier_sessions:
        rows = merge_nearest(rows, store._read(
            sql + f" AND v.session_id IN ({','.join('?' * len(earlier_sessions))}) ORDER BY v.distance",
            [*base, *earlier_sessions]), k, key=lambda r: float(r[0]))
    return [KeyframeHit(r[1], r[2], r[3], r[4], 1.0 - float(r[0])) for r in rows]


def newest_first(r: Any) -> tuple[float, int]:
    """Sort key of (distance, item id) rows: nearest first; among equals, the newest item.

    The same caption on two days has the same vector (a daily routine), and "when did I last"
    means the latest of them; every path breaks ties this way, so the index and the exact
    scan keep the same rows."""
    return (float(r[0]), -int(r[1]))


def merge_nearest(a: Sequence[Any], b: Sequence[Any], k: int, key: Any = newest_first) -> list[Any]:
    """Two distance-ordered result lists (distance first) → the k nearest of both."""
    return sorted([*a, *b], key=key)[: int(k)]
