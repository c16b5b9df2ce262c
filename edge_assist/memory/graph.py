"""The entity graph in embedded Kùzu: what was seen, in which clip, related to what.

Nodes are entities (keyed by `entities.entity_key`) and clips; `SEEN_IN` links an entity
to every clip it was mentioned in, `RELATED` carries a relation with the session, clip
and stream time it was seen. Every write is a MERGE inside one Kùzu transaction per
caption, so applying a caption twice leaves the graph unchanged; that is what lets
SQLite stay the source of truth (see `edge_assist.memory.memory`). The graph is a
derived index: it can always be rebuilt from the extractions stored in SQLite.
"""

from __future__ import annotations

import shutil
import threading
import warnings
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edge_assist.config.privacy import make_private_dir
from edge_assist.errors import StoreError
from edge_assist.memory import cypher
from edge_assist.memory.api import EntityHit
from edge_assist.memory.entities import Extraction, entity_key
from edge_assist.memory.graph_adjacency import Adjacency
from edge_assist.memory.graph_neighbourhood import entity_hit, latest_sightings, ranked_groups
from edge_assist.memory.sqlite import sqlite_module

# Names that only contain a query name ("butter knife" for "knife"), kept per query name.
MAX_PARTIAL_MATCHES = 8
STORE_ID_KEY = "store_id"


def adjacency_path(graph: Path) -> Path:
    """Beside the graph and named after it, so whatever removes `<graph>*` removes it too."""
    return graph.with_name(graph.name + ".adjacency.sqlite")


def clip_id(session_id: str, clip_index: int) -> str:
    return f"{session_id}\x1f{clip_index}"


class EntityGraph:
    """Plain synchronous wrapper around one Kùzu database, guarded by one lock."""

    def __init__(self, path: Path, db: Any, conn: Any, adj: Adjacency, buffer_mb: int = 64) -> None:
        self.path = path
        self._db = db
        self._conn = conn
        self._adj = adj
        self._buffer_mb = buffer_mb
        self._lock = threading.Lock()
        self._words: dict[str, dict[str, tuple[str, str]]] | None = None
        self._prepared: dict[str, Any] = {}  # query text -> kuzu PreparedStatement (see _q)

    @classmethod
    def open(cls, path: Path, buffer_mb: int = 64) -> tuple[EntityGraph, bool]:
        """Open or create the graph; the flag says whether it was created now (so it must be rebuilt)."""
        created = not path.exists()
        g = cls(path, *_connect(path, buffer_mb), buffer_mb)
        g._start(created)
        return g, created

    def _start(self, created: bool) -> None:
        self._run_all(cypher.SCHEMA)
        if created:
            self._adj.load([], [], [])  # a new graph: its adjacency starts empty, and complete
        elif not self._adj.complete:
            self._copy_to_adjacency()

    def recreate(self) -> None:
        """Delete the graph's files and open it again, empty, as this same object.

        Kùzu keeps deleted names in its freed pages: after a forget the graph is rebuilt from
        the extractions the store kept, so the file holds nothing forgotten."""
        self.close()
        for p in self.path.parent.glob(self.path.name + "*"):
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
        self._db, self._conn, self._adj = _connect(self.path, self._buffer_mb)
        self._words, self._prepared = None, {}
        self._start(created=True)

    def _copy_to_adjacency(self) -> None:
        """Fill the adjacency from Kùzu (a graph made before it, or bulk-loaded); one transaction."""
        with self._lock:
            self._adj.load(self._q(cypher.ALL_KEYS), self._q(cypher.ALL_SEEN_IN), self._q(cypher.ALL_RELATED))

    def close(self) -> None:
        with self._lock:
            self._adj.close()
            self._conn.close()
            self._db.close()

    # -- low level ---------------------------------------------------------------------
    def _q(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        try:
            if params:
                # Prepared once per statement: Kùzu 0.11 keeps every statement prepared by a
                # parameterised execute() alive in the connection (~0.2 MB of RSS per caption
                # applied, unbounded over a day: issue 13 soak); a reused one costs nothing more.
                ps = self._prepared.get(query)
                if ps is None:
                    with warnings.catch_warnings():
                        warnings.simplefilter(
                            "ignore", DeprecationWarning
                        )  # "use execute()": the leaking path
                        ps = self._prepared[query] = self._conn.prepare(query)
                res = self._conn.execute(ps, params)
            else:
                res = self._conn.execute(query)
        except RuntimeError as e:
            raise self._translate(e) from None
        rows: list[list[Any]] = []
        results = res if isinstance(res, list) else [res]
        for r in results:
            while r.has_next():
                rows.append(r.get_next())
        return rows

    def _translate(self, e: Exception) -> StoreError:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "space" in msg.lower() or "full" in msg.lower():
            return StoreError(
                f"entity graph {self.path} cannot be written ({msg}); free disk space and restart: "
                "the graph catches up from the SQLite store"
            )
        return StoreError(f"entity graph {self.path} failed: {msg}")

    def _run_all(self, queries: Sequence[str]) -> None:
        with self._lock:
            for q in queries:
                self._q(q)

    # -- identity ----------------------------------------------------------------------
    def store_id(self) -> str | None:
        with self._lock:
            rows = self._q(cypher.GET_META, {"key": STORE_ID_KEY})
        return str(rows[0][0]) if rows else None

    def set_store_id(self, value: str) -> None:
        with self._lock:
            self._q(cypher.SET_META, {"key": STORE_ID_KEY, "value": value})

    # -- writes ------------------------------------------------------------------------
    def apply(self, session_id: str, clip_index: int, t0: float, t1: float, ex: Extraction) -> None:
        """Add one caption's entities and relations, atomically and idempotently."""
        cid = clip_id(session_id, clip_index)
        with self._lock:
            self._q(cypher.BEGIN)
            try:
                self._q(
                    cypher.MERGE_CLIP,
                    {
                        "id": cid,
                        "session_id": session_id,
                        "clip_index": clip_index,
                        "t0": float(t0),
                        "t1": float(t1),
                    },
                )
                for key, name, kind in ex.entities:
                    self._q(cypher.MERGE_ENTITY, {"key": key, "name": name or key, "kind": kind})
                    self._q(cypher.MERGE_SEEN_IN, {"key": key, "clip_id": cid})
                for a, rel, b in ex.relations:
                    self._q(
                        cypher.MERGE_RELATED,
                        {
                            "a": a,
                            "b": b,
                            "relation": rel,
                            "session_id": session_id,
                            "clip_index": clip_index,
                            "t": float(t1),
                        },
                    )
                self._q(cypher.COMMIT)
            except BaseException:
                try:
                    self._q(cypher.ROLLBACK)
                except StoreError:
                    pass  # the failed statement already ended the transaction
                raise
            # After Kùzu's commit: a kill in between leaves the caption unmarked in the store,
            # and its replay (idempotent on both sides) completes the adjacency.
            self._adj_write(self._adj.apply, session_id, clip_index, t1, ex.entities, ex.relations)
            if self._words is not None:
                # As MERGE ... ON CREATE does: a known key keeps the name it was created with.
                for key, name, kind in ex.entities:
                    for w in set(key.split()):
                        self._words[w].setdefault(key, (name or key, kind))

    def forget(self, clips: Sequence[tuple[str, int]]) -> None:
        """Remove these clips, the relations seen in them, and entities left with nothing."""
        by_session: dict[str, list[int]] = defaultdict(list)
        for s, i in clips:
            by_session[s].append(int(i))
        with self._lock:
            self._q(cypher.BEGIN)
            try:
                self._q(cypher.DELETE_CLIPS, {"ids": [clip_id(s, i) for s, i in clips]})
                for s, idx in by_session.items():
                    self._q(cypher.DELETE_RELATIONS, {"session_id": s, "clip_indices": idx})
                self._q(cypher.DELETE_ORPHANS)
                self._q(cypher.COMMIT)
            except BaseException:
                try:
                    self._q(cypher.ROLLBACK)
                except StoreError:
                    pass  # already ended by the failing statement
                raise
            self._adj_write(self._adj.forget, list(clips))
            self._words = None  # entities left with nothing are gone: reload on the next read

    def _adj_write(self, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except self._adj.errors as e:
            raise StoreError(
                f"entity graph adjacency {self._adj.path} cannot be written ({e}); free disk space "
                "and restart: the graph catches up from the SQLite store"
            ) from None

    # -- reads -------------------------------------------------------------------------
    def _key_index(self) -> dict[str, dict[str, tuple[str, str]]]:
        """word -> {entity key: (name, kind)} of every key holding that word; under the lock.

        Name matching is whole-word ("knife" finds "butter knife"), which a scan of every key
        per name made cost ~20 ms a name at 20k entities; this map is loaded once per open
        and kept up to date by `apply` and `forget`."""
        if self._words is None:
            words: dict[str, dict[str, tuple[str, str]]] = defaultdict(dict)
            for key, name, kind in self._adj.keys():
                for w in set(str(key).split()):
                    words[w][str(key)] = (str(name), str(kind))
            self._words = words
        return self._words

    def find(self, names: Sequence[str]) -> dict[str, tuple[str, str, float]]:
        """Entities matching the names: key -> (name, kind, score); 1.0 exact, 0.6 whole-word part."""
        found: dict[str, tuple[str, str, float]] = {}
        with self._lock:
            index = self._key_index()
        for n in names:
            key = entity_key(n)
            if not key:
                continue
            padded = f" {key} "
            candidates = index.get(key.split()[0], {})
            if key in candidates:
                found[key] = (*candidates[key], 1.0)
            # A common word ("bowl") is part of many names after a year; the shortest are the
            # closest, and a bounded number keeps the graph path's cost bounded too.
            parts = sorted(
                (k for k in candidates if k != key and padded in f" {k} "), key=lambda k: (len(k), k)
            )
            for k in parts[:MAX_PARTIAL_MATCHES]:
                if k not in found:
                    found[k] = (*candidates[k], 0.6)
        return found

    def neighbourhood(
        self,
        names: Sequence[str],
        *,
        before_t: float,
        k: int,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[EntityHit]:
        """Matching entities seen by `before_t`, each with its one-hop neighbours, one hit per session.

        With `session_id` and `earlier_sessions`, what those earlier sessions saw counts too,
        whenever in them it was: stream times restart with each session, so the time bound
        applies to the current session only. Read from the SQLite adjacency (`graph_adjacency`).
        """
        found = self.find(names)
        if not found or k <= 0:
            return []
        with self._lock:
            latest = latest_sightings(
                self._adj,
                found,
                before_t=before_t,
                k=k,
                session_id=session_id,
                earlier_sessions=earlier_sessions,
            )
            return [
                # The time bound applies to the current session only (or to all without one).
                entity_hit(
                    self._adj,
                    found,
                    key,
                    s,
                    float(before_t) if session_id is None or s == session_id else float("inf"),
                )
                for key, s in ranked_groups(found, latest, k, session_id, earlier_sessions)
            ]

    def read(self, query: str, params: dict[str, Any]) -> list[list[Any]]:
        """One read statement of `cypher` on Kùzu itself, under the lock (`graph_hops` asks these)."""
        with self._lock:
            return self._q(query, params)

    def entities(self) -> list[tuple[str, str, str]]:
        with self._lock:
            return [(r[0], r[1], r[2]) for r in self._q(cypher.ALL_ENTITIES)]

    def clip_keys(self) -> list[tuple[str, int]]:
        """(session, clip index) of every clip the graph holds: the consistency check reads it."""
        with self._lock:
            return [(str(s), int(i)) for s, i in self._q(cypher.ALL_CLIPS)]

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {
                "entities": int(self._q(cypher.COUNT_ENTITIES)[0][0]),
                "clips": int(self._q(cypher.COUNT_CLIPS)[0][0]),
                "seen_in": int(self._q(cypher.COUNT_SEEN_IN)[0][0]),
                "relations": int(self._q(cypher.COUNT_RELATED)[0][0]),
            }


def _connect(path: Path, buffer_mb: int) -> tuple[Any, Any, Adjacency]:
    """Kùzu's database and connection, and the adjacency beside them; one-line errors."""
    kuzu = cypher.engine()
    try:
        make_private_dir(path.parent)
        # A bounded page pool: left at its default, Kùzu keeps pages up to 80 % of RAM,
        # so a graph that grows for months would take the device's memory with it.
        db = kuzu.Database(str(path), buffer_pool_size=int(buffer_mb) << 20)
        conn = kuzu.Connection(db)
    except RuntimeError as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        if "lock" in msg.lower():
            raise StoreError(
                f"entity graph {path} is in use ({msg}); is another edge-assist using this wearer?"
            ) from None
        raise StoreError(
            f"cannot open entity graph {path} ({msg}); it was left untouched: move it aside and restart "
            "to rebuild it from the SQLite store"
        ) from None
    try:
        adj = Adjacency(adjacency_path(path))
    except sqlite_module().Error as e:
        conn.close()
        db.close()
        raise StoreError(
            f"cannot open the graph's adjacency {adjacency_path(path)} ({e}); move it aside and "
            "restart to rebuild it from the graph"
        ) from None
    return db, conn, adj
