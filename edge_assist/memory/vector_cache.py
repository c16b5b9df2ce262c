"""Copies of committed text vectors kept in memory, for exact searches that a vec0 scan makes slow.

A vec0 metadata filter still reads every vector of the table (about 0.6 us each here), and a
search has two scopes (this session up to t, earlier sessions), so an exact scan is two passes
over the whole memory: 11 ms a question at 9k items, the end of the first day. Two caches
answer those scopes with one matrix product instead:

- `SessionVectors`: once memory is big (the IVF index answers the past), the current
  session's own vectors (a day: a few thousand);
- `SmallMemoryVectors`: while memory is small (no index yet), every vector of the memory,
  up to a cap (`2 x memory.ann_min_items`: 15 MB of float32 at 10k items); it is dropped when
  the index is ready, and past the cap searches fall back to the vec0 scan.

Both hold only copies of committed rows, are appended as captions are committed, and are
cleared when the store deletes (rebuilt from the store on the next search). `VectorCopies`
holds the two for the parts of the store; the store's lock guards them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np

from edge_assist.memory.api import LEVELS
from edge_assist.memory.kmeans import rows_dot
from edge_assist.memory.store_connection import StoreConnection
from edge_assist.memory.vector_reads import read_vectors

_LEVEL_CODE = {lv: i for i, lv in enumerate(LEVELS)}


def newest_first(r: Any) -> tuple[float, int]:
    """Sort key of (distance, item id) rows: nearest first; among equals, the newest item.

    The same caption on two days has the same vector (a daily routine), and "when did I last"
    means the latest of them; every path breaks ties this way, so the index and the exact
    scan keep the same rows."""
    return (float(r[0]), -int(r[1]))


class Rows:
    """Unit vectors with their item id, level, end time and session, in arrays that grow by doubling
    (one copy of each vector: a list of rows stacked at search time held two)."""

    def __init__(self) -> None:
        self.n = 0
        self._vecs = np.zeros((0, 0), np.float32)
        self._ids = np.zeros(0, np.int64)
        self._t1 = np.zeros(0, np.float64)
        self._level = np.zeros(0, np.int8)
        self._session = np.zeros(0, np.int32)
        self._session_code: dict[str, int] = {}

    def __len__(self) -> int:
        return self.n

    def _grow(self, dim: int) -> None:
        cap = max(64, 2 * len(self._ids))

        def bigger(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
            out = np.zeros(shape, a.dtype)
            out[: self.n] = a[: self.n]
            return out

        self._vecs = bigger(
            self._vecs if self._vecs.shape[1] == dim else np.zeros((0, dim), np.float32), (cap, dim)
        )
        self._ids = bigger(self._ids, (cap,))
        self._t1 = bigger(self._t1, (cap,))
        self._level = bigger(self._level, (cap,))
        self._session = bigger(self._session, (cap,))

    def append(self, item_id: int, level: str, t1: float, vec: np.ndarray, session_id: str = "") -> None:
        v = np.asarray(vec, np.float32).reshape(-1)
        if self.n == len(self._ids) or self._vecs.shape[1] != len(v):
            self._grow(len(v))
        i = self.n
        self._vecs[i] = v / max(float(np.linalg.norm(v)), 1e-12)
        self._ids[i] = int(item_id)
        self._t1[i] = float(t1)
        self._level[i] = _LEVEL_CODE.get(level, -1)
        self._session[i] = self._session_code.setdefault(session_id, len(self._session_code))
        self.n += 1

    def session_mask(self, session_id: str, *, equal: bool) -> np.ndarray:
        code = self._session_code.get(session_id, -1)
        s = self._session[: self.n]
        return (s == code) if equal else (s != code)

    def sessions_mask(self, session_ids: Collection[str]) -> np.ndarray:
        codes = [self._session_code[s] for s in set(session_ids) if s in self._session_code]
        return np.isin(self._session[: self.n], codes)

    def similarities(self, q: np.ndarray) -> np.ndarray:
        """Cosine similarity of every row to q: one product, then masks (indexing the matrix first
        copied it, 4 ms a day); a search with two scopes computes it once for both."""
        if self.n == 0:
            return np.zeros(0, np.float32)
        return rows_dot(
            self._vecs[: self.n], np.asarray(q, np.float32) / max(float(np.linalg.norm(q)), 1e-12)
        )

    def nearest(
        self,
        q: np.ndarray,
        k: int,
        before_t: float | None,
        levels: Sequence[str],
        where: np.ndarray | None = None,
        sims: np.ndarray | None = None,
    ) -> list[tuple[float, int]]:
        """(cosine distance, item id) of the k nearest rows with t1 <= before_t (None: any time)
        at these levels, among the rows `where` selects (a mask; None: all). `sims`: this query's
        `similarities`, if already computed."""
        if self.n == 0 or k <= 0:
            return []
        n = self.n
        if sims is None:
            sims = self.similarities(q)
        keep = np.ones(n, bool) if before_t is None else self._t1[:n] <= before_t
        wanted = {_LEVEL_CODE[lv] for lv in levels if lv in _LEVEL_CODE}
        if len(wanted) < len(LEVELS):
            keep &= np.isin(self._level[:n], sorted(wanted))
        if where is not None:
            keep &= where
        m = min(2 * k, int(keep.sum()))  # twice k, then ties to the newest: as the vec0 paths cut
        if m <= 0:
            return []
        sims = np.where(keep, sims, -np.inf)
        top = np.argpartition(-sims, m - 1)[:m]
        return sorted(((1.0 - float(sims[i]), int(self._ids[i])) for i in top), key=newest_first)[:k]


def _load(db: StoreConnection, where: str = "", args: Sequence[Any] = ()) -> Rows:
    """The committed rows `where` selects, with their vectors, read from the store (under its lock)."""
    items = db.conn.execute(
        f"SELECT id, level, t1, session_id FROM items {where} ORDER BY id", args
    ).fetchall()
    vecs = read_vectors(db.conn, [r[0] for r in items], db.text_dim)
    rows = Rows()
    for iid, level, t1, sid in items:
        if iid in vecs:
            rows.append(iid, level, t1, vecs[iid], sid)
    return rows


class SessionVectors:
    """The current session's vectors while the IVF index answers for the rest of memory."""

    MAX_SESSIONS = 2

    def __init__(self) -> None:
        self._cache: OrderedDict[str, Rows] = OrderedDict()

    def rows(self, db: StoreConnection, session_id: str) -> Rows:
        got = self._cache.get(session_id)
        if got is None:
            got = self._cache[session_id] = _load(db, "WHERE session_id = ?", (session_id,))
            while len(self._cache) > self.MAX_SESSIONS:
                self._cache.popitem(last=False)
        self._cache.move_to_end(session_id)
        return got

    def start(self, session_id: str) -> None:
        """A session that has just begun (nothing stored yet): kept from its first row."""
        if session_id not in self._cache:
            self._cache[session_id] = Rows()
            while len(self._cache) > self.MAX_SESSIONS:
                self._cache.popitem(last=False)

    def added(self, session_id: str, item_id: int, level: str, t1: float, vec: np.ndarray) -> None:
        got = self._cache.get(session_id)
        if got is not None:
            got.append(item_id, level, t1, vec)

    def clear(self) -> None:
        self._cache.clear()


class SmallMemoryVectors:
    """Every vector of a memory that has no index yet (at most `cap` of them)."""

    def __init__(self, cap: int) -> None:
        self.cap = max(0, int(cap))
        self._rows: Rows | None = None
        self._too_big = False  # the memory passed the cap: searches scan vec0 until a delete

    def rows(self, db: StoreConnection) -> Rows | None:
        """All rows, loaded from the store on first use; None past the cap."""
        if self._too_big or self.cap == 0:
            return None
        if self._rows is None:
            n = int(db.conn.execute("SELECT count(*) FROM items").fetchone()[0])
            if n > self.cap:
                self._too_big = True
                return None
            self._rows = _load(db)
        return self._rows

    @property
    def held(self) -> int:
        """How many copies are in memory now (0: not loaded, or freed)."""
        return 0 if self._rows is None else len(self._rows)

    def added(self, session_id: str, item_id: int, level: str, t1: float, vec: np.ndarray) -> None:
        if self._rows is None:
            return  # not loaded yet: the first search reads the row from the store
        if len(self._rows) >= self.cap:
            self.drop(too_big=True)
            return
        self._rows.append(item_id, level, t1, vec, session_id)

    def drop(self, *, too_big: bool = False) -> None:
        """Free the copies (the index is ready, or memory passed the cap)."""
        self._rows = None
        self._too_big = too_big

    def clear(self) -> None:
        self.drop()


class VectorCopies:
    """Both caches, appended and cleared together by the parts of the store."""

    def __init__(self, small_cap: int) -> None:
        self.session = SessionVectors()
        self.small = SmallMemoryVectors(small_cap)

    def added(self, session_id: str, item_id: int, level: str, t1: float, vec: np.ndarray) -> None:
        """A committed vector, copied into both (each keeps it only if it holds that scope)."""
        self.session.added(session_id, item_id, level, t1, vec)
        self.small.added(session_id, item_id, level, t1, vec)

    def clear(self) -> None:
        """The store deleted rows: both are rebuilt from it on the next search."""
        self.session.clear()
        self.small.clear()
