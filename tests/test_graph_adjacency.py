"""The graph path read from the SQLite adjacency, against a brute force over what was applied.

A random graph (sessions, clips, entities with shared words, relations) goes through the
real `EntityGraph.apply` (Kùzu and the adjacency); every query of the graph path is then
answered by a plain Python scan of the applied captions with the documented rules (t' <= t
in the current session, earlier sessions whole, k groups, bounded neighbour clips) and must
match exactly. The adjacency copied from Kùzu (file removed) and after `forget` must too.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from edge_assist.memory import graph_neighbourhood as neighbourhood_mod
from edge_assist.memory.entities import Extraction
from edge_assist.memory.graph import EntityGraph, adjacency_path
from edge_assist.memory.graph_neighbourhood import MAX_NEIGHBOUR_CLIPS, MAX_NEIGHBOURS_WITH_CLIPS

WORDS = ["bowl", "knife", "board", "pan", "egg", "cup", "spoon", "jar"]
SIDES = ["red", "small", "glass", "big"]


def _random_captions(seed: int) -> list[tuple[str, int, float, Extraction]]:
    rng = random.Random(seed)
    names = WORDS + [f"{a} {b}" for a in SIDES for b in WORDS[:4]]
    out = []
    for s in ("s0", "s1", "s2"):
        for ci in range(40):
            ents = rng.sample(names, rng.randint(1, 4))
            rels = [(a, rng.choice(["on", "in", "cuts"]), b) for a, b in zip(ents, ents[1:], strict=False)]
            ex = Extraction(
                tuple((e, f"the {e}" if rng.random() < 0.3 else e, "object") for e in ents), tuple(rels)
            )
            # Some clips share an end time, so ordering by (time, index) is exercised.
            out.append((s, ci, float(10 * (ci // 2 + 1)), ex))
    return out


def _reference(
    caps: list[tuple[str, int, float, Extraction]],
    found: dict[str, tuple[str, str, float]],
    before_t: float,
    k: int,
    session_id: str | None,
    earlier: list[str],
    applied: list,
) -> list[tuple]:
    names: dict[str, str] = {}  # an entity keeps the name it was created with, a forget of that clip aside
    for _, _, _, ex in applied:
        for key, name, _ in ex.entities:
            names.setdefault(key, name)

    def bound(s: str) -> float:
        return before_t if session_id is None or s == session_id else float("inf")

    def allowed(s: str) -> bool:
        return session_id is None or s == session_id or (s in earlier and bool(earlier))

    seen = [
        (key, s, ci, t1)
        for s, ci, t1, ex in caps
        for key, _, _ in ex.entities
        if t1 <= bound(s) and allowed(s)
    ]
    out = []
    for key, s in _ranked(seen, found, k, session_id, earlier):
        own = sorted({(t1, ci) for kk, ss, ci, t1 in seen if kk == key and ss == s}, reverse=True)
        clips = {ci for _, ci in own[: neighbourhood_mod.MAX_ENTITY_CLIPS]}  # the newest sightings
        nb, recent = set(), {}
        for ss, _, t1, ex in caps:
            if ss != s or t1 > bound(s):
                continue
            for a, rel, b in ex.relations:
                if key in (a, b):
                    o = b if a == key else a
                    nb.add((rel if a == key else f"inverse of {rel}", names[o], s, t1))
                    recent[o] = max(t1, recent.get(o, float("-inf")))
        nb_keys = sorted(recent, key=lambda o: (-recent[o], o))[:MAX_NEIGHBOURS_WITH_CLIPS]
        nclips = {(t1, ci) for kk, ss, ci, t1 in seen if kk in nb_keys and ss == s}
        ncl = [ci for _, ci in sorted(nclips, reverse=True) if ci not in clips][:MAX_NEIGHBOUR_CLIPS]
        out.append(
            (
                found[key][0],
                s,
                tuple(sorted(clips)),
                tuple(sorted(nb, key=lambda x: (x[3], x))),
                tuple(sorted(ncl)),
            )
        )
    return out


def _ranked(
    seen: list[tuple[str, str, int, float]],
    found: dict[str, tuple[str, str, float]],
    k: int,
    session_id: str | None,
    earlier: list[str],
) -> list[tuple[str, str]]:
    """The k (key, session) groups: the current session first, then the most recent earlier sessions
    (their order, not their stream times: those restart with each session); without a session, the
    latest times."""
    latest: dict[tuple[str, str], float] = {}
    for key, s, _, t1 in seen:
        if key in found:
            latest[(key, s)] = max(t1, latest.get((key, s), float("-inf")))
    order = {s: i for i, s in enumerate(earlier)}
    return sorted(
        latest,
        key=lambda g: (-found[g[0]][2], 0 if g[1] == session_id else 1, -order.get(g[1], -1), -latest[g], g),
    )[:k]


def _answers(
    g: EntityGraph, caps: list, queries: list, applied: list | None = None
) -> list[tuple[list, list]]:
    got = []
    for names, before_t, k, sid, earlier in queries:
        hits = g.neighbourhood(names, before_t=before_t, k=k, session_id=sid, earlier_sessions=earlier)
        mine = [
            (
                h.name,
                h.session_id,
                h.clip_indices,
                tuple(sorted(h.neighbours, key=lambda x: (x[3], x))),
                h.neighbour_clip_indices,
            )
            for h in hits
        ]
        got.append((mine, _reference(caps, g.find(names), before_t, k, sid, earlier, applied or caps)))
    return got


QUERIES = [
    (["bowl"], 100.0, 8, "s2", ["s0", "s1"]),
    (["the knife", "board"], 55.0, 3, "s2", ["s0", "s1"]),
    (["glass bowl", "egg"], 150.0, 8, "s1", []),
    (["pan"], 30.0, 5, None, []),
    (["cup", "spoon", "jar"], 200.0, 2, "s0", ["s1"]),
]


def test_graph_path_matches_a_brute_force_of_what_was_applied(tmp_path: Path) -> None:
    caps = _random_captions(1)
    g, created = EntityGraph.open(tmp_path / "g.kuzu")
    assert created
    for s, ci, t1, ex in caps:
        g.apply(s, ci, t1 - 10.0, t1, ex)
    g.apply(*caps[5][:2], caps[5][2] - 10.0, caps[5][2], caps[5][3])  # a replay changes nothing
    for mine, ref in _answers(g, caps, QUERIES):
        assert mine == ref and mine
    g.close()

    # A graph without its adjacency (made before it, or bulk-loaded) is copied from Kùzu at open.
    adjacency_path(tmp_path / "g.kuzu").unlink()
    g, created = EntityGraph.open(tmp_path / "g.kuzu")
    assert not created
    for mine, ref in _answers(g, caps, QUERIES):
        assert mine == ref

    gone = {(s, ci) for s, ci, _, _ in caps if ci % 3 == 0}
    g.forget(sorted(gone))
    left = [c for c in caps if (c[0], c[1]) not in gone]
    for mine, ref in _answers(g, left, QUERIES, caps):
        assert mine == ref
    assert all(ci % 3 for h in g.neighbourhood(["bowl"], before_t=1e9, k=8) for ci in h.clip_indices)
    g.close()


def test_a_hit_carries_its_newest_clips_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An object seen in hundreds of clips: a hit carries the latest few (the bound binds here)."""
    monkeypatch.setattr(neighbourhood_mod, "MAX_ENTITY_CLIPS", 5)
    caps = _random_captions(2)
    g, _ = EntityGraph.open(tmp_path / "g.kuzu")
    for s, ci, t1, ex in caps:
        g.apply(s, ci, t1 - 10.0, t1, ex)
    answers = _answers(g, caps, QUERIES)
    assert any(len(h[2]) == 5 for mine, _ in answers for h in mine)  # the cap was reached
    for mine, ref in answers:
        assert mine == ref and mine
    g.close()


def test_the_most_recent_sessions_come_first_whatever_their_stream_times(tmp_path: Path) -> None:
    """Stream time restarts each session: an egg poured at 1:30:00 on Monday is older than one
    poured at 0:00:30 today. With k groups, the k most recent sessions that saw it are kept."""
    g, _ = EntityGraph.open(tmp_path / "g.kuzu")
    days = [f"day-{d}" for d in range(10)]
    egg = Extraction((("egg", "egg", "object"),), ())
    for d, s in enumerate(days):
        t1 = 5400.0 - 500.0 * d  # older days saw it later in their stream
        g.apply(s, 3, t1 - 10.0, t1, egg)
    hits = g.neighbourhood(["egg"], before_t=100.0, k=3, session_id="today", earlier_sessions=days)
    assert [h.session_id for h in hits] == ["day-9", "day-8", "day-7"]
    g.close()
