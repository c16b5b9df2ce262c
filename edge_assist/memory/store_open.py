"""Opening a store: create the file, refuse what is not ours, check it, set its pragmas and schema.

A file that is not an edge-assist store (`store_check`) or fails `PRAGMA quick_check` is
reported at open and never replaced; a store made with other encoders is refused before
anything is written. A new store is built beside its path and renamed into place once its
schema is committed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from edge_assist.config.privacy import make_private_dir, make_private_file
from edge_assist.errors import ModelError, StoreError
from edge_assist.memory.ivf import IvfSettings, TextIvf
from edge_assist.memory.sqlite import connect, sqlite_module
from edge_assist.memory.store_check import creating_path, read_store_meta, remove_leftovers
from edge_assist.memory.store_connection import StoreConnection

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


def open_store(
    path: Path,
    *,
    text_encoder: str,
    text_dim: int,
    image_encoder: str | None,
    image_dim: int | None,
    max_store_mb: float,
    ivf: IvfSettings | None,
) -> tuple[StoreConnection, TextIvf]:
    """Open or create the store; check it is sound and made with these encoders.

    A mismatch or a corrupt file raises before anything is written. Returns the connection
    and the text index, loaded.
    """
    path = Path(path)
    if path.exists():
        # Refuses anything that is not ours before a byte is written (store_check).
        meta = read_store_meta(path)
    else:
        _create(path, text_encoder, text_dim, image_encoder, image_dim)
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
        db = StoreConnection(path, conn, text_dim)
        init_schema(db, text_encoder, text_dim, image_encoder, image_dim)
        index = TextIvf(text_dim, ivf or IvfSettings())
        with db.lock:
            index.load(conn)
        return db, index
    except mod.DatabaseError as e:
        conn.close()
        if "not a database" in str(e) or "malformed" in str(e):
            raise StoreError(
                f"memory store {path} is corrupt ({e}); it was left untouched: move it aside and restore "
                "a backup"
            ) from None
        raise StoreError(f"cannot open memory store {path}: {e}") from None
    except BaseException:
        conn.close()
        raise


def _create(
    path: Path, text_encoder: str, text_dim: int, image_encoder: str | None, image_dim: int | None
) -> None:
    """Build a new store beside `path` and rename it into place once its schema is committed."""
    try:
        make_private_dir(path.parent)
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
        init_schema(StoreConnection(tmp, conn, text_dim), text_encoder, text_dim, image_encoder, image_dim)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except mod.Error as e:
        raise StoreError(f"cannot create memory store {path}: {e}") from None
    finally:
        conn.close()  # the last connection closing removes the -wal file
    # SQLite gives the -wal and -shm files the main file's mode: one chmod covers all three.
    make_private_file(tmp)
    os.replace(tmp, path)
    remove_leftovers(path)


def init_schema(
    db: StoreConnection, text_encoder: str, text_dim: int, image_encoder: str | None, image_dim: int | None
) -> None:
    """Every table, in one transaction; the keyframe vectors' once an image encoder is known.

    Sets `db.image_dim` to the dimension the store's keyframe vectors have (None: none yet).
    """
    with db.transaction() as c:
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
        db.image_dim = int(meta["image_dim"]) if "image_dim" in meta else None


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
            f'({text_dim}-d) is configured; set models.text_encoder = "{stored}" or use another '
            "general.wearer"
        )
    if image_encoder and "image_encoder" in meta:
        si, sidim = meta["image_encoder"], int(meta.get("image_dim", "0"))
        if si != image_encoder or sidim != image_dim:
            raise ModelError(
                f"memory store {path} holds keyframe vectors of {si} ({sidim}-d) but {image_encoder} "
                f'({image_dim}-d) is configured; set models.image_encoder = "{si}" or use another '
                "general.wearer"
            )
