"""The store's one connection: its lock, its transactions, the mapping of its errors, its meta table.

Every part of `MemoryStore` (sessions, writes, reads, searches, retention, index upkeep)
receives this object, so they share one connection and one lock and report SQLite's
failures as the same one-line `StoreError`s.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from edge_assist.errors import EdgeAssistError, StoreError
from edge_assist.memory.sqlite import sqlite_module


class StoreConnection:
    """The connection and the re-entrant lock that guards it (the writer and retrieval threads share it)."""

    def __init__(self, path: Path, conn: Any, text_dim: int, image_dim: int | None = None) -> None:
        self.path = path
        self.conn = conn
        self.lock = threading.RLock()
        self.text_dim = text_dim
        self.image_dim = image_dim
        self.errors: tuple[type[BaseException], ...] = (sqlite_module().Error,)
        # The wall clock rows are stamped with (session order, retention). Replays of a
        # recorded day and the soak's simulated week give their own; the device uses time.time.
        self.wall: Callable[[], float] = time.time

    def transaction(self) -> Transaction:
        """`with db.transaction() as conn:` one atomic write; SQLite errors become StoreError."""
        return Transaction(self)

    def read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """Every row of one statement, under the lock."""
        with self.lock:
            try:
                return list(self.conn.execute(sql, tuple(args)).fetchall())
            except self.errors as e:
                raise self.translate(e) from None

    def meta(self) -> dict[str, str]:
        """The store's `meta` table: encoders, schema version, ids and markers the parts keep."""
        return dict(self.read("SELECT key, value FROM meta"))

    def set_meta(self, key: str, value: str | None) -> None:
        with self.transaction() as c:
            if value is None:
                c.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def close(self) -> None:
        with self.lock:
            try:
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except self.errors:
                pass  # a full disk may refuse the checkpoint; the WAL stays valid and replays next open
            self.conn.close()

    def translate(self, e: BaseException) -> BaseException:
        """An SQLite error as the one line the wearer reads; anything else unchanged."""
        msg = str(e)
        if isinstance(e, EdgeAssistError) or not isinstance(e, self.errors):
            return e
        if "full" in msg or ("sqlite-vec" in msg and self._near_full()):
            return StoreError(
                f"memory store {self.path} is full ({msg}); ingest stopped and nothing already stored was "
                "lost: free disk space or raise memory.max_store_mb, then restart to resume"
            )
        if "disk I/O error" in msg:
            # EFBIG, ENOSPC on the WAL or a failing card: the same advice, nothing committed is lost.
            return StoreError(
                f"memory store {self.path} cannot be written ({msg}): the disk is full or failing; ingest "
                "stopped and nothing already stored was lost: free disk space or check the disk, then "
                "restart to resume"
            )
        if "locked" in msg or "busy" in msg:
            return StoreError(
                f"memory store {self.path} is busy ({msg}); is another edge-assist using this wearer?"
            )
        return StoreError(f"memory store {self.path} failed: {msg}")

    def _near_full(self) -> bool:
        """sqlite-vec reports SQLITE_FULL as its own error: check the cap and the disk ourselves."""
        try:
            pages, cap, size = (
                self.conn.execute(f"PRAGMA {p}").fetchone()[0]
                for p in ("page_count", "max_page_count", "page_size")
            )
            # vec0 grows by whole chunks (1024 vectors); one more chunk must fit.
            chunk = 1024 * 4 * max(self.text_dim, self.image_dim or 0)
            free = shutil.disk_usage(self.path.parent).free
        except self.errors + (OSError,):
            return False
        return (cap - pages) * size < chunk + 64 * size or free < chunk + (1 << 20)


class Transaction:
    """BEGIN IMMEDIATE under the lock; COMMIT, or ROLLBACK and the error translated."""

    def __init__(self, db: StoreConnection) -> None:
        self.db = db

    def __enter__(self) -> Any:
        self.db.lock.acquire()
        try:
            self.db.conn.execute("BEGIN IMMEDIATE")
        except BaseException as e:
            self.db.lock.release()
            raise self.db.translate(e) from None
        return self.db.conn

    def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
        db = self.db
        try:
            if et is None:
                try:
                    db.conn.execute("COMMIT")
                except db.errors as e:
                    try:
                        db.conn.execute("ROLLBACK")
                    except db.errors:
                        pass  # a failed COMMIT (disk full) may have rolled back already
                    raise db.translate(e) from None
            else:
                try:
                    db.conn.execute("ROLLBACK")
                except db.errors:
                    pass  # SQLite already rolled back (SQLITE_FULL does); nothing half-written stays
                if isinstance(ev, db.errors):
                    raise db.translate(ev) from None
        finally:
            db.lock.release()
