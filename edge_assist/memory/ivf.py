"""The approximate index of the text vectors: k-means lists kept as a sqlite-vec partition key.

A year of clips is about 1M text vectors; an exact scan of them takes ~0.7 s in sqlite-vec.
This index is the classic inverted file (IVF): the vectors are split into lists by their
nearest k-means centroid, and a search scans only the `probe` lists nearest to the query.
sqlite-vec does the storage and the scan: the lists are a `partition key` column of a
`vec0` table, so one KNN query with `list_id IN (...)` reads only those partitions, and the
level / session / end-time metadata filters (t' <= t) still apply exactly inside it. Only
the k-means (numpy) and the choice of lists are ours.

Lifecycle, all inside the store's SQLite file and transactions:
- Below `min_items` text vectors nothing exists and every search is exact (`text_vec`).
- idle time trains centroids on a sample (in a thread, on a snapshot: store_indexing),
  creates generation g's table, then backfills every item that existed at that moment in
  batches, one transaction each with its progress in `meta`; a kill resumes from the last
  committed batch.
- From the moment generation g's centroids are committed, every new vector is put in its
  nearest list in the same transaction as its item (`add`), so nothing is ever missing.
- When the backfill ends, g becomes the active index (one transaction). When the memory
  has grown `RETRAIN_GROWTH` times since g was trained, a new generation is built the same
  way beside it while g keeps answering; the swap drops g.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_assist.memory.kmeans import SAMPLE_PER_LIST, kmeans, lists_for, rows_dot
from edge_assist.memory.sqlite import sqlite_module

log = logging.getLogger(__name__)

STATE_KEY = "ivf_state"
CENTROIDS = "ivf_centroids"
# Retrain when the memory has grown this much since the lists were trained, so lists stay
# near their target size (the scan cost of one probe).
RETRAIN_GROWTH = 2.0
# Items placed per backfill transaction: ingest waits behind each one (10,000 held it 2.1 s at
# 300k items: vec0 writes each vector into its partition chunk; 2,000 keeps it well under a second)
BACKFILL_BATCH = 2000
# Partitions hold few vectors each (100-200): vec0 allocates a whole chunk per list, so small
# chunks waste less space; at 512 lists of ~80 (41k real caption vectors) a 4-list KNN took
# 0.36 ms with 64-vector chunks, 0.39 with 128, 0.48 with 256.
CHUNK_SIZE = 64
# The list size generations made before `list_size` was recorded were trained with.
OLD_LIST_SIZE = 400
# Vector chunks of a retired generation deleted per idle step (64 chunks: 64 x 64 vectors, ~6 MB of
# pages; 25 MB for generations made with 256-vector chunks).
RETIRE_CHUNKS = 64
# The distance the lists are searched with. Generations store unit vectors and use vec0's L2
# (|a-b|^2 = 2 - 2 cos on unit vectors, so the order is the cosine order): sqlite-vec's L2
# kernel is vectorised where its cosine is not, 15 % less CPU per scanned vector here.
# Generations made before (cosine) keep answering until an idle-time rebuild replaces them.
METRIC = "l2"


@dataclass(frozen=True)
class IvfSettings:
    min_items: int = 10_000  # below: exact brute force; 0: never build the index
    # Target vectors per list when training. Measured on the soak's week (41,796 real caption
    # vectors, 300 questions from the train split's templates, recall@10 against exact with ties
    # counted): 128 lists of ~330 scanned 1,840 vectors a search at recall 0.975, 512 lists of
    # ~80 scanned 447 at 0.984 (probe 4 both): the scan is what a search costs (0.6 us a vector).
    list_size: int = 100
    probe: int = 4  # lists scanned per search


def table(gen: int) -> str:
    return f"text_ivf_{int(gen)}"


def _index_chunks(conn: Any, gen: int) -> None:
    """sqlite-vec 0.1 finds a partition's chunks by `partition00` in its `_chunks` shadow table,
    which it does not index: every probed list was a scan of all chunk rows (their rowid blobs
    included): at 1M vectors (4,900 chunks) a KNN over 8 lists took 70-77 ms of CPU, 3.5-6 ms
    with this plain SQLite index on the library's own column (vec0 itself is unchanged)."""
    conn.execute(
        f"CREATE INDEX IF NOT EXISTS {table(gen)}_chunks_by_list ON {table(gen)}_chunks(partition00)"
    )


def _l2_to_cosine(d: float) -> float:
    return d * d / 2.0  # unit vectors: |a - b|^2 = 2 - 2 cos


@dataclass
class _Gen:
    gen: int
    centroids: np.ndarray  # (lists, dim), unit rows
    trained_n: int  # highest item id when trained
    metric: str = METRIC  # "cosine": made before the L2 generations, raw vectors
    list_size: int = OLD_LIST_SIZE  # the settings' list size it was trained with


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float32)
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


class TextIvf:
    """The IVF over `text_vec`; every method runs on the store's connection under its lock."""

    def __init__(self, dim: int, settings: IvfSettings) -> None:
        self.dim = dim
        self.settings = settings
        self.active: _Gen | None = None
        self.building: _Gen | None = None
        self.next_id = 0  # backfill: lowest item id of `building` not yet placed
        self.end_id = 0  # backfill: highest item id that existed when `building` was trained
        # Replaced generations still on disk, emptied in idle time (`retire_step`).
        self.retired: list[int] = []

    # -- state ---------------------------------------------------------------------------
    def load(self, conn: Any) -> None:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (STATE_KEY,)).fetchone()
        self.active = self.building = None
        self.retired = []
        if row is None:
            return
        st = json.loads(row[0])
        self.retired = [int(g) for g in st.get("retired", [])]
        if st.get("active") is not None:
            self.active = _Gen(
                int(st["active"]),
                self._centroids(conn, int(st["active"])),
                int(st["active_n"]),
                st.get("active_metric", "cosine"),
                int(st.get("active_list_size", OLD_LIST_SIZE)),
            )
        if st.get("building") is not None:
            self.building = _Gen(
                int(st["building"]),
                self._centroids(conn, int(st["building"])),
                int(st["building_n"]),
                st.get("building_metric", "cosine"),
                int(st.get("building_list_size", OLD_LIST_SIZE)),
            )
            self.next_id, self.end_id = int(st["next_id"]), int(st["end_id"])
        for g in (self.active, self.building):
            if g is not None:
                try:
                    _index_chunks(conn, g.gen)  # generations made before the index existed get it here
                except sqlite_module().Error as e:
                    # Only speed depends on it (a full disk can refuse it): search works without.
                    log.warning(
                        "memory index: cannot add the list lookup index to %s (%s); searches are slower",
                        table(g.gen),
                        e,
                    )

    def _centroids(self, conn: Any, gen: int) -> np.ndarray:
        rows = conn.execute(
            f"SELECT vector FROM {CENTROIDS} WHERE gen = ? ORDER BY list_id", (gen,)
        ).fetchall()
        return (
            np.stack([np.frombuffer(r[0], np.float32) for r in rows])
            if rows
            else np.zeros((0, self.dim), np.float32)
        )

    def _save_state(self, conn: Any) -> None:
        st: dict[str, Any] = {"active": None, "building": None, "retired": list(self.retired)}
        if self.active is not None:
            st.update(
                active=self.active.gen,
                active_n=self.active.trained_n,
                active_lists=len(self.active.centroids),
                active_metric=self.active.metric,
                active_list_size=self.active.list_size,
            )
        if self.building is not None:
            st.update(
                building=self.building.gen,
                building_n=self.building.trained_n,
                building_lists=len(self.building.centroids),
                next_id=self.next_id,
                end_id=self.end_id,
                building_metric=self.building.metric,
                building_list_size=self.building.list_size,
            )
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (STATE_KEY, json.dumps(st)))

    @property
    def ready(self) -> bool:
        # min_items = 0 turns searching through the index off; writes keep it whole for later.
        return self.active is not None and self.settings.min_items > 0

    def describe(self) -> dict[str, Any]:
        return {
            "active": None
            if self.active is None
            else {
                "lists": len(self.active.centroids),
                "trained_n": self.active.trained_n,
                "metric": self.active.metric,
            },
            "building": None
            if self.building is None
            else {"lists": len(self.building.centroids), "next_id": self.next_id, "end_id": self.end_id},
            **self.settings.__dict__,
        }

    # -- writes (inside the caller's transaction) -------------------------------------------
    def add(self, conn: Any, item_id: int, blob: bytes, level: str, session_id: str, t1: float) -> None:
        """Put one new vector in its nearest list of every live generation, in the transaction of its item."""
        if self.active is None and self.building is None:
            return
        v = np.frombuffer(blob, np.float32)
        for g in (self.active, self.building):
            if g is not None:
                self._insert(conn, g, [(item_id, v, level, session_id, t1)])

    def add_many(self, conn: Any, rows: list[tuple[int, np.ndarray, str, str, float]]) -> None:
        """`add` for a batch (bulk loads): grouped by list, so vec0 fills one partition at a time."""
        for g in (self.active, self.building):
            if g is not None and rows:
                self._insert(conn, g, rows)

    def _insert(self, conn: Any, g: _Gen, rows: list[tuple[int, np.ndarray, str, str, float]]) -> None:
        vecs = np.stack([r[1] for r in rows])
        # One caption at a time (ingest) stays in this thread; backfill batches use BLAS.
        lists = np.argmax(
            vecs @ g.centroids.T if len(rows) > 1 else rows_dot(g.centroids, vecs[0])[None], axis=1
        )
        if g.metric == "l2":
            vecs = _unit(vecs)
        # Grouped by list: vec0 then fills one partition chunk after another, not all at once.
        order = np.argsort(lists, kind="stable")
        conn.executemany(
            f"INSERT INTO {table(g.gen)}(rowid, list_id, embedding, level, session_id, t1)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                (
                    int(rows[i][0]),
                    int(lists[i]),
                    vecs[i].astype(np.float32).tobytes(),
                    rows[i][2],
                    rows[i][3],
                    float(rows[i][4]),
                )
                for i in order
            ],
        )

    def delete(self, conn: Any, item_id: int) -> None:
        for g in (self.active, self.building):
            if g is not None:
                conn.execute(f"DELETE FROM {table(g.gen)} WHERE rowid = ?", (int(item_id),))

    # -- reads --------------------------------------------------------------------------
    def lists_to_probe(self, q: np.ndarray) -> list[int]:
        assert self.active is not None
        sims = rows_dot(self.active.centroids, np.asarray(q, np.float32).reshape(-1))
        p = min(self.settings.probe, len(sims))
        return [int(i) for i in np.argpartition(-sims, p - 1)[:p]]

    def knn_sql(self, q: np.ndarray) -> tuple[str, list[int], bytes, Callable[[float], float]]:
        """What a KNN over the probed lists needs: the table, the lists, the query blob as the
        generation stores vectors, and its distance -> cosine distance. vec0 answers k per list,
        so the caller cuts to k."""
        assert self.active is not None
        lists = self.lists_to_probe(q)
        if self.active.metric == "l2":
            return table(self.active.gen), lists, _unit(q).tobytes(), _l2_to_cosine
        return table(self.active.gen), lists, np.asarray(q, np.float32).tobytes(), float

    # -- maintenance (idle time) -----------------------------------------------------------
    def sample_size(self, n_items: int) -> int:
        return SAMPLE_PER_LIST * lists_for(n_items, self.settings.list_size)

    def wants_work(self, n_items: int) -> bool:
        s = self.settings
        if s.min_items <= 0:
            return False
        if self.building is not None or self.retired:
            return True
        if self.active is None:
            return n_items >= s.min_items
        # A generation of an older format, or trained for another list size (a changed
        # `memory.ann_list_size`, or the default before), is rebuilt in idle time too; it answers meanwhile.
        return (
            n_items >= RETRAIN_GROWTH * self.active.trained_n
            or self.active.metric != METRIC
            or self.active.list_size != s.list_size
        )

    def next_gen(self) -> int:
        gens = [g.gen for g in (self.active, self.building) if g is not None]
        return max(gens) + 1 if gens else 0

    def train(
        self, sample: np.ndarray, n_items: int, gen: int, stop: Callable[[], bool] | None = None
    ) -> np.ndarray:
        """k-means centroids for generation `gen` (no store access: runs outside any lock)."""
        t = time.perf_counter()
        c = kmeans(sample, lists_for(n_items, self.settings.list_size), seed=gen, stop=stop)
        log.info(
            "memory index: trained %d lists on %d of %d vectors in %.1f s",
            len(c),
            len(sample),
            n_items,
            time.perf_counter() - t,
        )
        return c

    def start_trained(self, conn: Any, gen: int, c: np.ndarray, end_id: int) -> None:
        """Create generation `gen` with centroids `c`; items up to `end_id` are to be backfilled; the
        caller commits."""
        conn.execute(
            f"CREATE TABLE IF NOT EXISTS {CENTROIDS}(gen INTEGER, list_id INTEGER, vector BLOB NOT NULL,"
            " PRIMARY KEY(gen, list_id))"
        )
        conn.execute(f"DELETE FROM {CENTROIDS} WHERE gen = ?", (gen,))
        conn.executemany(
            f"INSERT INTO {CENTROIDS}(gen, list_id, vector) VALUES (?, ?, ?)",
            [(gen, i, c[i].tobytes()) for i in range(len(c))],
        )
        conn.execute(f"DROP TABLE IF EXISTS {table(gen)}")
        conn.execute(
            f"CREATE VIRTUAL TABLE {table(gen)} USING vec0(list_id integer partition key, "
            f"embedding float[{self.dim}], level text, session_id text, t1 float, chunk_size={CHUNK_SIZE})"
        )
        _index_chunks(conn, gen)
        # Growth is judged on item ids (they only grow), so a forget cannot trigger retraining in a loop.
        self.building = _Gen(gen, c, end_id, METRIC, self.settings.list_size)
        self.next_id, self.end_id = 0, end_id
        self._save_state(conn)

    def backfill(self, conn: Any, rows: list[tuple[int, np.ndarray, str, str, float]], upto_id: int) -> None:
        """Place existing vectors (ids up to `upto_id`) in `building`; the caller commits."""
        assert self.building is not None
        if rows:
            self._insert(conn, self.building, rows)
        self.next_id = upto_id + 1
        self._save_state(conn)

    def finish(self, conn: Any) -> None:
        """The backfill is complete: `building` answers from now on; the old generation is retired.

        Dropping it here took one transaction as long as deleting all its vectors (2.4 s for a
        184k-vector generation at 300k items, bench_memory_scale), which ingest waited behind;
        retired, it is emptied a batch at a time in later idle steps (`retire_step`).
        """
        assert self.building is not None
        old = self.active
        self.active, self.building = self.building, None
        if old is not None:
            self.retired.append(old.gen)
            conn.execute(f"DELETE FROM {CENTROIDS} WHERE gen = ?", (old.gen,))
        self._save_state(conn)
        log.info(
            "memory index: generation %d with %d lists is active", self.active.gen, len(self.active.centroids)
        )

    def retire_step(self, conn: Any) -> None:
        """Empty the oldest retired generation by one batch, or drop it once empty; the caller commits.

        The bulk of a generation is its vector chunks; they are deleted a few at a time straight
        from vec0's shadow tables (sqlite-vec 0.1 layout: nothing reads a retired table again).
        If the layout differs, the table is dropped whole, as before.
        """
        name = table(self.retired[0])
        left = 0
        try:
            for shadow, batch in (
                ("_vector_chunks00", RETIRE_CHUNKS),
                ("_chunks", RETIRE_CHUNKS),
                ("_rowids", RETIRE_CHUNKS * CHUNK_SIZE),
            ):
                left += conn.execute(
                    f"DELETE FROM {name}{shadow} WHERE rowid IN (SELECT rowid FROM {name}{shadow} LIMIT ?)",
                    (batch,),
                ).rowcount
        except sqlite_module().OperationalError:
            left = 0  # not the layout we know: drop it whole
        if left == 0:
            conn.execute(f"DROP TABLE IF EXISTS {name}")
            self.retired.pop(0)
        self._save_state(conn)

    def drop_retired(self, conn: Any) -> None:
        """Drop every retired generation now (forgetting: no copy of a forgotten vector may stay)."""
        for gen in self.retired:
            conn.execute(f"DROP TABLE IF EXISTS {table(gen)}")
        if self.retired:
            self.retired = []
            self._save_state(conn)
