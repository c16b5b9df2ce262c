"""Things linked to a thing across two hops of the entity graph, as moments the answers room can tell.

Two questions the one-hop graph path cannot answer, asked of Kùzu (`memory.graph_hops`):

- `on_it`: what was on (in) a thing when the wearer did something with it ("the tray I
  carried"). Hop one finds the clips the thing was seen in whose caption tells the act;
  hop two follows the relations that put other things on it since the act before, minus
  those taken off again, plus what the act's own clip carried with it.
- `used_with`: what a thing was used with. Hop one finds the clips it was seen in, hop
  two the other things those clips name, ranked by how many clips they share.

Sessions are searched newest first (the current one up to `before_t`, then, with
`past_sessions`, the earlier ones whole): a question about "the tray" means its latest
use. A found moment's `score` is how well the thing's name matched (1.0 exact, 0.6 a part
of a longer name), not a text cosine: the graph found it, not the encoder. Blocking.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from edge_assist.memory.api import CaptionRecord, MemoryReader, sessions_before
from edge_assist.memory.graph_hops import GraphHops, Linked
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.when import SessionAges

# Clips of the thing read per session, newest first: the act asked about is a recent one.
MAX_SIGHTINGS = 64
# Things told back: a sentence the wearer can follow.
MAX_THINGS = 3
# The last word of a relation that takes a thing off another ("takes from", "lifts off").
_OFF = frozenset({"from", "off"})


@dataclass(frozen=True)
class Found:
    anchor: str  # the thing asked about, as memory names it
    moment: Moment  # the clip the answer rests on: the act, or the latest clip shared
    things: tuple[str, ...]  # names of the things linked to it, best first
    evidence: tuple[Moment, ...]  # the clips that link them


class Relations:
    def __init__(self, memory: MemoryReader, hops: GraphHops) -> None:
        self._memory = memory
        self._hops = hops

    def _sessions(self, session_id: str | None, before_t: float, past: bool) -> list[tuple[str, float]]:
        """(session, bound) newest first: the current one up to now, earlier ones whole."""
        starts = self._memory.session_starts()
        if session_id is None:
            return [(s, before_t) for s in reversed(list(starts))]
        earlier = sessions_before(starts, session_id) if past else []
        return [(session_id, before_t), *((s, math.inf) for s in reversed(earlier))]

    def _search(
        self, names: Sequence[str], session_id: str | None, before_t: float, past: bool
    ) -> list[tuple[str, str, float, str, float]]:
        """(key, name, match score, session, bound) to look at: the newest session first, exact names
        only when there are any (a part of a longer name otherwise, the shortest first)."""
        found = self._hops.find(names)
        exact = [k for k, v in found.items() if v[2] >= 1.0]
        keys = exact or sorted(found, key=lambda k: (-found[k][2], len(k), k))
        order = self._sessions(session_id, before_t, past)
        seen = {k: self._hops.sessions_seen(k, [s for s, _ in order]) for k in keys}
        return [(k, found[k][0], found[k][2], s, b) for s, b in order for k in keys if s in seen[k]]

    def _moments(self, score: float, ages: SessionAges, clips: Sequence[tuple[str, int]]) -> list[Moment]:
        """(session, clip index) as moments with their captions, in the order given."""
        out: list[Moment] = []
        by_session: dict[str, list[int]] = {}
        for s, i in clips:
            by_session.setdefault(s, []).append(i)
        records: dict[tuple[str, int], CaptionRecord] = {}
        for s, idx in by_session.items():
            records.update({(r.session_id, r.clip_index): r for r in self._memory.captions(s, sorted(idx))})
        for key in clips:
            r = records.get(key)
            if r is not None:
                out.append(
                    Moment(
                        r.session_id, r.clip_index, r.t0, r.t1, r.text, score, ages.note(r.session_id, r.t0)
                    )
                )
        return out

    def on_it(
        self,
        names: Sequence[str],
        *,
        did: Callable[[str], bool] | None,
        preps: frozenset[str],
        before_t: float,
        session_id: str | None = None,
        past_sessions: bool = False,
    ) -> Found | None:
        """What was put on the thing (the relation's last word in `preps`) before its latest act.

        `did` says whether a caption tells the act ("carries the tray"); None: the thing's
        latest clip is the moment."""
        ages = SessionAges(self._memory.session_starts(), session_id, before_t)
        for key, anchor, score, s, bound in self._search(names, session_id, before_t, past_sessions):
            sightings = self._hops.sightings(key, s, before=bound, n=MAX_SIGHTINGS)
            seen = self._moments(score, ages, [(x.session_id, x.clip_index) for x in sightings])
            done = [m for m in seen if did is None or did(m.text)]
            if not done:
                continue
            # The latest act is the one asked about: nothing found on it is no answer, not an older act's.
            act, since = done[0], (done[1].t1 if len(done) > 1 else -1.0)
            things = _still_on(self._hops.related(key, s, after=since, before=act.t1), preps, act.clip_index)
            if not things:
                return None
            clips = sorted({(s, x.clip_index) for x in things}, reverse=True)
            evidence = self._moments(score, ages, clips)
            return Found(anchor, act, tuple(x.name for x in things[:MAX_THINGS]), (act, *evidence))
        return None

    def used_with(
        self,
        names: Sequence[str],
        *,
        before_t: float,
        session_id: str | None = None,
        past_sessions: bool = False,
    ) -> Found | None:
        """The things named together with the thing, in the newest session that has any."""
        ages = SessionAges(self._memory.session_starts(), session_id, before_t)
        for key, anchor, score, s, bound in self._search(names, session_id, before_t, past_sessions):
            links = self._hops.co_seen(key, s, before=bound)
            if not links:
                continue
            shared: dict[str, set[int]] = {}
            latest: dict[str, Linked] = {}
            for x in links:
                shared.setdefault(x.key, set()).add(x.clip_index)
                if x.key not in latest or (x.t, x.clip_index) > (latest[x.key].t, latest[x.key].clip_index):
                    latest[x.key] = x
            ranked = sorted(shared, key=lambda k: (-len(shared[k]), -latest[k].t, k))[:MAX_THINGS]
            clips = sorted({(s, i) for k in ranked for i in shared[k]}, reverse=True)
            evidence = self._moments(score, ages, clips)
            if evidence:
                # The answer rests on the latest clip the best-linked thing shares with it.
                top = latest[ranked[0]].clip_index
                moment = next((m for m in evidence if m.clip_index == top), evidence[0])
                return Found(anchor, moment, tuple(latest[k].name for k in ranked), tuple(evidence))
        return None


def _still_on(links: Sequence[Linked], preps: frozenset[str], act_clip: int) -> list[Linked]:
    """Things put on it and not taken off again, in time order; plus what the act carried "with" it."""
    on: dict[str, Linked] = {}
    for x in sorted(links, key=lambda x: (x.t, x.clip_index, x.key)):
        last = x.relation.split()[-1] if x.relation else ""
        if x.inverse and last in preps:
            on[x.key] = x
        elif x.inverse and last in _OFF:
            on.pop(x.key, None)
        elif not x.inverse and last == "with" and x.clip_index == act_clip:
            on.setdefault(x.key, x)
    return list(on.values())
