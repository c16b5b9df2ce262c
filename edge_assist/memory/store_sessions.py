"""The store's sessions: the windows each began with, when each began, and what each holds.

Every search reads the sessions (which are earlier, how old): at a year of wear (~2,900
sessions) one read is 1.6 ms, several per question. They are kept here and read again only
when they may have changed: this connection's own insert or delete (`changed`), or a commit
by another connection (PRAGMA data_version moves; `memory forget` elsewhere).
"""

from __future__ import annotations

import logging
from typing import Any

from edge_assist.memory.api import sessions_before
from edge_assist.memory.store_connection import StoreConnection
from edge_assist.memory.store_rows import Windows
from edge_assist.memory.vector_cache import VectorCopies

log = logging.getLogger(__name__)


class SessionTable:
    """The `sessions` table and the kept copy of their starts."""

    def __init__(self, db: StoreConnection, copies: VectorCopies) -> None:
        self.db = db
        self.copies = copies
        self._starts: dict[str, float] | None = None
        self._starts_version: int | None = None

    def session_windows(self, session_id: str, default: Windows) -> Windows:
        """The windows a session was started with; a new session takes `default`.

        Fixed per session so a config change never re-cuts windows already summarised.
        """
        rows = self.db.read(
            "SELECT clip_s, activity_s, session_s FROM sessions WHERE session_id = ?", (session_id,)
        )
        if rows:
            return Windows(*rows[0])
        with self.db.transaction() as c:
            self.changed()  # under the transaction's lock: no reader refills it before the commit
            cur = c.execute(
                "INSERT OR IGNORE INTO sessions(session_id, clip_s, activity_s, session_s, first_wall)"
                " VALUES (?,?,?,?,?)",
                (
                    session_id,
                    default.clip_s,
                    default.activity_s,
                    default.session_s,
                    _session_start_wall(c, self.db.wall()),
                ),
            )
            if cur.rowcount == 1:
                # A new session holds nothing yet: its vectors are kept from its first caption on,
                # so its first search does not read them back one rowid at a time (50-90 ms an hour in).
                self.copies.session.start(session_id)
        return default

    def sessions(self) -> list[str]:
        """Every session, oldest first."""
        return list(self.session_starts())

    def session_starts(self) -> dict[str, float]:
        """Wall-clock time each session began (its first stored clip), oldest first."""
        db = self.db
        with db.lock:
            try:
                version = int(db.conn.execute("PRAGMA data_version").fetchone()[0])
                if self._starts is None or version != self._starts_version:
                    rows = db.conn.execute(
                        "SELECT session_id, first_wall FROM sessions ORDER BY first_wall, session_id"
                    ).fetchall()
                    self._starts, self._starts_version = {str(r[0]): float(r[1]) for r in rows}, version
            except db.errors as e:
                raise db.translate(e) from None
            return dict(self._starts)

    def earlier_sessions(self, session_id: str) -> list[str]:
        """Sessions that began before `session_id` did (all of them if it has not begun yet)."""
        return sessions_before(self.session_starts(), session_id)

    def changed(self) -> None:
        """This connection inserted or deleted sessions (or is about to): read them again."""
        with self.db.lock:
            self._starts = None

    def count_items(self, session_id: str) -> int:
        return int(self.db.read("SELECT count(*) FROM items WHERE session_id = ?", (session_id,))[0][0])


def _session_start_wall(conn: Any, now: float) -> float:
    """Now, or just after the latest session start if the wall clock is behind it.

    Sessions are ordered by their start: a wall clock set back (a Pi without a real-time
    clock before NTP, a manual change) would file a new session before older ones, and
    its steps would no longer see them as earlier sessions. Order is kept; the jump logged.
    """
    latest = conn.execute("SELECT max(first_wall) FROM sessions").fetchone()[0]
    if latest is not None and now <= latest:
        log.warning(
            "wall clock is %.0f s behind the latest session's start (clock set back?); "
            "the new session is filed after it to keep the order of sessions",
            latest - now,
        )
        return float(latest) + 1e-3
    return now
