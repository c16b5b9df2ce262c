"""The store's connection: one lock, transactions, error translation, meta and sessions.

Every other part of `MemoryStore` (writes, reads, retention, indexing) is a mixin over this
class, so they share one connection and one lock and map SQLite errors the same way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from edge_assist.errors import EdgeAssistError, StoreError
from edge_assist.memory.ivf import TextIvf
from edge_assist.memory.sqlite import sqlite_module
from edge_assist.memory.store_rows import Windows
from edge_assist.memory.vector_cache import SessionVectors, SmallMemoryVectors


class StoreBase:
    """The connection and its lock, shared by every part of the store."""

    def __init__(self, path: Path, conn: Any, text_dim: int, image_dim: int | None) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.RLock()
        self.text_dim = text_dim
        self.image_dim = image_dim
        self._errors: tuple[type[BaseException], ...] = (sqlite_module().Error,)
        self.ivf: TextIvf | None = None
        self.session_vectors = SessionVectors()
        self.small_vectors = SmallMemoryVectors(0)  # its cap is set with the index's settings
        # The wall clock rows are stamped with (session order, retention). Replays of a
        # recorded day and the soak's simulated week give their own; the device uses time.time.
        self.wall: Callable[[], float] = time.time
        # Every search reads the sessions (which are earlier, how old): at a year of wear (~2,900
        # sessions) one read is 1.6 ms, several per question. Kept here and read again only when
        # they may have changed: this connection's own insert or delete (`_sessions_changed`), or
        # a commit by another connection (PRAGMA data_version moves; `memory forget` elsewhere).
        self._starts: dict[str, float] | None = None
        self._starts_version: int | None = None

    # -- opening -----------------------------------------------------------------------

    # -- transactions ------------------------------------------------------------------
    class _Tx:
        def __init__(self, store: StoreBase) -> None:
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

    def transaction(self) -> StoreBase._Tx:
        """`with store.transaction() as conn:` one atomic write; SQLite errors become StoreError."""
        return StoreBase._Tx(self)

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
            return StoreError(
                f"memory store {self.path} is busy ({msg}); is another edge-assist using this wearer?"
            )
        return StoreError(f"memory store {self.path} failed: {msg}")

    def _near_full(self) -> bool:
        """sqlite-vec reports SQLITE_FULL as its own error: check the cap and the disk ourselves."""
        import shutil

        try:
            pages, cap, size = (
                self._conn.execute(f"PRAGMA {p}").fetchone()[0]
                for p in ("page_count", "max_page_count", "page_size")
            )
            # vec0 grows by whole chunks (1024 vectors); one more chunk must fit.
            chunk = 1024 * 4 * max(self.text_dim, self.image_dim or 0)
            free = shutil.disk_usage(self.path.parent).free
        except self._errors + (OSError,):
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
        rows = self._read(
            "SELECT clip_s, activity_s, session_s FROM sessions WHERE session_id = ?", (session_id,)
        )
        if rows:
            return Windows(*rows[0])
        with self.transaction() as c:
            self._sessions_changed()  # under the transaction's lock: no reader refills it before the commit
            cur = c.execute(
                "INSERT OR IGNORE INTO sessions(session_id, clip_s, activity_s, session_s, first_wall) VALUES (?,?,?,?,?)",
                (
                    session_id,
                    default.clip_s,
                    default.activity_s,
                    default.session_s,
                    _session_start_wall(c, self.wall()),
                ),
            )
            if cur.rowcount == 1:
                # A new session holds nothing yet: its vectors are kept from its first caption on,
                # so its first search does not read them back one rowid at a time (50-90 ms an hour in).
                self.session_vectors.start(session_id)
        return default

    def sessions(self) -> list[str]:
        """Every session, oldest first."""
        return list(self.session_starts())

    def session_starts(self) -> dict[str, float]:
        """Wall-clock time each session began (its first stored clip), oldest first."""
        with self._lock:
            try:
                version = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
                if self._starts is None or version != self._starts_version:
                    rows = self._conn.execute(
                        "SELECT session_id, first_wall FROM sessions ORDER BY first_wall, session_id"
                    ).fetchall()
                    self._starts, self._starts_version = {str(r[0]): float(r[1]) for r in rows}, version
            except self._errors as e:
                raise self._translate(e) from None
            return dict(self._starts)

    def _sessions_changed(self) -> None:
        """This connection inserted or deleted sessions (or is about to): read them again."""
        with self._lock:
            self._starts = None

    def count_items(self, session_id: str) -> int:
        return int(self._read("SELECT count(*) FROM items WHERE session_id = ?", (session_id,))[0][0])

    def _items_written(self) -> int:
        """Items ever written (ids only grow): O(log n), cheap enough to check after every caption."""
        return int(self._read("SELECT coalesce(max(id), 0) FROM items")[0][0])


def _session_start_wall(conn: Any, now: float) -> float:
    """Now, or just after the latest session start if the wall clock is behind it.

    Sessions are ordered by their start: a wall clock set back (a Pi without a real-time
    clock before NTP, a manual change) would file a new session before older ones, and
    its steps would no longer see them as earlier sessions. Order is kept; the jump logged.
    """
    latest = conn.execute("SELECT max(first_wall) FROM sessions").fetchone()[0]
    if latest is not None and now <= latest:
        import logging  # here, not at the top: keeps this crash-safety fix apart from the search code

        logging.getLogger(__name__).warning(
            "wall clock is %.0f s behind the latest session's start (clock set back?); "
            "the new session is filed after it to keep the order of sessions",
            latest - now,
        )
        return float(latest) + 1e-3
    return now
