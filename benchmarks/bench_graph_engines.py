"""The graph path through the graph engine's Cypher beside the SQLite copy, in one run, as ratios.

    python -m benchmarks.bench_graph_engines [--mentions 600000] [--queries 200] [--engine kuzu]
    PYTHONPATH=<a venv's site-packages holding ladybug> python -m benchmarks.bench_graph_engines \
        --engine ladybug --out benchmarks/results/bench_graph_engines_ladybug.json

The graph is the one `bench_memory_graph` makes (20k entities, 200k clips, ~600k mentions,
~200k relations, bulk-loaded with COPY into the product's schema), with the same queries:
real recipe steps and questions turned into names by `query_terms`, asked as the graph path
asks them (the current day up to its middle, and every earlier day). Each query runs the
product's `EntityGraph.neighbourhood` three times, back to back in a rotating order: over the
SQLite copy (`graph_adjacency`, what the product reads), over plain Cypher on the product's
schema, and over Cypher on a schema shaped for the path (`graph_engine_readers`). The three
must return equal hits. One untimed pass first warms every side's pages. Then the cost of a
write: 400 real captions' lexical extractions applied through `EntityGraph.apply` (the engine,
then the copy) beside the copy alone.

CPU time is the process's (`time.process_time`): the engine runs a statement on its own
worker threads, which the calling thread's CPU time would not see. `--engine ladybug` runs
the same statements on the maintained fork (it cannot share a process with kuzu: both
register the same native types). Writes benchmarks/results/bench_graph_engines.json.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import caption_vectors
from benchmarks.bench_memory_graph import DAY, build
from benchmarks.graph_engine_readers import PlainCypher, ShapedCypher, shape
from benchmarks.percentiles import percentile
from benchmarks.results_io import command_line, write
from edge_assist.memory import cypher
from edge_assist.memory.api import EntityHit
from edge_assist.memory.graph import EntityGraph, adjacency_path
from edge_assist.memory.graph_adjacency import Adjacency
from edge_assist.memory.lexical import extract_lexical
from edge_assist.retrieval.paths import query_terms

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "bench_graph_engines.json"
SIDES = ("sqlite_copy", "cypher_plain", "cypher_shaped")


def use_engine(name: str) -> str:
    """Point the product's one engine import at `name`; returns the engine's version."""
    mod = importlib.import_module(name)
    cypher.engine = lambda: mod  # type: ignore[assignment]  # the seam cypher.py keeps for this
    return str(getattr(mod, "__version__", "?"))


def du_mb(path: Path) -> float:
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    return round(sum(p.stat().st_size for p in files) / 1e6, 1)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def stats(wall: list[float], cpu: list[float]) -> dict[str, float | None]:
    ms, cms = [1000 * x for x in wall], [1000 * x for x in cpu]
    return {
        "p50_ms": percentile(ms, 50, 2),
        "p95_ms": percentile(ms, 95, 2),
        "max_ms": round(max(ms), 2),
        "cpu_p50_ms": percentile(cms, 50, 2),
        "cpu_p95_ms": percentile(cms, 95, 2),
    }


def measure(
    g: EntityGraph, queries: list[list[str]], ask: Callable[[EntityGraph, list[str]], list[EntityHit]]
) -> dict[str, Any]:
    """Each query on each side, rotating which side goes first; equal hits or a counted mismatch."""
    copy = g._adj
    statements = [0]

    def q(text: str, params: dict[str, Any] | None) -> list[list[Any]]:
        statements[0] += 1
        return g._q(text, params)

    sides: dict[str, Any] = {
        "sqlite_copy": copy,
        "cypher_plain": PlainCypher(q),
        "cypher_shaped": ShapedCypher(q),
    }
    counted = {s: 0 for s in SIDES}
    wall: dict[str, list[float]] = {s: [] for s in SIDES}
    cpu: dict[str, list[float]] = {s: [] for s in SIDES}
    mismatches = {s: 0 for s in SIDES}
    for timed in (False, True):
        for n, names in enumerate(queries):
            got: dict[str, list[EntityHit]] = {}
            for side in SIDES[n % 3 :] + SIDES[: n % 3]:
                g._adj = sides[side]  # the product's own neighbourhood, over this side's reads
                before, t, c = statements[0], time.perf_counter(), time.process_time()
                got[side] = ask(g, names)
                if timed:
                    wall[side].append(time.perf_counter() - t)
                    cpu[side].append(time.process_time() - c)
                    counted[side] += statements[0] - before
            for side in SIDES[1:]:
                mismatches[side] += int(timed and got[side] != got["sqlite_copy"])
    g._adj = copy
    out: dict[str, Any] = {
        s: {**stats(wall[s], cpu[s]), "mismatches": mismatches[s], "statements_per_query": None}
        for s in SIDES
    }
    for s in SIDES[1:]:
        out[s]["statements_per_query"] = round(counted[s] / len(queries), 1)
    base = out["sqlite_copy"]
    for s in SIDES[1:]:
        out[s]["ratio_p50"] = round(out[s]["p50_ms"] / base["p50_ms"], 1)
        out[s]["ratio_p95"] = round(out[s]["p95_ms"] / base["p95_ms"], 1)
        out[s]["ratio_cpu_p95"] = round(out[s]["cpu_p95_ms"] / base["cpu_p95_ms"], 1)
    return out


def write_cost(work: Path, n: int = 400) -> dict[str, float]:
    """ms a caption to apply real lexical extractions: engine and copy (`apply`), then the copy alone."""
    exs = [extract_lexical(t) for t in caption_vectors.caption_texts()[:n]]
    g, _ = EntityGraph.open(work / "writes.kuzu")
    copy = Adjacency(work / "writes_alone.sqlite")
    out: dict[str, float] = {}
    for name, apply in (
        ("both", lambda i, ex: g.apply("s", i, 10.0 * i, 10.0 * i + 10, ex)),
        ("copy", lambda i, ex: copy.apply("s", i, 10.0 * i + 10, ex.entities, ex.relations)),
    ):
        t, c = time.perf_counter(), time.process_time()
        for i, ex in enumerate(exs):
            apply(i, ex)
        out[f"{name}_ms"] = round((time.perf_counter() - t) / len(exs) * 1000, 2)
        out[f"{name}_cpu_ms"] = round((time.process_time() - c) / len(exs) * 1000, 2)
    g.close()
    copy.close()
    out["engine_ms"] = round(out["both_ms"] - out["copy_ms"], 2)
    out["engine_cpu_ms"] = round(out["both_cpu_ms"] - out["copy_cpu_ms"], 2)
    return {"captions": len(exs), **out}


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--entities", type=int, default=20_000)
    ap.add_argument("--clips", type=int, default=200_000)
    ap.add_argument("--mentions", type=int, default=600_000)
    ap.add_argument("--relations", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--engine", default="kuzu", choices=("kuzu", "ladybug"))
    ap.add_argument("--threads", type=int, default=0, help="engine threads per statement (0: its default)")
    ap.add_argument("--out", default=str(RESULTS))
    return ap.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    t0 = time.perf_counter()
    version = use_engine(args.engine)
    texts = caption_vectors.query_texts()
    order = np.random.default_rng(3).permutation(len(texts))[: args.queries]
    queries = [query_terms(texts[i]) for i in order]
    days = (args.clips - 1) // DAY + 1
    cur, earlier = f"day-{days - 1:04d}", [f"day-{d:04d}" for d in range(days - 1)]
    before_t = 10.0 * max(1, (args.clips - (days - 1) * DAY) // 2)

    def ask(g: EntityGraph, names: list[str]) -> list[EntityHit]:
        return g.neighbourhood(names, before_t=before_t, k=args.k, session_id=cur, earlier_sessions=earlier)

    load_before, up_before = os.getloadavg()[0], uptime()
    with tempfile.TemporaryDirectory(prefix="bench_graph_engines_") as d:
        path = Path(d) / "g.kuzu"
        built = build(path, Path(d), args.entities, args.clips, args.mentions, args.relations, seed=5)
        g, _ = EntityGraph.open(path)  # copies the bulk load into the SQLite copy, as the product would
        if args.threads:
            g._conn.set_max_threads_for_exec(args.threads)
        built["engine_files_mb"] = du_mb(path)
        built["shaped_copy_s"] = round(shape(g._q, Path(d)), 1)
        built["engine_files_with_shaped_mb"] = du_mb(path)
        built["sqlite_copy_mb"] = du_mb(adjacency_path(path))
        result = measure(g, queries, ask)
        g.close()
        writes = write_cost(Path(d))
    out = {
        "benchmark": "bench_graph_engines",
        "engine": {"name": args.engine, "version": version},
        "graph": built,
        "days": days,
        "queries": len(queries),
        "k": args.k,
        "engine_threads": args.threads or "default",
        **result,
        "writes_per_caption": writes,
        "target_p95_ms": 20.0,
        "load": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "uptime": {"before": up_before, "after": uptime()},
        "total_s": round(time.perf_counter() - t0, 1),
    }
    write(args.out, out, command_line(argv))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
