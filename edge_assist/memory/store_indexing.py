"""Idle-time work of the IVF text index (see ivf.py): training and backfill in batches."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

from edge_assist.errors import StoreError
from edge_assist.memory.heap import release_freed
from edge_assist.memory.ivf import BACKFILL_BATCH, TextIvf
from edge_assist.memory.kmeans import TrainingStopped
from edge_assist.memory.sqlite import connect
from edge_assist.memory.store_connection import StoreConnection
from edge_assist.memory.vector_cache import VectorCopies
from edge_assist.memory.vector_reads import read_vectors


class IndexUpkeep:
    """Builds and re-balances the text index in short steps, each one transaction, while ingest goes on."""

    def __init__(self, db: StoreConnection, ivf: TextIvf, copies: VectorCopies) -> None:
        self.db = db
        self.ivf = ivf
        self.copies = copies
        self._training: _Training | None = None  # a k-means run in its thread (see `_trained`)
        self.longest_index_tx_s = 0.0  # the longest transaction of index upkeep so far (seconds)
        # and what it did: start, backfill, finish (the swap) or retire (emptying an old one)
        self.longest_index_tx_kind = ""

    def index_pending(self) -> bool:
        """Whether the IVF index has training or backfill to do (cheap: one count)."""
        return self.ivf.wants_work(self._items_written())

    def _items_written(self) -> int:
        """Items ever written (ids only grow): O(log n), cheap enough to check after every caption."""
        return int(self.db.read("SELECT coalesce(max(id), 0) FROM items")[0][0])

    def index_step(self, max_s: float = 0.5) -> bool:
        """Index work for about `max_s` seconds, in transactions of one batch each; True if more remains.

        Runs in idle time (the memory writer calls it when its queue is empty); a kill between
        two batches loses nothing, the next call resumes from the progress saved with the batch.
        """
        ivf = self.ivf
        deadline = time.perf_counter() + max_s
        while True:
            if not ivf.wants_work(self._items_written()):
                return False
            if ivf.building is None and not ivf.retired and not self._trained(deadline):
                return True  # k-means is still running in its thread; the writer goes back to its captions
            tx0 = time.perf_counter()
            kind = _next_work(ivf)
            try:
                with self.db.transaction() as c:
                    self._work(c, kind)
            except BaseException:
                # The transaction rolled back: the index state is what SQLite holds, not what we changed.
                with self.db.lock:
                    ivf.load(self.db.conn)
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

    def _work(self, c: Any, kind: str) -> None:
        """One batch of index work inside the caller's transaction."""
        ivf = self.ivf
        if kind == "retire":
            ivf.retire_step(c)
        elif kind == "start":
            t, self._training = self._training, None
            assert t is not None and t.centroids is not None
            # Items written while k-means ran are backfilled too: the end is read now.
            end_id = int(c.execute("SELECT coalesce(max(id), 0) FROM items").fetchone()[0])
            ivf.start_trained(c, t.gen, t.centroids, max(end_id, t.end_id))
        elif kind == "finish":
            ivf.finish(c)
            # The index answers now: the copies of every vector kept for exact search go.
            with self.db.lock:
                self.copies.small.drop()
        else:
            rows = c.execute(
                "SELECT id, level, session_id, t1 FROM items WHERE id >= ? AND id <= ? ORDER BY id LIMIT ?",
                (ivf.next_id, ivf.end_id, BACKFILL_BATCH),
            ).fetchall()
            vecs = read_vectors(c, [r[0] for r in rows], self.db.text_dim)
            upto = rows[-1][0] if len(rows) == BACKFILL_BATCH else ivf.end_id
            ivf.backfill(c, [(r[0], vecs[r[0]], r[1], r[2], r[3]) for r in rows if r[0] in vecs], upto)

    def _trained(self, deadline: float) -> bool:
        """Start k-means in its own thread, or wait for it until `deadline`; True when centroids are ready.

        Training a big memory (2048 lists on 49k samples at 1M clips) takes 10-30 s of CPU.
        Inside the store's lock and transaction it blocked every caption that long; here the
        sample is read through a second, read-only connection (a WAL snapshot: writers go on)
        and k-means holds no lock, so ingest and search continue while it runs.
        """
        t = self._training
        if t is None:
            t = self._training = _Training(self.db, self.ivf, self.ivf.next_gen())
        t.thread.join(max(0.0, deadline - time.perf_counter()))
        if t.thread.is_alive():
            return False
        if t.error is not None:
            self._training = None
            raise self.db.translate(t.error) from None
        return True

    def stop_training(self) -> None:
        """Stop a k-means run (the store is closing); nothing of it was written."""
        t = self._training
        if t is not None:
            t.stopping = True
            t.thread.join()
            self._training = None


def _next_work(ivf: TextIvf) -> str:
    """What the next transaction does: start, backfill, finish (the swap) or retire."""
    if ivf.retired and ivf.building is None:
        return "retire"
    if ivf.building is None:
        return "start"
    return "finish" if ivf.next_id > ivf.end_id else "backfill"


class _Training:
    """One k-means run on a snapshot of the store, in a daemon thread."""

    def __init__(self, db: StoreConnection, ivf: TextIvf, gen: int) -> None:
        self.gen = gen
        self.end_id = 0
        self.centroids: np.ndarray | None = None
        self.error: BaseException | None = None
        self.stopping = False
        self.thread = threading.Thread(
            target=self._run, args=(db, ivf), name="memory-index-train", daemon=True
        )
        self.thread.start()

    def _run(self, db: StoreConnection, ivf: TextIvf) -> None:
        try:
            conn = connect(str(db.path), check_same_thread=False, isolation_level=None, timeout=10.0)
            try:
                conn.execute("BEGIN")  # ids and vectors from one snapshot
                ids = [r[0] for r in conn.execute("SELECT id FROM items ORDER BY id").fetchall()]
                if not ids:
                    raise StoreError("memory index: nothing to train on")
                n = len(ids)
                want = min(n, ivf.sample_size(n))
                pick = np.random.default_rng(n).choice(n, want, replace=False)
                vecs = read_vectors(conn, sorted(int(ids[i]) for i in pick), db.text_dim)
                conn.execute("COMMIT")
            finally:
                conn.close()
            self.end_id = int(ids[-1])
            self.centroids = ivf.train(np.stack(list(vecs.values())), n, self.gen, stop=lambda: self.stopping)
        except TrainingStopped as e:
            self.error = e
        except BaseException as e:  # reported by the store's next index step, in the writer's thread
            self.error = e
