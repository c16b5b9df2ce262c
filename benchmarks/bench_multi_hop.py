"""Latency of the multi-hop questions' reads in the graph engine at a year's scale, beside SQLite.

    python -m benchmarks.bench_multi_hop [--mentions 600000] [--anchors 60]

The graph is `bench_memory_graph`'s (20k entities, 200k clips in 35 days, ~600k mentions,
~200k relations). Anchors are entities across popularity: a third among the 100 most
mentioned, a third from 100-2,000, a third from the rest. For each anchor, the reads one
question makes through `memory.graph_hops.GraphHops`, asked in the current day up to its
middle as `retrieval/relations.py` asks them:

- "what did I use X with?": `sessions_seen` over every day, then `co_seen` (entity -> clip
  -> entity) in the newest day holding X;
- "what was on the X I carried?": `sightings` (its 64 newest clips) and `related` (relations
  touching it) in that day.

Beside each, the same rows read from the SQLite copy (`<graph>.adjacency.sqlite`) on its
indexes, with equal rows required: what it would cost if the copy answered these too.
Relations are compared as sets: COPY FROM keeps a duplicated CSV row as a second edge, which
the product's MERGE never makes and the copy's primary key drops.
CPU time is the process's (the engine works on its own threads). `--engine ladybug` runs the
same statements on the maintained fork (see `bench_graph_engines`). The captions read after
(one primary-key read of at most 64 rows in the store) is not in these figures.
Writes benchmarks/results/bench_multi_hop.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.bench_graph_engines import stats, uptime, use_engine
from benchmarks.bench_memory_graph import DAY, build, entity_names
from benchmarks.results_io import command_line, write
from edge_assist.memory.graph import EntityGraph, adjacency_path
from edge_assist.memory.graph_hops import GraphHops

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "bench_multi_hop.json"

SQL_SESSIONS = "SELECT session_id FROM latest WHERE key = ?"
SQL_CO_SEEN = (
    "SELECT o.key, c.clip_index FROM seen c JOIN seen o ON o.session_id = c.session_id "
    "AND o.clip_index = c.clip_index WHERE c.key = ?1 AND c.session_id = ?2 AND c.t1 <= ?3 AND o.key <> ?1"
)
SQL_SIGHTINGS = (
    "SELECT clip_index FROM seen WHERE key = ? AND session_id = ? AND t1 <= ? "
    "ORDER BY t1 DESC, clip_index DESC LIMIT 64"
)
SQL_RELATED = (
    "SELECT a, clip_index FROM related WHERE b = ?1 AND session_id = ?2 AND t <= ?3 UNION ALL "
    "SELECT b, clip_index FROM related WHERE a = ?1 AND session_id = ?2 AND t <= ?3"
)


def anchors(n_ent: int, n: int) -> list[str]:
    names = entity_names(n_ent)
    rng = np.random.default_rng(7)
    bands = ((0, 100), (100, min(2000, n_ent // 2)), (min(2000, n_ent // 2), n_ent))
    return [names[int(i)] for lo, hi in bands for i in rng.integers(lo, hi, n // 3)]


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    t, c = time.perf_counter(), time.process_time()
    got = fn()
    return got, time.perf_counter() - t, time.process_time() - c


def question_reads(
    hops: GraphHops, db: sqlite3.Connection, key: str, order: list[str], bound: dict[str, float]
) -> dict[str, tuple[Any, float, float]]:
    """The two questions' reads for one anchor, on each side; each value (rows, wall s, CPU s)."""

    def engine_with() -> tuple[Any, ...]:
        seen = hops.sessions_seen(key, order)
        s = next((x for x in order if x in seen), None)
        return (
            ()
            if s is None
            else (s, sorted((x.key, x.clip_index) for x in hops.co_seen(key, s, before=bound[s])))
        )

    def sql_with() -> tuple[Any, ...]:
        seen = {r[0] for r in db.execute(SQL_SESSIONS, (key,))}
        s = next((x for x in order if x in seen), None)
        return () if s is None else (s, sorted(db.execute(SQL_CO_SEEN, (key, s, bound[s])).fetchall()))

    def engine_on(s: str) -> tuple[Any, ...]:
        clips = [x.clip_index for x in hops.sightings(key, s, before=bound[s], n=64)]
        rel = sorted({(x.key, x.clip_index) for x in hops.related(key, s, after=-1.0, before=bound[s])})
        return clips, rel

    def sql_on(s: str) -> tuple[Any, ...]:
        clips = [r[0] for r in db.execute(SQL_SIGHTINGS, (key, s, bound[s]))]
        return clips, sorted(set(db.execute(SQL_RELATED, (key, s, bound[s])).fetchall()))

    out = {"with_engine": timed(engine_with), "with_sqlite": timed(sql_with)}
    day = out["with_engine"][0][0] if out["with_engine"][0] else order[0]
    out["on_engine"], out["on_sqlite"] = timed(lambda: engine_on(day)), timed(lambda: sql_on(day))
    return out


def measure(g: EntityGraph, db: sqlite3.Connection, keys: list[str], days: int, before_t: float) -> dict:
    hops = GraphHops(g)
    order = [f"day-{d:04d}" for d in reversed(range(days))]
    bound = {s: (before_t if i == 0 else math.inf) for i, s in enumerate(order)}
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    mismatches = {"with": 0, "on": 0}
    for timed_pass in (False, True):  # the first pass warms both sides' pages
        for key in keys:
            got = question_reads(hops, db, key, order, bound)
            if not timed_pass:
                continue
            for name, (_, w, c) in got.items():
                wall.setdefault(name, []).append(w)
                cpu.setdefault(name, []).append(c)
            for q in mismatches:
                mismatches[q] += int(got[f"{q}_engine"][0] != got[f"{q}_sqlite"][0])
    out: dict[str, Any] = {name: stats(wall[name], cpu[name]) for name in wall}
    for q in ("with", "on"):
        out[f"{q}_engine"]["ratio_p95_to_sqlite"] = round(
            out[f"{q}_engine"]["p95_ms"] / out[f"{q}_sqlite"]["p95_ms"], 1
        )
    out["mismatches"] = mismatches
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--entities", type=int, default=20_000)
    ap.add_argument("--clips", type=int, default=200_000)
    ap.add_argument("--mentions", type=int, default=600_000)
    ap.add_argument("--relations", type=int, default=200_000)
    ap.add_argument("--anchors", type=int, default=60)
    ap.add_argument("--engine", default="kuzu", choices=("kuzu", "ladybug"))
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    version = use_engine(args.engine)
    days = (args.clips - 1) // DAY + 1
    before_t = 10.0 * max(1, (args.clips - (days - 1) * DAY) // 2)
    keys = anchors(args.entities, args.anchors)
    load_before, up_before = os.getloadavg()[0], uptime()
    with tempfile.TemporaryDirectory(prefix="bench_multi_hop_") as d:
        path = Path(d) / "g.kuzu"
        built = build(path, Path(d), args.entities, args.clips, args.mentions, args.relations, seed=5)
        g, _ = EntityGraph.open(path)
        db = sqlite3.connect(f"file:{adjacency_path(path)}?mode=ro", uri=True)
        result = measure(g, db, keys, days, before_t)
        db.close()
        g.close()
    out = {
        "benchmark": "bench_multi_hop",
        "engine": {"name": args.engine, "version": version},
        "graph": built,
        "days": days,
        "anchors": len(keys),
        **result,
        "load": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "uptime": {"before": up_before, "after": uptime()},
        "total_s": round(time.perf_counter() - t0, 1),
    }
    write(args.out, out, command_line(argv))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
