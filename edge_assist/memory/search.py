"""The store's KNN reads: text (exact or through the IVF index) and keyframes.

A search has up to two scopes, each filtered inside sqlite-vec: the current session up
to `before_t` (t' <= t), and earlier sessions whole (they are over) — or, without a
session, every item up to `before_t`. A scope of fewer than `min_items` rows (the current
session on most days) is searched exactly: while memory has no index, in copies of all its
vectors (`SmallMemoryVectors`, or `text_vec` past their cap), once it has, in the session's
own vectors (`SessionVectors`); a larger scope goes through the IVF lists when the index is
ready. The filters are the same in every case (SQL, or the same conditions as masks), so the
index can miss a near neighbour but can never return a row outside the scope.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from edge_assist.memory.api import LEVELS, KeyframeHit, TextHit
from edge_assist.memory.ivf import TextIvf
from edge_assist.memory.vector_cache import newest_first

__all__ = ["keyframe_knn", "merge_nearest", "newest_first", "text_knn"]

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
    ready = ivf is not None and ivf.ready
    # (SQL filter, its args, may use the index, the same scope as a mask of the in-memory rows)
    scopes: list[tuple[str, list[Any], bool, Any]] = []
    if session_id is None:
        scopes.append((" AND v.t1 <= ?", [float(before_t)], True, lambda rows: None))
    else:
        big = ready and store.count_items(session_id) >= ivf.settings.min_items  # type: ignore[union-attr]
        scopes.append(
            (
                " AND v.t1 <= ? AND v.session_id = ?",
                [float(before_t), session_id],
                big,
                lambda rows: rows.session_mask(session_id, equal=True),
            )
        )
        if earlier_sessions:
            # Two KNN queries, each filtered inside vec0, then merged: a long current session
            # cannot crowd the earlier days out of the k.
            others = set(store.sessions()) - {session_id}
            if set(earlier_sessions) == others:  # the usual case: all of the past
                scopes.append(
                    (
                        " AND v.session_id != ?",
                        [session_id],
                        True,
                        lambda rows: rows.session_mask(session_id, equal=False),
                    )
                )
            else:
                scopes.append(
                    (
                        f" AND v.session_id IN ({','.join('?' * len(earlier_sessions))})",
                        list(earlier_sessions),
                        True,
                        lambda rows: rows.sessions_mask(earlier_sessions),
                    )
                )
    # Each scope answers (cosine distance, item id) only; the k kept rows are read from `items`
    # once at the end (a JOIN inside the KNN read the row of every candidate: k per probed list).
    near: list[tuple[float, int]] = []
    # vec0 cuts a group of equal distances at k in its own order; asking for twice as many and
    # cutting here, ties to the newer item, makes the exact scan and the index keep the same rows.
    kk = min(2 * k, MAX_K)
    q = np.frombuffer(blob, np.float32)
    lv = f" AND v.level IN ({','.join('?' * len(levels))})"
    if not ready:
        with store._lock:
            small = store.small_vectors.rows(store)
            if small is not None:  # no index yet and memory small: every scope from the copies in memory
                sims = small.similarities(q)
                for i, (_, _, _, mask_of) in enumerate(scopes):
                    # the first scope ends at before_t; earlier sessions are over, all of them past
                    part = small.nearest(
                        q, k, before_t if i == 0 else None, levels, where=mask_of(small), sims=sims
                    )
                    near = merge_nearest(near, part, k)
                scopes = []
    for where, args, may_index, _ in scopes:
        if not may_index and session_id is not None and ready:
            with store._lock:
                part = store.session_vectors.rows(store, session_id).nearest(q, k, before_t, levels)
        elif may_index and ready:
            name, lists, qblob, to_cosine = ivf.knn_sql(q)  # type: ignore[union-attr]
            sql = (
                f"SELECT v.distance, v.rowid FROM {name} v WHERE v.embedding MATCH ? AND v.k = ?"
                f" AND v.list_id IN ({','.join(map(str, lists))})" + lv + where
            )
            # vec0 answers k rows per probed list: keep the k nearest of them all.
            part = sorted(
                ((to_cosine(float(d)), int(i)) for d, i in store._read(sql, [qblob, kk, *levels, *args])),
                key=newest_first,
            )[:k]
        else:
            sql = (
                "SELECT v.distance, v.rowid FROM text_vec v WHERE v.embedding MATCH ? AND v.k = ?"
                + lv
                + where
            )
            part = sorted(
                ((float(d), int(i)) for d, i in store._read(sql, [blob, kk, *levels, *args])),
                key=newest_first,
            )[:k]
        near = merge_nearest(near, part, k)
    if not near:
        return []
    dist = {iid: d for d, iid in near}
    rows = store._read(_ITEM_SQL.format(marks=",".join("?" * len(near))), [iid for _, iid in near])
    rows.sort(key=lambda r: (dist[r[0]], -r[0]))
    return [
        TextHit(
            level=r[1],
            session_id=r[2],
            t0=r[3],
            t1=r[4],
            text=r[5],
            clip_indices=tuple(json.loads(r[6])),
            score=1.0 - dist[r[0]],
        )
        for r in rows
    ]


def keyframe_knn(
    store: Any,
    blob: bytes,
    *,
    k: int,
    before_t: float,
    session_id: str | None,
    earlier_sessions: Sequence[str],
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
        rows = merge_nearest(
            rows,
            store._read(
                sql + f" AND v.session_id IN ({','.join('?' * len(earlier_sessions))}) ORDER BY v.distance",
                [*base, *earlier_sessions],
            ),
            k,
            key=lambda r: float(r[0]),
        )
    return [KeyframeHit(r[1], r[2], r[3], r[4], 1.0 - float(r[0])) for r in rows]


def merge_nearest(a: Sequence[Any], b: Sequence[Any], k: int, key: Any = newest_first) -> list[Any]:
    """Two distance-ordered result lists (distance first) → the k nearest of both."""
    return sorted([*a, *b], key=key)[: int(k)]
