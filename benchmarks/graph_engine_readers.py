"""The graph path's reads in Cypher: two candidates measured against the SQLite copy.

`EntityGraph.neighbourhood` reads through seven methods of `graph_adjacency.Adjacency`.
Each class here answers the same seven through the graph engine instead, so the product's
own `neighbourhood` runs unchanged over either side and the hits can be compared for
equality. Only the benchmark runs these statements; the product's Cypher is in
`edge_assist/memory/cypher.py`.

- `PlainCypher`: the product's schema as it is (an entity's `SEEN_IN` edges to `Clip` nodes
  that hold the session and time). Entry by the primary-key hash index (`{key: $k}`),
  edges followed in their stored direction, `ORDER BY ... LIMIT` in the statement.
- `ShapedCypher`: the schema shaped for the path, as the SQLite copy is: one node per
  (entity, session) holding its last sighting (`EntitySession`, the copy's `latest`), its
  sightings as edges carrying their time and clip index (`SEEN_AT`), so a session's clips
  are one primary-key lookup and one adjacency list, with no Clip node read. Kùzu has no
  secondary index on a property: a key chosen this way is the only index it offers.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

Query = Callable[[str, dict[str, Any] | None], list[list[Any]]]

SHAPED_SCHEMA = (
    "CREATE NODE TABLE IF NOT EXISTS EntitySession(id STRING, key STRING, session_id STRING, t1 DOUBLE,"
    " PRIMARY KEY(id))",
    "CREATE REL TABLE IF NOT EXISTS HAS_SESSION(FROM Entity TO EntitySession)",
    "CREATE REL TABLE IF NOT EXISTS SEEN_AT(FROM EntitySession TO Clip, t1 DOUBLE, clip_index INT64)",
)

_RELATIONS = (
    "MATCH (e:Entity {key: $k})-[r:RELATED]->(o:Entity) WHERE r.session_id = $s AND r.t <= $b "
    "RETURN r.relation, o.key, o.name, r.t, 0 UNION ALL "
    "MATCH (e:Entity {key: $k})<-[r:RELATED]-(o:Entity) WHERE r.session_id = $s AND r.t <= $b "
    "RETURN r.relation, o.key, o.name, r.t, 1"
)


def es_id(key: str, session_id: str) -> str:
    return f"{key}\x1f{session_id}"


class PlainCypher:
    """The seven reads over the product schema (`cypher.SCHEMA`), one statement per entity."""

    # Kùzu 0.11 seeks the primary-key index only for an equality with a literal or a parameter:
    # `UNWIND $keys AS k MATCH (e {key: k})` or `e.key IN $keys` scan the node table and join
    # (8 keys: 7 ms on Entity, 40-80 ms on 300k EntitySession rows, against 0.4 ms a seek),
    # so every read here is one statement per entity, entered by its key.
    SEEN = "MATCH (e:Entity {key: $k})-[:SEEN_IN]->(c:Clip) WHERE c.session_id = $s AND c.t1 <= $b "
    LATEST_OF = (
        "MATCH (e:Entity {key: $k})-[:SEEN_IN]->(c:Clip) WHERE c.session_id IN $sessions "
        "RETURN c.session_id, max(c.t1)"
    )
    SESSIONS = (
        "MATCH (e:Entity {key: $k})-[:SEEN_IN]->(c:Clip) WITH c.session_id AS s, max(c.t1) AS t "
        "RETURN s, t ORDER BY t DESC, s"
    )
    NEWEST = "RETURN c.clip_index, c.t1 ORDER BY c.t1 DESC, c.clip_index DESC LIMIT $n"

    def __init__(self, q: Query) -> None:
        self._q = q

    def _seen(self, key: str, session_id: str) -> dict[str, Any]:
        return {"k": key, "s": session_id}

    def latest_in(self, key: str, session_id: str, bound: float) -> float | None:
        rows = self._q(self.SEEN + "RETURN max(c.t1)", {**self._seen(key, session_id), "b": bound})
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    def latest_in_many(self, keys: Sequence[str], session_id: str, bound: float) -> dict[str, float]:
        got = {k: self.latest_in(k, session_id, bound) for k in keys}
        return {k: t for k, t in got.items() if t is not None}

    def latest_sessions(self, key: str) -> Iterator[tuple[str, float]]:
        return iter([(str(s), float(t)) for s, t in self._q(self.SESSIONS, {"k": key})])

    def latest_of_many(self, keys: Sequence[str], sessions: Sequence[str]) -> dict[tuple[str, str], float]:
        out: dict[tuple[str, str], float] = {}
        for k in keys if sessions else ():
            for s, t in self._q(self.LATEST_OF, {"k": k, "sessions": list(sessions)}):
                out[(k, str(s))] = float(t)
        return out

    def _newest(self, key: str, session_id: str, bound: float, n: int) -> list[tuple[float, int]]:
        rows = self._q(self.SEEN + self.NEWEST, {**self._seen(key, session_id), "b": bound, "n": n})
        return [(float(t), int(i)) for i, t in rows]

    def clips(self, key: str, session_id: str, bound: float, limit: int = -1) -> list[int]:
        return [i for _, i in self._newest(key, session_id, bound, limit if limit >= 0 else 1 << 40)]

    def relations(self, key: str, session_id: str, bound: float) -> list[tuple[str, str, str, float, int]]:
        rows = self._q(_RELATIONS, {"k": key, "s": session_id, "b": bound})
        return [(str(a), str(b), str(c), float(d), int(e)) for a, b, c, d, e in rows]

    def newest_clips(
        self, keys: Sequence[str], session_id: str, bound: float, skip: set[int], n: int
    ) -> list[int]:
        """Each key's newest `n + len(skip)` by `ORDER BY ... LIMIT`, merged as the copy merges them."""
        rows = sorted(
            {r for k in keys for r in self._newest(k, session_id, bound, n + len(skip))},
            key=lambda r: (-r[0], -r[1]),
        )
        out: list[int] = []
        for _, i in rows:
            if i not in skip and i not in out and len(out) < n:
                out.append(i)
        return out


class ShapedCypher(PlainCypher):
    """The reads over `SHAPED_SCHEMA`: a session's sightings behind one primary key."""

    SEEN = "MATCH (x:EntitySession {id: $i})-[a:SEEN_AT]->() WHERE a.t1 <= $b "
    LATEST_OF = (
        "MATCH (e:Entity {key: $k})-[:HAS_SESSION]->(x:EntitySession) WHERE x.session_id IN $sessions "
        "RETURN x.session_id, x.t1"
    )
    SESSIONS = (
        "MATCH (e:Entity {key: $k})-[:HAS_SESSION]->(x:EntitySession) "
        "RETURN x.session_id, x.t1 ORDER BY x.t1 DESC, x.session_id"
    )
    NEWEST = "RETURN a.clip_index, a.t1 ORDER BY a.t1 DESC, a.clip_index DESC LIMIT $n"

    def latest_in(self, key: str, session_id: str, bound: float) -> float | None:
        rows = self._q(self.SEEN + "RETURN max(a.t1)", {**self._seen(key, session_id), "b": bound})
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    def _seen(self, key: str, session_id: str) -> dict[str, Any]:
        return {"i": es_id(key, session_id)}


def shape(q: Query, work: Path) -> float:
    """Add `SHAPED_SCHEMA` beside the product's and fill it from the bulk load's CSV files; seconds."""
    import time

    clips: dict[str, tuple[str, int, float]] = {}
    with open(work / "clip.csv", newline="") as f:
        for cid, s, i, _t0, t1 in csv.reader(f):
            clips[cid] = (s, int(i), float(t1))
    latest: dict[tuple[str, str], float] = {}
    with open(work / "seen.csv", newline="") as f, open(work / "at.csv", "w", newline="") as out:
        w = csv.writer(out)
        for key, cid in csv.reader(f):
            s, i, t1 = clips[cid]
            latest[(key, s)] = max(t1, latest.get((key, s), float("-inf")))
            w.writerow([es_id(key, s), cid, t1, i])
    with open(work / "es.csv", "w", newline="") as a, open(work / "has.csv", "w", newline="") as b:
        wa, wb = csv.writer(a), csv.writer(b)
        for (key, s), t1 in latest.items():
            wa.writerow([es_id(key, s), key, s, t1])
            wb.writerow([key, es_id(key, s)])
    t = time.perf_counter()
    for stmt in SHAPED_SCHEMA:
        q(stmt, None)
    for table, name in (("EntitySession", "es"), ("HAS_SESSION", "has"), ("SEEN_AT", "at")):
        q(f"COPY {table} FROM '{work / (name + '.csv')}' (header=false)", None)
    return time.perf_counter() - t
