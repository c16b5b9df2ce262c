"""Every Cypher statement edge-assist runs, and the one import of the graph engine.

Kùzu's upstream was archived (Oct 2025); keeping the engine import and all query text
here makes a move to its maintained fork a change to this file only.
"""

from __future__ import annotations

from types import ModuleType


def engine() -> ModuleType:
    import kuzu  # the one place the graph engine is named

    return kuzu


SCHEMA = (
    "CREATE NODE TABLE IF NOT EXISTS Meta(key STRING, value STRING, PRIMARY KEY(key))",
    "CREATE NODE TABLE IF NOT EXISTS Entity(key STRING, name STRING, kind STRING, PRIMARY KEY(key))",
    "CREATE NODE TABLE IF NOT EXISTS Clip(id STRING, session_id STRING, clip_index INT64, t0 DOUBLE,"
    " t1 DOUBLE, PRIMARY KEY(id))",
    "CREATE REL TABLE IF NOT EXISTS SEEN_IN(FROM Entity TO Clip)",
    "CREATE REL TABLE IF NOT EXISTS RELATED(FROM Entity TO Entity, relation STRING, session_id STRING,"
    " clip_index INT64, t DOUBLE)",
)

GET_META = "MATCH (m:Meta {key: $key}) RETURN m.value"
SET_META = "MERGE (m:Meta {key: $key}) SET m.value = $value"

BEGIN = "BEGIN TRANSACTION"
COMMIT = "COMMIT"
ROLLBACK = "ROLLBACK"

# MERGE everywhere: re-applying a caption after a crash must change nothing.
MERGE_CLIP = (
    "MERGE (c:Clip {id: $id}) ON CREATE SET c.session_id = $session_id, c.clip_index = $clip_index,"
    " c.t0 = $t0, c.t1 = $t1"
)
MERGE_ENTITY = "MERGE (e:Entity {key: $key}) ON CREATE SET e.name = $name, e.kind = $kind"
MERGE_SEEN_IN = "MATCH (e:Entity {key: $key}), (c:Clip {id: $clip_id}) MERGE (e)-[:SEEN_IN]->(c)"
MERGE_RELATED = (
    "MATCH (a:Entity {key: $a}), (b:Entity {key: $b}) "
    "MERGE (a)-[r:RELATED {relation: $relation, session_id: $session_id, clip_index: $clip_index}]->(b) "
    "ON CREATE SET r.t = $t"
)

# The graph path reads the SQLite adjacency (graph_adjacency.py); these copy Kùzu into it once.
ALL_SEEN_IN = "MATCH (e:Entity)-[:SEEN_IN]->(c:Clip) RETURN e.key, c.session_id, c.clip_index, c.t1"
ALL_RELATED = (
    "MATCH (a:Entity)-[r:RELATED]->(b:Entity) "
    "RETURN a.key, b.key, r.relation, r.session_id, r.clip_index, r.t"
)
ALL_KEYS = "MATCH (e:Entity) RETURN e.key, e.name, e.kind"

DELETE_CLIPS = "MATCH (c:Clip) WHERE c.id IN $ids DETACH DELETE c"
DELETE_RELATIONS = (
    "MATCH (:Entity)-[r:RELATED]->(:Entity) WHERE r.session_id = $session_id "
    "AND r.clip_index IN $clip_indices DELETE r"
)
DELETE_ORPHANS = (
    "MATCH (e:Entity) WHERE NOT EXISTS { MATCH (e)-[:SEEN_IN]->(:Clip) } "
    "AND NOT EXISTS { MATCH (e)-[:RELATED]-(:Entity) } DETACH DELETE e"
)

COUNT_ENTITIES = "MATCH (e:Entity) RETURN count(e)"
COUNT_CLIPS = "MATCH (c:Clip) RETURN count(c)"
COUNT_SEEN_IN = "MATCH (:Entity)-[r:SEEN_IN]->(:Clip) RETURN count(r)"
COUNT_RELATED = "MATCH (:Entity)-[r:RELATED]->(:Entity) RETURN count(r)"
ALL_ENTITIES = "MATCH (e:Entity) RETURN e.key, e.name, e.kind ORDER BY e.key"
ALL_CLIPS = "MATCH (c:Clip) RETURN c.session_id, c.clip_index"

# Multi-hop reads (graph_hops.py): questions that follow the graph further than one hop. Each
# enters by an entity's primary key, the one index Kùzu seeks (an equality with a parameter:
# `UNWIND` or `IN` over keys scans the node table instead).
SEEN_IN_SESSIONS = (
    "MATCH (a:Entity {key: $key})-[:SEEN_IN]->(c:Clip) WHERE c.session_id IN $sessions "
    "RETURN DISTINCT c.session_id"
)
SIGHTINGS = (
    "MATCH (a:Entity {key: $key})-[:SEEN_IN]->(c:Clip) WHERE c.session_id = $session_id AND c.t1 <= $before "
    "RETURN c.clip_index, c.t0, c.t1 ORDER BY c.t1 DESC, c.clip_index DESC LIMIT $n"
)
# Two hops through a clip: what else the captions that named the thing named.
CO_SEEN = (
    "MATCH (a:Entity {key: $key})-[:SEEN_IN]->(c:Clip)<-[:SEEN_IN]-(o:Entity) "
    "WHERE c.session_id = $session_id AND c.t1 <= $before AND o.key <> $key "
    "RETURN o.key, o.name, c.clip_index, c.t0, c.t1"
)
# Relations that touch the thing in a span of one session, both directions (1: it is the object).
RELATED_IN_SPAN = (
    "MATCH (o:Entity)-[r:RELATED]->(a:Entity {key: $key}) "
    "WHERE r.session_id = $session_id AND r.t > $after AND r.t <= $before "
    "RETURN o.key, o.name, r.relation, r.clip_index, r.t, 1 UNION ALL "
    "MATCH (a:Entity {key: $key})-[r:RELATED]->(o:Entity) "
    "WHERE r.session_id = $session_id AND r.t > $after AND r.t <= $before "
    "RETURN o.key, o.name, r.relation, r.clip_index, r.t, 0"
)
