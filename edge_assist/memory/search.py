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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_assist.memory.api import LEVELS, KeyframeHit, TextHit
from edge_assist.memory.ivf import TextIvf
from edge_assist.memory.store_connection import StoreConnection
from edge_assist.memory.store_rows import _vec
from edge_assist.memory.store_sessions import SessionTable
from edge_assist.memory.vector_cache import Rows, VectorCopies, newest_first

__all__ = ["VectorSearch", "merge_nearest", "newest_first"]

# vec0 refuses k above this; a search never needs more.
MAX_K = 4096

_ITEM_SQL = "SELECT id, level, session_id, t0, t1, text, clips FROM items WHERE id IN ({marks})"


@dataclass(frozen=True)
class _Query:
    q: np.ndarray
    blob: bytes  # q as float32 bytes, as vec0 takes it
    k: int
    before_t: float
    levels: list[str]
    session_id: str | None
    ready: bool  # the index answered when the search began (the writer's thread may swap it meanwhile)


@dataclass(frozen=True)
class _Scope:
    where: str  # the SQL filter on vec0's rows (alias v)
    args: list[Any]
    may_index: bool  # large enough to go through the IVF lists when they are ready
    mask: Callable[[Rows], np.ndarray | None]  # the same filter over the in-memory copies


class VectorSearch:
    """The nearest texts and keyframes to a query vector, never past `before_t`."""

    def __init__(
        self, db: StoreConnection, ivf: TextIvf, copies: VectorCopies, sessions: SessionTable
    ) -> None:
        self.db = db
        self.ivf = ivf
        self.copies = copies
        self.sessions = sessions

    def text(
        self,
        vector: np.ndarray,
        *,
        k: int,
        before_t: float,
        levels: Sequence[str] = LEVELS,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[TextHit]:
        """The k nearest items that ended by `before_t` (in `session_id`, or in any session),
        plus, with `earlier_sessions`, any item of those sessions: they are over, all past.
        Exact below `memory.ann_min_items` rows in scope, through the IVF index above."""
        blob = _vec(vector, self.db.text_dim, "query")
        wanted = [lv for lv in levels if lv in LEVELS]
        if not wanted or k <= 0:
            return []
        query = _Query(
            np.frombuffer(blob, np.float32),
            blob,
            min(int(k), MAX_K),
            before_t,
            wanted,
            session_id,
            self.ivf.ready,
        )
        return self._hits(self._nearest(query, self._scopes(query, earlier_sessions)))

    def _scopes(self, query: _Query, earlier_sessions: Sequence[str]) -> list[_Scope]:
        sid = query.session_id
        if sid is None:
            return [_Scope(" AND v.t1 <= ?", [float(query.before_t)], True, lambda rows: None)]
        big = query.ready and self.sessions.count_items(sid) >= self.ivf.settings.min_items
        scopes = [
            _Scope(
                " AND v.t1 <= ? AND v.session_id = ?",
                [float(query.before_t), sid],
                big,
                lambda rows: rows.session_mask(sid, equal=True),
            )
        ]
        if earlier_sessions:
            # Two KNN queries, each filtered inside vec0, then merged: a long current session
            # cannot crowd the earlier days out of the k.
            others = set(self.sessions.sessions()) - {sid}
            if set(earlier_sessions) == others:  # the usual case: all of the past
                scopes.append(
                    _Scope(
                        " AND v.session_id != ?",
                        [sid],
                        True,
                        lambda rows: rows.session_mask(sid, equal=False),
                    )
                )
            else:
                scopes.append(
                    _Scope(
                        f" AND v.session_id IN ({','.join('?' * len(earlier_sessions))})",
                        list(earlier_sessions),
                        True,
                        lambda rows: rows.sessions_mask(earlier_sessions),
                    )
                )
        return scopes

    def _nearest(self, query: _Query, scopes: list[_Scope]) -> list[tuple[float, int]]:
        """(cosine distance, item id) of the k nearest over every scope. Each scope answers these
        only; the kept rows are read from `items` once at the end (a JOIN inside the KNN read the
        row of every candidate: k per probed list)."""
        if not query.ready:
            with self.db.lock:
                small = self.copies.small.rows(self.db)
                if small is not None:  # no index yet and memory small: every scope from the copies
                    return _from_copies(small, query, scopes)
        near: list[tuple[float, int]] = []
        for scope in scopes:
            near = merge_nearest(near, self._scope_nearest(query, scope), query.k)
        return near

    def _scope_nearest(self, query: _Query, scope: _Scope) -> list[tuple[float, int]]:
        k, levels = query.k, query.levels
        if not scope.may_index and query.session_id is not None and query.ready:
            with self.db.lock:
                rows = self.copies.session.rows(self.db, query.session_id)
                return rows.nearest(query.q, k, query.before_t, levels)
        # vec0 cuts a group of equal distances at k in its own order; asking for twice as many and
        # cutting here, ties to the newer item, makes the exact scan and the index keep the same rows.
        kk = min(2 * k, MAX_K)
        lv = f" AND v.level IN ({','.join('?' * len(levels))})"
        if scope.may_index and query.ready:
            name, lists, qblob, to_cosine = self.ivf.knn_sql(query.q)
            sql = (
                f"SELECT v.distance, v.rowid FROM {name} v WHERE v.embedding MATCH ? AND v.k = ?"
                f" AND v.list_id IN ({','.join(map(str, lists))})" + lv + scope.where
            )
            # vec0 answers k rows per probed list: keep the k nearest of them all.
            found = [
                (to_cosine(float(d)), int(i)) for d, i in self.db.read(sql, [qblob, kk, *levels, *scope.args])
            ]
        else:
            sql = "SELECT v.distance, v.rowid FROM text_vec v WHERE v.embedding MATCH ? AND v.k = ?"
            found = [
                (float(d), int(i))
                for d, i in self.db.read(sql + lv + scope.where, [query.blob, kk, *levels, *scope.args])
            ]
        return sorted(found, key=newest_first)[:k]

    def _hits(self, near: list[tuple[float, int]]) -> list[TextHit]:
        if not near:
            return []
        dist = {iid: d for d, iid in near}
        rows = self.db.read(_ITEM_SQL.format(marks=",".join("?" * len(near))), [iid for _, iid in near])
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

    def keyframes(
        self,
        vector: np.ndarray,
        *,
        k: int,
        before_t: float,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[KeyframeHit]:
        if self.db.image_dim is None or k <= 0:
            return []
        sql = (
            "SELECT v.distance, f.session_id, f.clip_index, f.stream_t, f.path FROM keyframe_vec v "
            "JOIN keyframes f ON f.id = v.rowid WHERE v.embedding MATCH ? AND v.k = ?"
        )
        base: list[Any] = [_vec(vector, self.db.image_dim, "query"), min(int(k), MAX_K)]
        scope = " AND v.t1 <= ?" + (" AND v.session_id = ?" if session_id is not None else "")
        args = [float(before_t), *([session_id] if session_id is not None else [])]
        rows = self.db.read(sql + scope + " ORDER BY v.distance", [*base, *args])
        if session_id is not None and earlier_sessions:
            rows = merge_nearest(
                rows,
                self.db.read(
                    sql
                    + f" AND v.session_id IN ({','.join('?' * len(earlier_sessions))}) ORDER BY v.distance",
                    [*base, *earlier_sessions],
                ),
                k,
                key=lambda r: float(r[0]),
            )
        return [KeyframeHit(r[1], r[2], r[3], r[4], 1.0 - float(r[0])) for r in rows]


def _from_copies(small: Rows, query: _Query, scopes: list[_Scope]) -> list[tuple[float, int]]:
    """Every scope answered from the in-memory copies of all vectors, with one matrix product."""
    sims = small.similarities(query.q)
    near: list[tuple[float, int]] = []
    for i, scope in enumerate(scopes):
        # the first scope ends at before_t; earlier sessions are over, all of them past
        bound = query.before_t if i == 0 else None
        part = small.nearest(query.q, query.k, bound, query.levels, where=scope.mask(small), sims=sims)
        near = merge_nearest(near, part, query.k)
    return near


def merge_nearest(a: Sequence[Any], b: Sequence[Any], k: int, key: Any = newest_first) -> list[Any]:
    """Two distance-ordered result lists (distance first) → the k nearest of both."""
    return sorted([*a, *b], key=key)[: int(k)]
