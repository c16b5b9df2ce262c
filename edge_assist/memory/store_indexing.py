"""Idle-time work of the IVF text index (see ivf.py): training and backfill in batches."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from edge_assist.errors import StoreError
from edge_assist.memory.heap import release_freed
from edge_assist.memory.ivf import BACKFILL_BATCH, TextIvf, TrainingStopped
from edge_assist.memory.sqlite import connect, sqlite_module
from edge_assist.memory.store_base import StoreBase


class StoreIndexing(StoreBase):
    _training: _Training | None = None  # a k-means run in its thread (see `_trained`)
    longest_index_tx_s = 0.0  # the longest transaction of index upkeep so far (seconds)
    longest_index_tx_kind = (
        ""  # and what it did: start, backfill, finish (the swap) or retire (emptying an old one)
    )

    def _vectors(self, c: Any, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored text vectors of these item ids (the index reads them to train and backfill)."""
        if len(ids) > 256:  # a rowid lookup is ~0.1 ms; a chunk read serves hundreds
            fast = _chunk_vectors(c, ids, self.text_dim)
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

    def index_pending(self) -> bool:
        """Whether the IVF index has training or backfill to do (cheap: one count)."""
        return self.ivf is not None and self.ivf.wants_work(self._items_written())

    def index_step(self, max_s: float = 0.5) -> bool:
        """Index work for about `max_s` seconds, in transactions of one batch each; True if more remains.

        Runs in idle time (the memory writer calls it when its queue is empty); a kill between
        two batches loses nothing, the next call resumes from the progress saved with the batch.
        """
        ivf = self.ivf
        if ivf is None:
            return False
        deadline = time.perf_counter() + max_s
        while True:
            if not ivf.wants_work(self._items_written()):
                return False
            if ivf.building is None and not ivf.retired and not self._trained(ivf, deadline):
                return True  # k-means is still running in its thread; the writer goes back to its captions
            tx0 = time.perf_counter()
            kind = (
                "retire"
                if ivf.retired and ivf.building is None
                else "start"
                if ivf.building is None
                else "finish"
                if ivf.next_id > ivf.end_id
                else "backfill"
            )
            try:
                with self.transaction() as c:
                    if kind == "retire":
                        ivf.retire_step(c)
                    elif ivf.building is None:
                        t, self._training = self._training, None
                        assert t is not None and t.centroids is not None
                        # Items written while k-means ran are backfilled too: the end is read now.
                        end_id = int(c.execute("SELECT coalesce(max(id), 0) FROM items").fetchone()[0])
                        ivf.start_trained(c, t.gen, t.centroids, max(end_id, t.end_id))
                    elif ivf.next_id > ivf.end_id:
                        ivf.finish(c)
                        # The index answers now: the copies of every vector kept for exact search go.
                        with self._lock:
                            self.small_vectors.drop()
                    else:
                        rows = c.execute(
                            "SELECT id, level, session_id, t1 FROM items WHERE id >= ? AND id <= ? ORDER BY id LIMIT ?",
                            (ivf.next_id, ivf.end_id, BACKFILL_BATCH),
                        ).fetchall()
                        vecs = self._vectors(c, [r[0] for r in rows])
                        upto = rows[-1][0] if len(rows) == BACKFILL_BATCH else ivf.end_id
                        ivf.backfill(
                            c, [(r[0], vecs[r[0]], r[1], r[2], r[3]) for r in rows if r[0] in vecs], upto
                        )
            except BaseException:
                # The transaction rolled back: the index state is what SQLite holds, not what we changed.
                with self._lock:
                    ivf.load(self._conn)
                raise
            # How long index upkeep held the store (ingest waits that long): bench_memory_scale reports it.
            took = time.perf_counter() - tx0
            if took > self.longest_index_tx_s:
                self.longest_index_tx_s, self.longest_index_tx_kind = took, kind
            if not ivf.wants_work(self._items_written()):
                # The backfill's batches leave tens of MB free in glibc's heap that RSS still counts
                # (a 12k-item store: 87 MB anonymous after the build, 42 MB after the trim).
                release_freed()
                return False
            if time.perf_counter() >= deadline:
                return True

    def _trained(self, ivf: TextIvf, deadline: float) -> bool:
        """Start k-means in its own thread, or wait for it until `deadline`; True when centroids are ready.

        Training a big memory (2048 lists on 49k samples at 1M clips) takes 10-30 s of CPU.
        Inside the store's lock and transaction it blocked every caption that long; here the
        sample is read through a second, read-only connection (a WAL snapshot: writers go on)
        and k-means holds no lock, so ingest and search continue while it runs.
        """
        t = self._training
        if t is None:
            t = self._training = _Training(self, ivf.next_gen())
        t.thread.join(max(0.0, deadline - time.perf_counter()))
        if t.thread.is_alive():
            return False
        if t.error is not None:
            self._training = None
            raise self._translate(t.error) from None
        return True

    def stop_training(self) -> None:
        """Stop a k-means run (the store is closing); nothing of it was written."""
        t = self._training
        if t is not None:
            t.stopping = True
            t.thread.join()
            self._training = None


class _Training:
    """One k-means run on a snapshot of the store, in a daemon thread."""

    def __init__(self, store: StoreIndexing, gen: int) -> None:
        self.gen = gen
        self.end_id = 0
        self.centroids: np.ndarray | None = None
        self.error: BaseException | None = None
        self.stopping = False
        self.thread = threading.Thread(
            target=self._run, args=(store,), name="memory-index-train", daemon=True
        )
        self.thread.start()

    def _run(self, store: StoreIndexing) -> None:
        try:
            conn = connect(str(store.path), check_same_thread=False, isolation_level=None, timeout=10.0)
            try:
                conn.execute("BEGIN")  # ids and vectors from one snapshot
                ids = [r[0] for r in conn.execute("SELECT id FROM items ORDER BY id").fetchall()]
                if not ids:
                    raise StoreError("memory index: nothing to train on")
                n = len(ids)
                ivf = store.ivf
                assert ivf is not None
                want = min(n, ivf.sample_size(n))
                pick = np.random.default_rng(n).choice(n, want, replace=False)
                vecs = store._vectors(conn, sorted(int(ids[i]) for i in pick))
                conn.execute("COMMIT")
            finally:
                conn.close()
            self.end_id = int(ids[-1])
            self.centroids = ivf.train(np.stack(list(vecs.values())), n, self.gen, stop=lambda: self.stopping)
        except TrainingStopped as e:
            self.error = e
        except BaseException as e:  # reported by the store's next index step, in the writer's thread
            self.error = e


def _chunk_vectors(c: Any, ids: Sequence[int], dim: int) -> dict[int, np.ndarray] | None:
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
