"""Multi-hop reads of the entity graph, answered by Kùzu itself.

The graph path (`EntityGraph.neighbourhood`) takes one hop, many times a minute, and reads
the SQLite copy (`graph_adjacency`), where it costs a few milliseconds. A question such as
"what did I use the red bowl with?" or "what was on the tray I carried?" follows the graph
further: a thing to the clips it was seen in to the other things those clips name, or a
thing to what was put on it in a span of a session. Those are asked here, in Cypher
(`cypher.SIGHTINGS`, `CO_SEEN`, `RELATED_IN_SPAN`), once per question.

Every read is bounded by time, as every memory read is: a session's rows only up to
`before` (stream seconds). Blocking, under the graph's lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from edge_assist.memory import cypher
from edge_assist.memory.graph import EntityGraph


@dataclass(frozen=True)
class Sighting:
    """A clip an entity was seen in."""

    session_id: str
    clip_index: int
    t0: float
    t1: float


@dataclass(frozen=True)
class Linked:
    """Another entity reached from the one asked about, and the clip that links them."""

    key: str
    name: str
    relation: str  # the relation's name; "" when the clip only named both
    inverse: bool  # true: the other entity is the relation's subject ("mug puts on tray")
    session_id: str
    clip_index: int
    t: float  # stream time of the clip's end


class GraphHops:
    def __init__(self, graph: EntityGraph) -> None:
        self._graph = graph

    def find(self, names: Sequence[str]) -> dict[str, tuple[str, str, float]]:
        """Entities matching the names: key -> (name, kind, score); 1.0 exact, 0.6 a part of a longer name."""
        return self._graph.find(names)

    def sessions_seen(self, key: str, sessions: Sequence[str]) -> set[str]:
        """Which of `sessions` the entity was seen in at all (whenever in them)."""
        if not sessions:
            return set()
        rows = self._graph.read(cypher.SEEN_IN_SESSIONS, {"key": key, "sessions": list(sessions)})
        return {str(r[0]) for r in rows}

    def sightings(self, key: str, session_id: str, *, before: float, n: int) -> list[Sighting]:
        """The entity's `n` newest clips in a session that ended by `before`, newest first."""
        rows = self._graph.read(
            cypher.SIGHTINGS, {"key": key, "session_id": session_id, "before": float(before), "n": int(n)}
        )
        return [Sighting(session_id, int(i), float(t0), float(t1)) for i, t0, t1 in rows]

    def co_seen(self, key: str, session_id: str, *, before: float) -> list[Linked]:
        """Entity -> clip -> entity: the other things named by the clips that named this one."""
        rows = self._graph.read(
            cypher.CO_SEEN, {"key": key, "session_id": session_id, "before": float(before)}
        )
        return [
            Linked(str(k), str(name), "", False, session_id, int(i), float(t1))
            for k, name, i, _t0, t1 in rows
        ]

    def related(self, key: str, session_id: str, *, after: float, before: float) -> list[Linked]:
        """Relations touching the entity in a session with `after < t <= before`, both directions."""
        rows = self._graph.read(
            cypher.RELATED_IN_SPAN,
            {"key": key, "session_id": session_id, "after": float(after), "before": float(before)},
        )
        return [
            Linked(str(k), str(name), str(rel), bool(inv), session_id, int(i), float(t))
            for k, name, rel, i, t, inv in rows
        ]
