"""The adjacency the graph path reads, in SQLite tables indexed for its queries.

Kùzu answers a one-hop query by reading the properties of every neighbour node: at 20k
entities / 200k clips / 600k mentions one statement costs 3-100 ms (an object seen in
20,000 clips takes 75 ms just to read their session and time), and a question needs 20-40
of them, so the graph path took 0.7-2.4 s. The same questions on B-tree indexes keyed by
(entity, session, time) are range reads of the few rows they return, plus one aggregate
table, `latest`, that holds each entity's last sighting per session, so "where was X
seen last" never touches the sightings themselves.

The file lives beside the Kùzu graph (`<graph>.adjacency.sqlite`) and is written by
`EntityGraph` right after each Kùzu transaction. Both writes are idempotent (INSERT OR
IGNORE / upserts, as Kùzu's MERGE), and the store marks a caption applied only after both
returned, so a kill between them is repaired by the replay of that caption. A graph that
exists without this file (made before it existed, or bulk-loaded) is copied from Kùzu
once at open, in one transaction marked complete at its end.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from edge_assist.memory.sqlite import sqlite_module

COMPLETE_KEY = "complete"

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS entity(key TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL)"
    " WITHOUT ROWID",
    # One row per mention; the primary key is the graph path's order: an entity's clips in a
    # session by time, read newest first for the neighbours' clips.
    "CREATE TABLE IF NOT EXISTS seen(key TEXT NOT NULL, session_id TEXT NOT NULL, t1 REAL NOT NULL,"
    " clip_index INTEGER NOT NULL, PRIMARY KEY(key, session_id, t1, clip_index)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS seen_by_clip ON seen(session_id, clip_index)",
    # max(seen.t1) per (entity, session): the first step of every query reads only these.
    "CREATE TABLE IF NOT EXISTS latest(key TEXT NOT NULL, session_id TEXT NOT NULL, t1 REAL NOT NULL,"
    " PRIMARY KEY(key, session_id)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS latest_by_time ON latest(key, t1)",
    "CREATE TABLE IF NOT EXISTS related(a TEXT NOT NULL, b TEXT NOT NULL, relation TEXT NOT NULL,"
    " session_id TEXT NOT NULL, clip_index INTEGER NOT NULL, t REAL NOT NULL,"
    " PRIMARY KEY(a, b, relation, session_id, clip_index)) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS related_out ON related(a, session_id, t)",
    "CREATE INDEX IF NOT EXISTS related_in ON related(b, session_id, t)",
    "CREATE INDEX IF NOT EXISTS related_by_clip ON related(session_id, clip_index)",
)


class Adjacency:
    """The read side of the entity graph; every method runs under the graph's lock."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fresh = not path.exists()
        self.errors: tuple[type[BaseException], ...] = (sqlite_module().Error,)
        self._conn = sqlite_module().connect(
            str(path), check_same_thread=False, isolation_level=None, timeout=10.0
        )
        self._conn.execute("PRAGMA journal_mode=WAL")
        # FULL as the store: the store marks a caption applied only after this commit returned.
        self._conn.execute("PRAGMA synchronous=FULL")
        for s in _SCHEMA:
            self._conn.execute(s)

    def close(self) -> None:
        self._conn.close()

    @property
    def complete(self) -> bool:
        return self._conn.execute("SELECT 1 FROM meta WHERE key = ?", (COMPLETE_KEY,)).fetchone() is not None

    # -- writes ---------------------------------------------------------------------------
    def _tx(self) -> Any:
        c = self._conn

        class _T:
            def __enter__(self) -> Any:
                c.execute("BEGIN IMMEDIATE")
                return c

            def __exit__(self, et: Any, ev: Any, tb: Any) -> None:
                c.execute("COMMIT" if et is None else "ROLLBACK")

        return _T()

    def apply(
        self,
        session_id: str,
        clip_index: int,
        t1: float,
        entities: Sequence[tuple[str, str, str]],
        relations: Sequence[tuple[str, str, str]],
    ) -> None:
        """Mirror of `EntityGraph.apply`: the first name and kind of an entity stay, as MERGE ... ON
        CREATE."""
        with self._tx() as c:
            c.executemany(
                "INSERT OR IGNORE INTO entity(key, name, kind) VALUES (?, ?, ?)",
                [(k, n or k, kind) for k, n, kind in entities],
            )
            c.executemany(
                "INSERT OR IGNORE INTO seen(key, session_id, t1, clip_index) VALUES (?, ?, ?, ?)",
                [(k, session_id, float(t1), int(clip_index)) for k, _, _ in entities],
            )
            c.executemany(
                "INSERT INTO latest(key, session_id, t1) VALUES (?, ?, ?) "
                "ON CONFLICT(key, session_id) DO UPDATE SET t1 = max(t1, excluded.t1)",
                [(k, session_id, float(t1)) for k, _, _ in entities],
            )
            # Kùzu's MERGE_RELATED matches both ends first: a relation to an unknown entity is dropped.
            c.executemany(
                "INSERT OR IGNORE INTO related(a, b, relation, session_id, clip_index, t) "
                "SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM entity WHERE key = ?1) "
                "AND EXISTS (SELECT 1 FROM entity WHERE key = ?2)",
                [(a, b, rel, session_id, int(clip_index), float(t1)) for a, rel, b in relations],
            )

    def forget(self, clips: Sequence[tuple[str, int]]) -> None:
        """Mirror of `EntityGraph.forget`: the clips' mentions and relations, then entities left with
        nothing."""
        with self._tx() as c:
            touched: set[tuple[str, str]] = set()
            for s, i in clips:
                touched.update(
                    (str(k), s)
                    for (k,) in c.execute(
                        "SELECT key FROM seen WHERE session_id = ? AND clip_index = ?", (s, int(i))
                    )
                )
                c.execute("DELETE FROM seen WHERE session_id = ? AND clip_index = ?", (s, int(i)))
                c.execute("DELETE FROM related WHERE session_id = ? AND clip_index = ?", (s, int(i)))
            for k, s in touched:
                row = c.execute(
                    "SELECT max(t1) FROM seen WHERE key = ? AND session_id = ?", (k, s)
                ).fetchone()
                if row[0] is None:
                    c.execute("DELETE FROM latest WHERE key = ? AND session_id = ?", (k, s))
                else:
                    c.execute("UPDATE latest SET t1 = ? WHERE key = ? AND session_id = ?", (row[0], k, s))
            c.execute(
                "DELETE FROM entity WHERE NOT EXISTS (SELECT 1 FROM latest l WHERE l.key = entity.key) "
                "AND NOT EXISTS (SELECT 1 FROM related r WHERE r.a = entity.key) "
                "AND NOT EXISTS (SELECT 1 FROM related r WHERE r.b = entity.key)"
            )

    def load(
        self,
        entities: Iterable[Sequence[Any]],
        seen: Iterable[Sequence[Any]],
        related: Iterable[Sequence[Any]],
    ) -> None:
        """Fill from a whole graph (rows as Kùzu returns them), in one transaction marked complete."""
        with self._tx() as c:
            for t in ("entity", "seen", "latest", "related", "meta"):
                c.execute(f"DELETE FROM {t}")
            c.executemany("INSERT OR IGNORE INTO entity(key, name, kind) VALUES (?, ?, ?)", entities)
            c.executemany(
                "INSERT OR IGNORE INTO seen(key, session_id, clip_index, t1) VALUES (?, ?, ?, ?)", seen
            )
            c.execute(
                "INSERT INTO latest(key, session_id, t1) SELECT key, session_id, max(t1) FROM seen "
                "GROUP BY key, session_id"
            )
            c.executemany(
                "INSERT OR IGNORE INTO related(a, b, relation, session_id, clip_index, t) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                related,
            )
            c.execute("INSERT INTO meta(key, value) VALUES (?, '1')", (COMPLETE_KEY,))

    def mark_complete(self) -> None:
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (COMPLETE_KEY,))

    # -- reads ----------------------------------------------------------------------------
    def keys(self) -> list[tuple[str, str, str]]:
        return [
            (str(k), str(n), str(kind))
            for k, n, kind in self._conn.execute("SELECT key, name, kind FROM entity")
        ]

    def latest_in(self, key: str, session_id: str, bound: float) -> float | None:
        """The last time `key` was seen in `session_id` at or before `bound` (one index seek)."""
        row = self._conn.execute(
            "SELECT max(t1) FROM seen WHERE key = ? AND session_id = ? AND t1 <= ?", (key, session_id, bound)
        ).fetchone()
        return None if row[0] is None else float(row[0])

    def latest_in_many(self, keys: Sequence[str], session_id: str, bound: float) -> dict[str, float]:
        """`latest_in` for many keys in one statement (one index seek each)."""
        if not keys:
            return {}
        return dict(
            self._conn.execute(
                f"SELECT key, max(t1) FROM seen WHERE key IN ({','.join('?' * len(keys))})"
                " AND session_id = ? AND t1 <= ? GROUP BY key",
                (*keys, session_id, bound),
            ).fetchall()
        )

    def latest_sessions(self, key: str) -> Iterator[tuple[str, float]]:
        """(session, last sighting) of `key`, newest first, read lazily: callers stop after k."""
        return iter(
            self._conn.execute(
                "SELECT session_id, t1 FROM latest WHERE key = ? ORDER BY t1 DESC, session_id", (key,)
            )
        )

    def clips(self, key: str, session_id: str, bound: float, limit: int = -1) -> list[int]:
        """The clips `key` was seen in, newest first, at most `limit` (-1: all), read backwards on the
        index."""
        # Rows as SQLite gives them (INTEGER, TEXT, REAL): converting each value again in Python
        # was a third of the graph path's CPU time.
        return [
            r[0]
            for r in self._conn.execute(
                "SELECT clip_index FROM seen WHERE key = ? AND session_id = ? AND t1 <= ? "
                "ORDER BY t1 DESC, clip_index DESC LIMIT ?",
                (key, session_id, bound, int(limit)),
            )
        ]

    def relations(self, key: str, session_id: str, bound: float) -> list[tuple[str, str, str, float, int]]:
        """(relation, other key, other name, time, inverse) of `key` in a session up to `bound`, both
        directions."""
        return self._conn.execute(
            "SELECT r.relation, r.b, e.name, r.t, 0 FROM related r JOIN entity e ON e.key = r.b "
            "WHERE r.a = ?1 AND r.session_id = ?2 AND r.t <= ?3 UNION ALL "
            "SELECT r.relation, r.a, e.name, r.t, 1 FROM related r JOIN entity e ON e.key = r.a "
            "WHERE r.b = ?1 AND r.session_id = ?2 AND r.t <= ?3",
            (key, session_id, bound),
        ).fetchall()

    def latest_of_many(self, keys: Sequence[str], sessions: Sequence[str]) -> dict[tuple[str, str], float]:
        """{(key, session): last sighting} of these keys in these sessions: one statement, a primary-key
        seek each."""
        if not keys or not sessions:
            return {}
        rows = self._conn.execute(
            f"SELECT key, session_id, t1 FROM latest WHERE key IN ({','.join('?' * len(keys))}) "
            f"AND session_id IN ({','.join('?' * len(sessions))})",
            (*keys, *sessions),
        ).fetchall()
        return {(k, s): t for k, s, t in rows}

    def newest_clips(
        self, keys: Sequence[str], session_id: str, bound: float, skip: set[int], n: int
    ) -> list[int]:
        """The `n` newest clips (by time, then index) any of `keys` was seen in, `skip` excluded.

        Each key's clips are read newest first straight from the index and merged lazily,
        so an object seen in thousands of clips costs the few rows that are kept.
        """

        def rows(key: str) -> Iterator[tuple[float, int]]:
            return iter(
                self._conn.execute(
                    "SELECT t1, clip_index FROM seen WHERE key = ? AND session_id = ? AND t1 <= ? "
                    "ORDER BY t1 DESC, clip_index DESC",
                    (key, session_id, bound),
                )
            )

        out: list[int] = []
        seen: set[int] = set()
        merged = heapq.merge(*(rows(k) for k in keys), key=lambda r: (-r[0], -r[1]))
        for _, ci in itertools.takewhile(lambda _: len(out) < n, merged):
            if ci not in skip and ci not in seen:
                seen.add(ci)
                out.append(ci)
        return out
