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

`MemoryStore` is assembled from one module per job, all over the connection and lock of
`store_base`: `store_writes` (captions, summaries, graph flags), `store_reads` (rows back,
the KNN searches of `search`), `store_retention` (keyframe expiry, forgetting, VACUUM),
`store_indexing` (idle-time work of the IVF index); `store_rows` holds the row types. This
module opens, creates and checks the file, and keeps stats, export and the integrity rows.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from edge_assist.errors import ModelError, StoreError
from edge_assist.memory.api import LEVELS
from edge_assist.memory.ivf import IvfSettings, TextIvf
from edge_assist.memory.sqlite import connect, sqlite_module
from edge_assist.memory.store_base import StoreBase
from edge_assist.memory.store_check import creating_path, read_store_meta, remove_leftovers
from edge_assist.memory.store_indexing import StoreIndexing, _chunk_vectors
from edge_assist.memory.store_reads import StoreReads
from edge_assist.memory.store_retention import StoreRetention
from edge_assist.memory.store_rows import _ITEM_COLS, BadCaptionError, Item, KeyframeRow, Windows, _item
from edge_assist.memory.store_writes import StoreWrites

# The public names of the store, wherever they are defined now.
__all__ = [
    "BadCaptionError",
    "Item",
    "KeyframeRow",
    "MemoryStore",
    "StoreBase",
    "Windows",
    "_chunk_vectors",
    "file_bytes",
    "integrity_rows",
]


SCHEMA_VERSION = "1"
PAGE_SIZE = 16384  # new stores; an existing store keeps the page size it was made with

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


class MemoryStore(StoreWrites, StoreReads, StoreRetention, StoreIndexing):
    """Captions, summaries, keyframe rows and all vectors in one SQLite file."""

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
            store.small_vectors.cap = 2 * (store.ivf.settings.min_items or IvfSettings().min_items)
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
            # Before the first table: the page size of the file for good. vec0 keeps a list's
            # vectors in chunk blobs of 256 x 1.5 kB, read page by page; 16 kB pages cut the CPU
            # of an index search by a quarter against SQLite's 4 kB (1.9 -> 1.4 ms for 4 lists of
            # 500 vectors, same data); WAL commits write whole pages, so a small commit writes more.
            conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
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

    def _init_schema(
        self, text_encoder: str, text_dim: int, image_encoder: str | None, image_dim: int | None
    ) -> None:
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
        self.stop_training()
        with self._lock:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except self._errors:
                pass  # a full disk may refuse the checkpoint; the WAL stays valid and replays next open
            self._conn.close()

    def stats(self) -> dict[str, Any]:
        counts = {lv: 0 for lv in LEVELS}
        chars = {lv: 0 for lv in LEVELS}
        for lv, n, ch in self._read(
            "SELECT level, count(*), coalesce(sum(length(text)), 0) FROM items GROUP BY level"
        ):
            counts[lv], chars[lv] = n, ch
        kf = self._read(
            "SELECT count(*), coalesce(sum(bytes), 0), coalesce(sum(path != ''), 0) FROM keyframes"
        )[0]
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
            "keyframes": {
                "count": kf[0],
                "files": kf[2],
                "jpeg_bytes": kf[1],
                "vector_bytes": kf[0] * 4 * (self.image_dim or 0),
            },
            "graph_pending": pending,
            "text_index": self.ivf.describe() if self.ivf is not None else None,
            "meta": self.meta(),
        }

    def export_rows(self) -> Iterator[dict[str, Any]]:
        """Everything the wearer's memory holds, one JSON-ready dict a row (vectors excluded)."""
        for r in self._read(
            f"SELECT {_ITEM_COLS}, entities, source, written_wall FROM items ORDER BY session_id, level, idx"
        ):
            it = _item(r[:9])
            yield {
                "type": it.level,
                "session_id": it.session_id,
                "index": it.idx,
                "t0": it.t0,
                "t1": it.t1,
                "text": it.text,
                "clips": list(it.clips),
                "partial": it.partial,
                "entities": json.loads(r[9]) if r[9] else None,
                "source": r[10],
                "written_wall": r[11],
            }
        for r in self._read(
            "SELECT session_id, clip_index, k, stream_t, path, bytes FROM keyframes ORDER BY session_id, clip_index, k"
        ):
            yield {
                "type": "keyframe",
                "session_id": r[0],
                "clip_index": r[1],
                "k": r[2],
                "stream_t": r[3],
                "path": r[4],
                "bytes": r[5],
            }


def _check_models(
    path: Path,
    meta: dict[str, str],
    text_encoder: str,
    text_dim: int,
    image_encoder: str | None,
    image_dim: int | None,
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
            f'({text_dim}-d) is configured; set models.text_encoder = "{stored}" or use another general.wearer'
        )
    if image_encoder and "image_encoder" in meta:
        si, sidim = meta["image_encoder"], int(meta.get("image_dim", "0"))
        if si != image_encoder or sidim != image_dim:
            raise ModelError(
                f"memory store {path} holds keyframe vectors of {si} ({sidim}-d) but {image_encoder} "
                f'({image_dim}-d) is configured; set models.image_encoder = "{si}" or use another general.wearer'
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
        "clips": [
            (str(s), int(i), int(g))
            for s, i, g in store._read(
                "SELECT session_id, idx, graph_done AND coalesce(entities, '') != 'null' AS in_graph FROM items "
                "WHERE level = 'clip' ORDER BY session_id, idx"
            )
        ],
        "duplicates": store._read(
            "SELECT session_id, level, idx, count(*) FROM items GROUP BY session_id, level, idx HAVING count(*) > 1"
        ),
        "items_without_vector": store._read(
            "SELECT count(*) FROM items WHERE id NOT IN (SELECT rowid FROM text_vec)"
        )[0][0],
        "vectors_without_item": store._read(
            "SELECT count(*) FROM text_vec WHERE rowid NOT IN (SELECT id FROM items)"
        )[0][0],
        "levels": dict(store._read("SELECT level, count(*) FROM items GROUP BY level")),
    }
