"""The SQLite side of memory: one database file per wearer, the source of truth.

Owns the schema and every SQL statement: the three text levels (clip captions, activity
and session summaries) in one `items` table, their vectors in a sqlite-vec `vec0` table
with level / session / end time as metadata columns (so a KNN search is restricted to
t' <= t and to levels inside sqlite-vec itself), the keyframe rows and their vectors, the
per-session roll-up windows, and the encoder names and dimensions the vectors were made
with. The store knows nothing of models or of the graph; it is plain and synchronous,
guarded by one lock so the writer thread and retrieval threads can share it.

Failure modes are mapped to one-line `StoreError`s: a file that is not an edge-assist
store (`store_check`) or fails `PRAGMA quick_check` is reported at open and never replaced; SQLITE_FULL (a full disk or
`memory.max_store_mb`) aborts only the current transaction, so everything already
committed stays.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.errors import EdgeAssistError, ModelError, StoreError
from edge_assist.memory import search
from edge_assist.memory.api import LEVELS, CaptionRecord, KeyframeHit, TextHit, sessions_before
from edge_assist.memory.ivf import BACKFILL_BATCH, IvfSettings, TextIvf
from edge_assist.memory.store_check import creating_path, read_store_meta, remove_leftovers
from edge_assist.sqlite import connect, sqlite_module

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions(
  session_id TEXT PRIMARY KEY,
  clip_s REAL NOT NULL, activity_s REAL NOT NULL, session_s REAL NOT NULL,
  first_wall REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS items(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  level TEXT NOT NULL CHECK(level IN ('clip', 'activity', 'session')),
  session_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  t0 REAL NOT NULL,
  t1 REAL NOT NULL,
  text TEXT NOT NULL,
  clips TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  partial INTEGER NOT NULL DEFAULT 0,
  entities TEXT,
  graph_done INTEGER NOT NULL DEFAULT 0,
  written_wall REAL NOT NULL,
  UNIQUE(session_id, level, idx)
);
CREATE INDEX IF NOT EXISTS items_by_time ON items(session_id, level, t1);
CREATE INDEX IF NOT EXISTS items_graph_pending ON items(graph_done) WHERE graph_done = 0;
CREATE TABLE IF NOT EXISTS keyframes(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  clip_index INTEGER NOT NULL,
  k INTEGER NOT NULL,
  stream_t REAL NOT NULL,
  t1 REAL NOT NULL,
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  written_wall REAL NOT NULL,
  UNIQUE(session_id, clip_index, k)
);
"""


class BadCaptionError(EdgeAssistError):
    """A caption that cannot be stored (empty text, t1 < t0, negative index)."""


@dataclass(frozen=True)
class Windows:
    """The roll-up windows a session was started with (seconds); fixed for its lifetime."""

    clip_s: float
    activity_s: float
    session_s: float


@dataclass(frozen=True)
class Item:
    id: int
    level: str
    session_id: str
    idx: int
    t0: float
    t1: float
    text: str
    clips: tuple[int, ...]
    partial: bool


@dataclass(frozen=True)
class KeyframeRow:
    k: int
    stream_t: float
    path: str
    bytes: int
    vector: np.ndarray | None


def _vec(v: np.ndarray, dim: int, what: str) -> bytes:
    a = np.asarray(v, dtype=np.float32).reshape(-1)
    if a.shape[0] != dim:
        raise ModelError(f"{what} vector has {a.shape[0]} dimensions, the store expects {dim}")
    return a.tobytes()


class MemoryStore:
    """Captions, summaries, keyframe rows and all vectors in one SQLite file."""

    def __init__(self, path: Path, conn: Any, text_dim: int, image_dim: int | None) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.RLock()
        self.text_dim = text_dim
        self.image_dim = image_dim
        self._errors: tuple[type[BaseException], ...] = (sqlite_module().Error,)
        self.ivf: TextIvf | None = None
        self.session_vectors = search.SessionVectors()

    # -- opening -----------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: Path,
        *,
        text_encoder: str,
        text_dim: int,
        image_encoder: str | None = None,
        image_dim: int | None = None,
        max_store_mb: float = 0.0,
        ivf: IvfSettings | None = None,
    ) -> MemoryStore:
        """Open or create the store; check it is sound and made with these encoders.

        A mismatch or a corrupt file raises before anything is written.
        """
        path = Path(path)
        if path.exists():
            # Refuses anything that is not ours before a byte is written (store_check).
            meta = read_store_meta(path)
        else:
            cls._create(path, text_encoder, text_dim, image_encoder, image_dim)
            meta = read_store_meta(path)
        mod = sqlite_module()
        try:
            conn = connect(str(path), check_same_thread=False, isolation_level=None, timeout=10.0)
        except mod.Error as e:
            raise StoreError(f"cannot open memory store {path}: {e}") from None
        try:
            row = conn.execute("PRAGMA quick_check").fetchone()
            if row is None or row[0] != "ok":
                raise StoreError(
                    f"memory store {path} is corrupt ({row[0] if row else 'no answer'}); it was left untouched: "
                    "move it aside and restore a backup, or start over with another general.wearer"
                )
            _check_models(path, meta, text_encoder, text_dim, image_encoder, image_dim)
            conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a committed caption survives a power cut too, not only a kill.
            conn.execute("PRAGMA synchronous=FULL")
            # Forgetting must really delete: freed pages are zeroed, not left readable.
            conn.execute("PRAGMA secure_delete=ON")
            if max_store_mb > 0:
                page = conn.execute("PRAGMA page_size").fetchone()[0]
                conn.execute(f"PRAGMA max_page_count={max(16, int(max_store_mb * 1024 * 1024 / page))}")
            store = cls(path, conn, text_dim, None)
            store._init_schema(text_encoder, text_dim, image_encoder, image_dim)
            store.ivf = TextIvf(text_dim, ivf or IvfSettings())
            with store._lock:
                store.ivf.load(conn)
            return store
        except mod.DatabaseError as e:
            conn.close()
            if "not a database" in str(e) or "malformed" in str(e):
                raise StoreError(
                    f"memory store {path} is corrupt ({e}); it was left untouched: move it aside and restore a backup"
                ) from None
            raise StoreError(f"cannot open memory store {path}: {e}") from None
        except BaseException:
            conn.close()
            raise

    @classmethod
    def _create(
        cls, path: Path, text_encoder: str, text_dim: int, image_encoder: str | None, image_dim: int | None
    ) -> None:
        """Build a new store beside `path` and rename it into place once its schema is committed."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create the memory directory {path.parent}: {e.strerror}") from None
        remove_leftovers(path)
        tmp = creating_path(path)
        mod = sqlite_module()
        try:
            conn = connect(str(tmp), check_same_thread=False, isolation_level=None, timeout=10.0)
        except mod.Error as e:
            raise StoreError(f"cannot create memory store {path}: {e}") from None
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            cls(tmp, conn, text_dim, None)._init_schema(text_encoder, text_dim, image_encoder, image_dim)
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except mod.Error as e:
            raise StoreError(f"cannot create memory store {path}: {e}") from None
        finally:
            conn.close()  # the last connection closing removes the -wal file
        os.replace(tmp, path)
        remove_leftovers(path)

    def _init_schema(self, text_encoder: str, text_dim: int, image_encoder: str | None, image_dim: int | None) -> None:
        with self.transaction() as c:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    c.execute(statement)
            meta = dict(c.execute("SELECT key, value FROM meta").fetchall())
            if not meta:
                c.executemany(
                    "INSERT INTO meta(key, value) VALUES (?, ?)",
                    [
                        ("schema_version", SCHEMA_VERSION),
                        ("text_encoder", text_encoder),
                        ("text_dim", str(text_dim)),
                        ("created_wall", repr(time.time())),
                    ],
                )
                c.execute(
                    f"CREATE VIRTUAL TABLE IF NOT EXISTS text_vec USING vec0("
                    f"embedding float[{int(text_dim)}] distance_metric=cosine, "
                    "level text, session_id text, t1 float)"
                )
            if image_encoder and image_dim and "image_encoder" not in meta:
                c.executemany(
                    "INSERT INTO meta(key, value) VALUES (?, ?)",
                    [("image_encoder", image_encoder), ("image_dim", str(image_dim))],
                )
                c.execute(
                    f"CREATE VIRTUAL TABLE IF NOT EXISTS keyframe_vec USING vec0("
                    f"embedding float[{int(image_dim)}] distance_metric=cosine, session_id text, t1 float)"
                )
                meta["image_dim"] = str(image_dim)
            self.image_dim = int(meta["image_dim"]) if "image_dim" in meta else None

    def close(self) -> None:
        with self._lock:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except self._errors:
                pass  # a full disk may refuse the checkpoint; the WAL stays valid and replays next open
            self._conn.close()

    # -- transactions ------------------------------------------------------------------
    class _Tx:
        def __init__(self, store: MemoryStore) -> None:
            self.store = store

        def __enter__(self) -> Any:
            self.store._lock.acquire()
            try:
                self.store._conn.execute("BEGIN IMMEDIATE")
            except BaseException as e:
                self.store._lock.release()
                raise self.store._translate(e) from None
            return self.store._conn

        def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
            conn = self.store._conn
            try:
                if et is None:
                    try:
                        conn.execute("COMMIT")
                    except self.store._errors as e:
                        try:
                            conn.execute("ROLLBACK")
                        except self.store._errors:
                            pass  # a failed COMMIT (disk full) may have rolled back already
                        raise self.store._translate(e) from None
                else:
                    try:
                        conn.execute("ROLLBACK")
                    except self.store._errors:
                        pass  # SQLite already rolled back (SQLITE_FULL does); nothing half-written stays
                    if isinstance(ev, self.store._errors):
                        raise self.store._translate(ev) from None
            finally:
                self.store._lock.release()

    def transaction(self) -> MemoryStore._Tx:
        """`with store.transaction() as conn:` one atomic write; SQLite errors become StoreError."""
        return MemoryStore._Tx(self)

    def _translate(self, e: BaseException) -> BaseException:
        msg = str(e)
        if isinstance(e, EdgeAssistError) or not isinstance(e, self._errors):
            return e
        if "full" in msg or ("sqlite-vec" in msg and self._near_full()):
            return StoreError(
                f"memory store {self.path} is full ({msg}); ingest stopped and nothing already stored was lost: "
                "free disk space or raise memory.max_store_mb, then restart to resume"
            )
        if "disk I/O error" in msg:
            # EFBIG, ENOSPC on the WAL or a failing card: the same advice, nothing committed is lost.
            return StoreError(
                f"memory store {self.path} cannot be written ({msg}): the disk is full or failing; ingest stopped "
                "and nothing already stored was lost: free disk space or check the disk, then restart to resume"
            )
        if "locked" in msg or "busy" in msg:
            return StoreError(f"memory store {self.path} is busy ({msg}); is another edge-assist using this wearer?")
        return StoreError(f"memory store {self.path} failed: {msg}")

    def _near_full(self) -> bool:
        """sqlite-vec reports SQLITE_FULL as its own error: check the cap and the disk ourselves."""
        import shutil

        try:
            pages, cap, size = (self._conn.execute(f"PRAGMA {p}").fetchone()[0]
                                for p in ("page_count", "max_page_count", "page_size"))
            # vec0 grows by whole chunks (1024 vectors); one more chunk must fit.
            chunk = 1024 * 4 * max(self.text_dim, self.image_dim or 0)
            free = shutil.disk_usage(self.path.parent).free
        except (self._errors + (OSError,)):
            return False
        return (cap - pages) * size < chunk + 64 * size or free < chunk + (1 << 20)

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        with self._lock:
            try:
                return list(self._conn.execute(sql, tuple(args)).fetchall())
            except self._errors as e:
                raise self._translate(e) from None

    # -- meta and sessions -------------------------------------------------------------
    def meta(self) -> dict[str, str]:
        return dict(self._read("SELECT key, value FROM meta"))

    def set_meta(self, key: str, value: str | None) -> None:
        with self.transaction() as c:
            if value is None:
                c.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def session_windows(self, session_id: str, default: Windows) -> Windows:
        """The windows a session was started with; a new session takes `default`.

        Fixed per session so a config change never re-cuts windows already summarised.
        """
        rows = self._read("SELECT clip_s, activity_s, session_s FROM sessions WHERE session_id = ?", (session_id,))
        if rows:
            return Windows(*rows[0])
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO sessions(session_id, clip_s, activity_s, session_s, first_wall) VALUES (?,?,?,?,?)",
                (session_id, default.clip_s, default.activity_s, default.session_s, _session_start_wall(c)),
            )
        return default

    def sessions(self) -> list[str]:
        return [r[0] for r in self._read("SELECT session_id FROM sessions ORDER BY first_wall, session_id")]

    # -- writes ------------------------------------------------------------------------
    def has_clip(self, session_id: str, clip_index: int) -> bool:
        return bool(
            self._read("SELECT 1 FROM items WHERE session_id = ? AND level = 'clip' AND idx = ?", (session_id, clip_index))
        )

    def add_clip(
        self,
        *,
        session_id: str,
        clip_index: int,
        t0: float,
        t1: float,
        text: str,
        source: str,
        vector: np.ndarray,
        keyframes: Sequence[KeyframeRow] = (),
        extract_entities: bool = True,
    ) -> bool:
        """Store one caption with its vector and keyframes atomically. False if it was already stored."""
        blob = _vec(vector, self.text_dim, "text")
        with self.transaction() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO items(level, session_id, idx, t0, t1, text, clips, source, entities, graph_done,"
                " written_wall) VALUES ('clip', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id, clip_index, t0, t1, text, json.dumps([clip_index]), source,
                    None if extract_entities else "null", 0 if extract_entities else 1, time.time(),
                ),
            )
            if cur.rowcount == 0:
                return False
            item_id = cur.lastrowid
            c.execute(
                "INSERT INTO text_vec(rowid, embedding, level, session_id, t1) VALUES (?, ?, 'clip', ?, ?)",
                (item_id, blob, session_id, t1),
            )
            self._index_add(c, item_id, blob, "clip", session_id, t1)
            for kf in keyframes:
                kcur = c.execute(
                    "INSERT OR IGNORE INTO keyframes(session_id, clip_index, k, stream_t, t1, path, bytes, written_wall)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (session_id, clip_index, kf.k, kf.stream_t, t1, kf.path, kf.bytes, time.time()),
                )
                if kf.vector is not None and self.image_dim is not None and kcur.rowcount:
                    c.execute(
                        "INSERT INTO keyframe_vec(rowid, embedding, session_id, t1) VALUES (?, ?, ?, ?)",
                        (kcur.lastrowid, _vec(kf.vector, self.image_dim, "keyframe"), session_id, t1),
                    )
        self._committed(session_id, [(item_id, "clip", t1, blob)])
        return True

    def add_clips(
        self, rows: Sequence[tuple[str, int, float, float, str, np.ndarray]], *, windows: Windows, source: str = "bulk"
    ) -> int:
        """Many (session, clip index, t0, t1, text, vector) at once, in one transaction, without entity
        extraction: bulk loads (benchmarks, soak fills, imports). Returns how many were new."""
        for sid in dict.fromkeys(r[0] for r in rows):
            self.session_windows(sid, windows)
        new: list[tuple[int, np.ndarray, str, str, float]] = []
        with self.transaction() as c:
            for sid, idx, t0, t1, text, vec in rows:
                blob = _vec(vec, self.text_dim, "text")
                cur = c.execute(
                    "INSERT OR IGNORE INTO items(level, session_id, idx, t0, t1, text, clips, source, entities, graph_done,"
                    " written_wall) VALUES ('clip', ?, ?, ?, ?, ?, ?, ?, 'null', 1, ?)",
                    (sid, idx, t0, t1, text, json.dumps([idx]), source, time.time()),
                )
                if cur.rowcount:
                    c.execute("INSERT INTO text_vec(rowid, embedding, level, session_id, t1) VALUES (?, ?, 'clip', ?, ?)",
                              (cur.lastrowid, blob, sid, t1))
                    new.append((int(cur.lastrowid), np.frombuffer(blob, np.float32), "clip", sid, float(t1)))
            if self.ivf is not None:
                self.ivf.add_many(c, new)
        with self._lock:
            for iid, v, lv, sid, t1 in new:
                self.session_vectors.added(sid, iid, lv, t1, v)
        return len(new)

    def add_summary(
        self,
        *,
        level: str,
        session_id: str,
        window_index: int,
        t0: float,
        t1: float,
        text: str,
        clips: Sequence[int],
        source: str,
        partial: bool,
        vector: np.ndarray,
    ) -> bool:
        """Store one summary once; False (and nothing changed) if its window already has one."""
        if level not in ("activity", "session"):
            raise ValueError(f"not a summary level: {level}")
        blob = _vec(vector, self.text_dim, "text")
        with self.transaction() as c:
            cur = c.execute(
                "INSERT OR IGNORE INTO items(level, session_id, idx, t0, t1, text, clips, source, partial, entities,"
                " graph_done, written_wall) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'null', 1, ?)",
                (level, session_id, window_index, t0, t1, text, json.dumps(sorted(set(clips))), source,
                 int(partial), time.time()),
            )
            if cur.rowcount == 0:
                return False
            c.execute(
                "INSERT INTO text_vec(rowid, embedding, level, session_id, t1) VALUES (?, ?, ?, ?, ?)",
                (cur.lastrowid, blob, level, session_id, t1),
            )
            self._index_add(c, cur.lastrowid, blob, level, session_id, t1)
            item_id = cur.lastrowid
        self._committed(session_id, [(item_id, level, t1, blob)])
        return True

    def set_entities(self, session_id: str, clip_index: int, entities: dict[str, Any]) -> None:
        with self.transaction() as c:
            c.execute(
                "UPDATE items SET entities = ? WHERE session_id = ? AND level = 'clip' AND idx = ?",
                (json.dumps(entities, sort_keys=True), session_id, clip_index),
            )

    def mark_graph_done(self, session_id: str, clip_index: int) -> None:
        with self.transaction() as c:
            c.execute(
                "UPDATE items SET graph_done = 1 WHERE session_id = ? AND level = 'clip' AND idx = ?",
                (session_id, clip_index),
            )

    def reset_graph_flags(self) -> int:
        """Mark every extracted caption as not yet in the graph (the graph was lost or is new)."""
        with self.transaction() as c:
            return int(
                c.execute(
                    "UPDATE items SET graph_done = 0 WHERE level = 'clip' AND entities IS NOT NULL AND entities != 'null'"
                ).rowcount
            )

    def pending_graph(self) -> list[tuple[Item, dict[str, Any] | None]]:
        """Captions whose graph update is not known to be done, oldest first.

        A None extraction means the LLM has not run on it yet.
        """
        rows = self._read(
            f"SELECT {_ITEM_COLS}, entities FROM items WHERE graph_done = 0 AND level = 'clip' ORDER BY id"
        )
        return [(_item(r[:-1]), None if r[-1] is None else json.loads(r[-1])) for r in rows]

    # -- the IVF index (see ivf.py) ------------------------------------------------------
    def _index_add(self, c: Any, item_id: int, blob: bytes, level: str, session_id: str, t1: float) -> None:
        if self.ivf is not None:
            self.ivf.add(c, item_id, blob, level, session_id, t1)

    def _committed(self, session_id: str, rows: Sequence[tuple[int, str, float, bytes]]) -> None:
        with self._lock:
            for iid, level, t1, blob in rows:
                self.session_vectors.added(session_id, iid, level, t1, np.frombuffer(blob, np.float32))

    def _vectors(self, c: Any, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored text vectors of these item ids (the index reads them to train and backfill)."""
        if len(ids) > 2000:
            fast = _chunk_vectors(c, ids, self.text_dim)
            if fast is not None:
                return fast
        out: dict[int, np.ndarray] = {}
        # vec0 answers a rowid lookup in ~0.1 ms: fine for a few thousand, slow for a million.
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            for rid, emb in c.execute(
                f"SELECT rowid, embedding FROM text_vec WHERE rowid IN ({','.join('?' * len(part))})", list(part)
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
            try:
                with self.transaction() as c:
                    if ivf.building is None:
                        ids = [r[0] for r in c.execute("SELECT id FROM items ORDER BY id").fetchall()]
                        n = len(ids)
                        want = min(n, ivf.sample_size(n))
                        pick = np.random.default_rng(len(ids)).choice(len(ids), want, replace=False)
                        vecs = self._vectors(c, sorted(int(ids[i]) for i in pick))
                        ivf.start(c, np.stack(list(vecs.values())), n, ids[-1])
                    elif ivf.next_id > ivf.end_id:
                        ivf.finish(c)
                    else:
                        rows = c.execute(
                            "SELECT id, level, session_id, t1 FROM items WHERE id >= ? AND id <= ? ORDER BY id LIMIT ?",
                            (ivf.next_id, ivf.end_id, BACKFILL_BATCH),
                        ).fetchall()
                        vecs = self._vectors(c, [r[0] for r in rows])
                        upto = rows[-1][0] if len(rows) == BACKFILL_BATCH else ivf.end_id
                        ivf.backfill(c, [(r[0], vecs[r[0]], r[1], r[2], r[3]) for r in rows if r[0] in vecs], upto)
            except BaseException:
                # The transaction rolled back: the index state is what SQLite holds, not what we changed.
                with self._lock:
                    ivf.load(self._conn)
                raise
            if time.perf_counter() >= deadline:
                return ivf.wants_work(self._items_written())

    # -- reads -------------------------------------------------------------------------
    def clip_items(self, session_id: str, *, t1_after: float = float("-inf"), t1_upto: float = float("inf")) -> list[Item]:
        rows = self._read(
            f"SELECT {_ITEM_COLS} FROM items WHERE session_id = ? AND level = 'clip' AND t1 > ? AND t1 <= ?"
            " ORDER BY t1, idx",
            (session_id, t1_after, t1_upto),
        )
        return [_item(r) for r in rows]

    def level_items(self, level: str, *, before_t: float = float("inf"), session_id: str | None = None) -> list[Item]:
        sql = f"SELECT {_ITEM_COLS} FROM items WHERE level = ? AND t1 <= ?"
        args: list[Any] = [level, before_t]
        if session_id is not None:
            sql += " AND session_id = ?"
            args.append(session_id)
        return [_item(r) for r in self._read(sql + " ORDER BY session_id, t1, idx", args)]

    def window_indices(self, session_id: str, level: str) -> set[int]:
        return {r[0] for r in self._read("SELECT idx FROM items WHERE session_id = ? AND level = ?", (session_id, level))}

    def frontier(self, session_id: str) -> float | None:
        """The latest clip end seen in a session: windows ending before it are full."""
        rows = self._read("SELECT max(t1) FROM items WHERE session_id = ? AND level = 'clip'", (session_id,))
        return None if rows[0][0] is None else float(rows[0][0])

    def next_clip_index(self, session_id: str) -> int:
        rows = self._read("SELECT max(idx) FROM items WHERE session_id = ? AND level = 'clip'", (session_id,))
        return 0 if rows[0][0] is None else int(rows[0][0]) + 1

    def captions(self, session_id: str, clip_indices: Sequence[int]) -> list[CaptionRecord]:
        if not clip_indices:
            return []
        marks = ",".join("?" * len(clip_indices))
        rows = self._read(
            f"SELECT idx, t0, t1, text FROM items WHERE session_id = ? AND level = 'clip' AND idx IN ({marks}) ORDER BY idx",
            [session_id, *map(int, clip_indices)],
        )
        paths = self._keyframe_paths(session_id, [r[0] for r in rows])
        return [CaptionRecord(session_id, r[0], r[1], r[2], r[3], paths.get(r[0], ())) for r in rows]

    def recent_captions(self, session_id: str, *, before_t: float, n: int) -> list[CaptionRecord]:
        rows = self._read(
            "SELECT idx, t0, t1, text FROM items WHERE session_id = ? AND level = 'clip' AND t1 <= ?"
            " ORDER BY t1 DESC, idx DESC LIMIT ?",
            (session_id, before_t, max(0, n)),
        )
        rows.reverse()
        paths = self._keyframe_paths(session_id, [r[0] for r in rows])
        return [CaptionRecord(session_id, r[0], r[1], r[2], r[3], paths.get(r[0], ())) for r in rows]

    def _keyframe_paths(self, session_id: str, clip_indices: Sequence[int]) -> dict[int, tuple[str, ...]]:
        if not clip_indices:
            return {}
        marks = ",".join("?" * len(clip_indices))
        out: dict[int, list[str]] = {}
        for idx, path in self._read(
            f"SELECT clip_index, path FROM keyframes WHERE session_id = ? AND clip_index IN ({marks}) AND path != ''"
            " ORDER BY clip_index, k",
            [session_id, *clip_indices],
        ):
            out.setdefault(idx, []).append(path)
        return {k: tuple(v) for k, v in out.items()}

    def keyframe_paths(self, session_id: str, clip_index: int) -> tuple[str, ...]:
        return self._keyframe_paths(session_id, [clip_index]).get(clip_index, ())

    def search_text(
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
        Exact below `memory.ann_min_items` rows in scope, through the IVF index above (`search`)."""
        return search.text_knn(self, _vec(vector, self.text_dim, "query"), k=k, before_t=before_t, levels=levels,
                               session_id=session_id, earlier_sessions=earlier_sessions)

    def search_keyframes(
        self,
        vector: np.ndarray,
        *,
        k: int,
        before_t: float,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[KeyframeHit]:
        if self.image_dim is None or k <= 0:
            return []
        return search.keyframe_knn(self, _vec(vector, self.image_dim, "query"), k=k, before_t=before_t,
                                   session_id=session_id, earlier_sessions=earlier_sessions)

    def count_items(self, session_id: str) -> int:
        return int(self._read("SELECT count(*) FROM items WHERE session_id = ?", (session_id,))[0][0])

    def _items_written(self) -> int:
        """Items ever written (ids only grow): O(log n), cheap enough to check after every caption."""
        return int(self._read("SELECT coalesce(max(id), 0) FROM items")[0][0])

    def session_starts(self) -> dict[str, float]:
        """Wall-clock time each session began (its first stored clip), oldest first."""
        return {str(r[0]): float(r[1]) for r in self._read("SELECT session_id, first_wall FROM sessions ORDER BY first_wall, session_id")}

    def earlier_sessions(self, session_id: str) -> list[str]:
        """Sessions that began before `session_id` did (all of them if it has not begun yet)."""
        return sessions_before(self.session_starts(), session_id)

    # -- retention, forgetting, stats, export ------------------------------------------
    def expired_keyframes(self, older_than_wall: float) -> list[tuple[int, str]]:
        return [(r[0], r[1]) for r in self._read(
            "SELECT id, path FROM keyframes WHERE path != '' AND written_wall < ?", (older_than_wall,)
        )]

    def clear_keyframe_paths(self, ids: Sequence[int]) -> None:
        """The JPEG is gone; its vector stays so a visual hit still maps to a clip."""
        with self.transaction() as c:
            c.executemany("UPDATE keyframes SET path = '', bytes = 0 WHERE id = ?", [(i,) for i in ids])

    def forget_before(self, cutoff_wall: float, tombstone_key: str) -> tuple[list[tuple[str, int]], list[str]]:
        """Delete everything written before `cutoff_wall` (epoch seconds), in one transaction.

        A summary that covers any forgotten clip goes too, since its prose still tells it.
        Returns the forgotten (session, clip index) pairs and keyframe file paths, for the
        graph and the file system; the pairs are also left under `tombstone_key` in `meta`
        until the graph has forgotten them too.
        """
        with self.transaction() as c:
            ids, gone_clips = _forget_selection(c, cutoff_wall)
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
            if gone_clips:
                # In the same transaction: the graph side of this deletion survives a kill.
                row = c.execute("SELECT value FROM meta WHERE key = ?", (tombstone_key,)).fetchone()
                pending = {(s, int(i)) for s, i in json.loads(row[0])} if row else set()
                c.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                    (tombstone_key, json.dumps(sorted(pending | gone_clips))),
                )
            self.session_vectors.clear()  # still under the lock: rebuilt from the store on the next search
        return sorted(gone_clips), files

    def forgettable(self, cutoff_wall: float) -> tuple[list[tuple[str, int]], list[str], list[str]]:
        """What `forget_before(cutoff_wall)` would delete, without deleting: clip pairs, the
        texts (captions and summaries) and the sessions left with nothing, so the logs can
        forget them first."""
        with self._lock:
            ids, gone_clips = _forget_selection(self._conn, cutoff_wall)
            texts = [r[0] for iid in sorted(ids) for r in self._conn.execute("SELECT text FROM items WHERE id = ?", (iid,))]
            emptied = [
                sid for sid in sorted({s for s, _ in gone_clips})
                if all(r[0] in ids for r in self._conn.execute("SELECT id FROM items WHERE session_id = ?", (sid,)))
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

    def stats(self) -> dict[str, Any]:
        counts = {lv: 0 for lv in LEVELS}
        chars = {lv: 0 for lv in LEVELS}
        for lv, n, ch in self._read("SELECT level, count(*), coalesce(sum(length(text)), 0) FROM items GROUP BY level"):
            counts[lv], chars[lv] = n, ch
        kf = self._read("SELECT count(*), coalesce(sum(bytes), 0), coalesce(sum(path != ''), 0) FROM keyframes")[0]
        pending = self._read("SELECT count(*) FROM items WHERE graph_done = 0")[0][0]
        files = [self.path, Path(f"{self.path}-wal")]
        size = sum(p.stat().st_size for p in files if p.exists())
        return {
            "path": str(self.path),
            "bytes": size,
            "sessions": len(self.sessions()),
            "items": counts,
            "text_bytes": chars,
            "text_vector_bytes": {lv: counts[lv] * self.text_dim * 4 for lv in LEVELS},
            "keyframes": {"count": kf[0], "files": kf[2], "jpeg_bytes": kf[1],
                          "vector_bytes": kf[0] * 4 * (self.image_dim or 0)},
            "graph_pending": pending,
            "text_index": self.ivf.describe() if self.ivf is not None else None,
            "meta": self.meta(),
        }

    def export_rows(self) -> Iterator[dict[str, Any]]:
        """Everything the wearer's memory holds, one JSON-ready dict a row (vectors excluded)."""
        for r in self._read(f"SELECT {_ITEM_COLS}, entities, source, written_wall FROM items ORDER BY session_id, level, idx"):
            it = _item(r[:9])
            yield {
                "type": it.level, "session_id": it.session_id, "index": it.idx, "t0": it.t0, "t1": it.t1,
                "text": it.text, "clips": list(it.clips), "partial": it.partial,
                "entities": json.loads(r[9]) if r[9] else None, "source": r[10], "written_wall": r[11],
            }
        for r in self._read(
            "SELECT session_id, clip_index, k, stream_t, path, bytes FROM keyframes ORDER BY session_id, clip_index, k"
        ):
            yield {"type": "keyframe", "session_id": r[0], "clip_index": r[1], "k": r[2], "stream_t": r[3],
                   "path": r[4], "bytes": r[5]}


_ITEM_COLS = "id, level, session_id, idx, t0, t1, text, clips, partial"


def _forget_selection(c: Any, cutoff_wall: float) -> tuple[set[int], set[tuple[str, int]]]:
    """Item ids to delete and the forgotten (session, clip index) pairs: every clip written
    before the cutoff, every summary written before it or covering a forgotten clip."""
    gone = c.execute(
        "SELECT id, session_id, idx FROM items WHERE level = 'clip' AND written_wall < ?", (cutoff_wall,)
    ).fetchall()
    gone_clips = {(s, i) for _, s, i in gone}
    ids = {r[0] for r in gone}
    for iid, sid, clips in c.execute("SELECT id, session_id, clips FROM items WHERE level != 'clip'").fetchall():
        if any((sid, ci) in gone_clips for ci in json.loads(clips)):
            ids.add(iid)
    ids.update(r[0] for r in c.execute(
        "SELECT id FROM items WHERE level != 'clip' AND written_wall < ?", (cutoff_wall,)
    ).fetchall())
    return ids, gone_clips


def _scope_sql(session_id: str | None) -> str:
    return " AND v.t1 <= ?" + (" AND v.session_id = ?" if session_id is not None else "")
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
        chunks = c.execute("SELECT chunk_id, size, validity, rowids FROM text_vec_chunks ORDER BY chunk_id").fetchall()
        for cid, size, validity, rowids in chunks:
            rid = np.frombuffer(rowids, np.int64)
            valid = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")[: int(size)].astype(bool)
            if len(rid) != int(size):
                return None
            live = np.flatnonzero(valid & (rid >= lo) & (rid <= hi))
            live = live[np.isin(rid[live], want)]
            if not len(live):
                continue
            blob = c.execute("SELECT vectors FROM text_vec_vector_chunks00 WHERE rowid = ?", (cid,)).fetchone()
            if blob is None or len(blob[0]) != int(size) * dim * 4:
                return None
            vecs = np.frombuffer(blob[0], np.float32).reshape(int(size), dim)
            check = c.execute("SELECT embedding FROM text_vec WHERE rowid = ?", (int(rid[live[0]]),)).fetchone()
            if check is None or np.frombuffer(check[0], np.float32).tobytes() != vecs[live[0]].tobytes():
                return None
            for j in live:
                out[int(rid[j])] = vecs[j].copy()
    except sqlite_module().Error:
        return None
    return out


def _item(r: Sequence[Any]) -> Item:
    return Item(r[0], r[1], r[2], r[3], r[4], r[5], r[6], tuple(json.loads(r[7])), bool(r[8]))


def _check_models(
    path: Path, meta: dict[str, str], text_encoder: str, text_dim: int, image_encoder: str | None, image_dim: int | None
) -> None:
    if not meta:
        return
    if meta.get("schema_version") != SCHEMA_VERSION:
        raise StoreError(
            f"memory store {path} has schema version {meta.get('schema_version')}, this edge-assist reads "
            f"{SCHEMA_VERSION}; use the edge-assist that wrote it"
        )
    stored, sdim = meta.get("text_encoder"), int(meta.get("text_dim", "0"))
    if stored != text_encoder or sdim != text_dim:
        raise ModelError(
            f"memory store {path} holds vectors of text encoder {stored} ({sdim}-d) but {text_encoder} "
            f"({text_dim}-d) is configured; set models.text_encoder = \"{stored}\" or use another general.wearer"
        )
    if image_encoder and "image_encoder" in meta:
        si, sidim = meta["image_encoder"], int(meta.get("image_dim", "0"))
        if si != image_encoder or sidim != image_dim:
            raise ModelError(
                f"memory store {path} holds keyframe vectors of {si} ({sidim}-d) but {image_encoder} "
                f"({image_dim}-d) is configured; set models.image_encoder = \"{si}\" or use another general.wearer"
            )


def file_bytes(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def integrity_rows(store: MemoryStore) -> dict[str, Any]:
    """What the crash-consistency check compares (kept apart from the store's search code).

    Clip rows with their graph flag, duplicate (session, level, index) keys, and the text
    vectors whose row is missing or rows without a vector.
    """
    return {
        # in_graph: applied to the graph (a clip stored without entity extraction never is).
        "clips": [(str(s), int(i), int(g)) for s, i, g in store._read(
            "SELECT session_id, idx, graph_done AND coalesce(entities, '') != 'null' AS in_graph FROM items "
            "WHERE level = 'clip' ORDER BY session_id, idx")],
        "duplicates": store._read(
            "SELECT session_id, level, idx, count(*) FROM items GROUP BY session_id, level, idx HAVING count(*) > 1"),
        "items_without_vector": store._read(
            "SELECT count(*) FROM items WHERE id NOT IN (SELECT rowid FROM text_vec)")[0][0],
        "vectors_without_item": store._read(
            "SELECT count(*) FROM text_vec WHERE rowid NOT IN (SELECT id FROM items)")[0][0],
        "levels": dict(store._read("SELECT level, count(*) FROM items GROUP BY level")),
    }


def _session_start_wall(conn: Any) -> float:
    """Now, or just after the latest session start if the wall clock is behind it.

    Sessions are ordered by their start: a wall clock set back (a Pi without a real-time
    clock before NTP, a manual change) would file a new session before older ones, and
    its steps would no longer see them as earlier sessions. Order is kept; the jump logged.
    """
    now = time.time()
    latest = conn.execute("SELECT max(first_wall) FROM sessions").fetchone()[0]
    if latest is not None and now <= latest:
        import logging  # here, not at the top: keeps this crash-safety fix apart from the search code

        logging.getLogger(__name__).warning(
            "wall clock is %.0f s behind the latest session's start (clock set back?); "
            "the new session is filed after it to keep the order of sessions", latest - now,
        )
        return float(latest) + 1e-3
    return now
