"""The graph path's read: matching entities, one hit per session, each with its one-hop neighbourhood.

Everything here reads the SQLite adjacency (`graph_adjacency`), never Kùzu, and runs under
the graph's lock (`EntityGraph.neighbourhood`).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from edge_assist.memory.api import EntityHit
from edge_assist.memory.graph_adjacency import Adjacency

# How many neighbour clips one hit carries: enough context, bounded prompt.
MAX_NEIGHBOUR_CLIPS = 16
# How many of its own clips one hit carries, the newest: a bowl seen in 500 clips of a day
# cost a row and a scored caption each, per question, while retrieval keeps a handful of clips
# a path and a question about a thing is about its latest sightings.
MAX_ENTITY_CLIPS = 64
# Neighbours whose clips a hit carries (the most recently related ones).
MAX_NEIGHBOURS_WITH_CLIPS = 8
# Earlier sessions looked up per statement while finding an entity's most recent ones.
SESSION_BATCH = 64

# key -> (name, kind, match score), as `EntityGraph.find` answers
Found = dict[str, tuple[str, str, float]]


def latest_sightings(
    adj: Adjacency,
    found: Found,
    *,
    before_t: float,
    k: int,
    session_id: str | None,
    earlier_sessions: Sequence[str],
) -> dict[tuple[str, str], float]:
    """(entity key, session) -> the latest stream time it was seen there: the groups a hit can come from.

    With `session_id`, the current session up to `before_t` and up to k earlier sessions per
    key, whenever in them (stream times restart with each session); without, every session
    bounded by `before_t`.
    """
    latest: dict[tuple[str, str], float] = {}
    if session_id is None:
        _latest_anywhere(adj, found, before_t, k, latest)
        return latest
    for key, t in adj.latest_in_many(list(found), session_id, float(before_t)).items():
        latest[(key, session_id)] = t
    # Earlier sessions, newest first: stream time restarts with each session, so a sighting's
    # time says nothing across sessions; their order (oldest first in `earlier_sessions`, by
    # wall-clock start) says which is recent. A key needs at most k groups, read in batches of
    # sessions until it has them.
    newest = [x for x in reversed(earlier_sessions) if x != session_id]
    need = {key: 0 for key in found}
    for i in range(0, len(newest), SESSION_BATCH):
        part = newest[i : i + SESSION_BATCH]
        short = [key for key, have in need.items() if have < k]
        seen_in = adj.latest_of_many(short, part)  # one statement for every key still short of k groups
        for key in short:
            for x in part:
                if (key, x) in seen_in:
                    latest[(key, x)] = seen_in[(key, x)]
                    need[key] += 1
        if all(have >= k for have in need.values()):
            break
    return latest


def _latest_anywhere(
    adj: Adjacency, found: Found, before_t: float, k: int, latest: dict[tuple[str, str], float]
) -> None:
    """Without a current session: each key's k latest sightings by time, every session bounded by `before_t`.

    `best` holds the k largest times kept (a min-heap); rows come by unbounded time, newest
    first, and a bounded time is never larger, so once a row's time is below the k-th kept
    no later row can enter the ranking. Ties are read on.
    """
    for key in found:
        best: list[float] = []
        for s, t in adj.latest_sessions(key):
            if len(best) >= k and t < best[0]:
                break
            got = t if t <= before_t else adj.latest_in(key, s, float(before_t))
            if got is not None:
                latest[(key, s)] = got
                heapq.heappush(best, got)
                if len(best) > k:
                    heapq.heappop(best)


def ranked_groups(
    found: Found,
    latest: dict[tuple[str, str], float],
    k: int,
    session_id: str | None,
    earlier_sessions: Sequence[str],
) -> list[tuple[str, str]]:
    """The k (key, session) groups to answer: the best match first, then the current session, then
    the most recent sessions; without a current session, the latest stream times (sessions cannot
    be told apart in time then)."""
    order = {x: i for i, x in enumerate(earlier_sessions)}
    return sorted(
        latest,
        key=lambda g: (
            -found[g[0]][2],
            0 if g[1] == session_id else 1,
            -order.get(g[1], -1),
            -latest[g],
            g,
        ),
    )[:k]


def entity_hit(adj: Adjacency, found: Found, key: str, session_id: str, bound: float) -> EntityHit:
    """One entity in one session up to `bound`: its newest clips, its relations, its neighbours' clips."""
    clips = set(adj.clips(key, session_id, bound, MAX_ENTITY_CLIPS))
    nb: set[tuple[str, str, str, float]] = set()
    recent: dict[str, float] = {}
    for rel, o, oname, t, inverse in adj.relations(key, session_id, bound):
        nb.add((f"inverse of {rel}" if inverse else rel, oname or o, session_id, t))
        recent[o] = max(t, recent.get(o, float("-inf")))
    # The neighbours related most recently carry the clips; a bounded number of them,
    # since a common object is related to hundreds of others after a year.
    nb_keys = sorted(recent, key=lambda o: (-recent[o], o))[:MAX_NEIGHBOURS_WITH_CLIPS]
    ncl = adj.newest_clips(nb_keys, session_id, bound, clips, MAX_NEIGHBOUR_CLIPS)
    name, kind, score = found[key]
    return EntityHit(
        name=name,
        kind=kind,
        clip_indices=tuple(sorted(clips)),
        neighbours=tuple(sorted(nb, key=lambda x: (x[3], x))),  # ties in a fixed order, not hash order
        neighbour_clip_indices=tuple(sorted(ncl)),
        session_id=session_id,
        score=score,
    )
