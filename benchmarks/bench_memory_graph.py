"""The graph path at a year's scale: Kùzu with 20k entities, 200k clips, 600k mentions.

    python -m benchmarks.bench_memory_graph [--entities 20000] [--clips 200000] [--mentions 600000]
                                            [--relations 200000] [--queries 200]

The graph is made with the product's schema (`EntityGraph.open`) and bulk-loaded with
Kùzu's COPY FROM (CSV), since 200k captions cannot go through the LLM here. Entity names
are real: single words and adjacent word pairs of the bundled CaptainCook4D captions
("butter knife", "tortilla"), the most frequent first; mentions follow a Zipf law over
them (a few objects are seen every day, most rarely), 3 per clip on average, in days of
5,760 clips. Each query is a real recipe step or question turned into candidate names by
the product's `query_terms` (up to 12 terms), answered by `EntityGraph.neighbourhood`
as the graph path calls it: the current day up to its middle plus every earlier day.
Reports the median and p95 latency, and the build time. Writes
benchmarks/results/bench_memory_graph.json.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import caption_vectors
from benchmarks.results_io import command_line, write
from edge_assist.memory.graph import EntityGraph, adjacency_path, clip_id
from edge_assist.retrieval.paths import query_terms
from edge_assist.runtime.percentiles import percentile

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "bench_memory_graph.json"
DAY = 5760
RELATIONS = ("on", "in", "with", "near", "cut with", "poured into")


# Caption words that are not objects: function words and the verbs of the recipes.
_NOT_OBJECTS = frozenset(
    "the a an and or of to in on into onto with from for by at over under off out up down then now "
    "one two three four half it its this that these those some all any each both more less until while "
    "after before again also place put add take cut pour use mix stir spread scoop remove open close turn "
    "set get let make cook heat microwave wipe clean wash slice chop peel fold roll press transfer serve "
    "season sprinkle cover cool bake boil fry drain whisk beat rinse dry keep hold leave move insert break "
    "measure repeat continue start finish wait "
    "high low medium about inch inches cup cups minute minutes second seconds".split()
)


def entity_names(n: int) -> list[str]:
    """Object-like names from the captions: nouns and two-word names ("butter knife"), most frequent first.

    Function words, recipe verbs and -ing/-ed forms are dropped (an extractor names objects);
    beyond the names the captions hold, new two-word names are made from their words
    ("glass skillet"), as a year brings more objects than the recipes name.
    """

    def objecty(w: str) -> bool:
        return len(w) > 2 and w not in _NOT_OBJECTS and not w.endswith(("ing", "ed", "ly"))

    counts: Counter[str] = Counter()
    for text in caption_vectors.caption_texts():
        words = re.findall(r"[a-z][a-z-]+", text.lower())
        counts.update(w for w in words if objecty(w))
        counts.update(f"{a} {b}" for a, b in zip(words, words[1:], strict=False) if objecty(a) and objecty(b))
    out = [w for w, _ in counts.most_common(n)]
    singles = [w for w in out if " " not in w]
    rng = np.random.default_rng(11)
    seen = set(out)
    while len(out) < n:
        a, b = singles[int(rng.integers(len(singles)))], singles[int(rng.integers(len(singles)))]
        if a != b and f"{a} {b}" not in seen:
            seen.add(f"{a} {b}")
            out.append(f"{a} {b}")
    return out


def build(
    path: Path, work: Path, n_ent: int, n_clips: int, n_mentions: int, n_rel: int, seed: int
) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    names = entity_names(n_ent)
    # Zipf-like popularity over the frequency-ordered names.
    p = 1.0 / np.arange(1, n_ent + 1) ** 1.05
    p /= p.sum()
    files = {k: work / f"{k}.csv" for k in ("entity", "clip", "seen", "rel")}
    with open(files["entity"], "w", newline="") as f:
        w = csv.writer(f)
        for nm in names:
            w.writerow([nm, nm, "object"])
    with open(files["clip"], "w", newline="") as f:
        w = csv.writer(f)
        for j in range(n_clips):
            s, i = f"day-{j // DAY:04d}", j % DAY
            w.writerow([clip_id(s, i), s, i, 10.0 * i, 10.0 * (i + 1)])
    ent = rng.choice(n_ent, n_mentions, p=p)
    clip = rng.integers(0, n_clips, n_mentions)
    pairs = np.unique(np.stack([ent, clip], 1), axis=0)
    with open(files["seen"], "w", newline="") as f:
        w = csv.writer(f)
        for e, c in pairs:
            w.writerow([names[e], clip_id(f"day-{c // DAY:04d}", int(c % DAY))])
    a, b = rng.choice(n_ent, n_rel, p=p), rng.choice(n_ent, n_rel, p=p)
    rc = rng.integers(0, n_clips, n_rel)
    with open(files["rel"], "w", newline="") as f:
        w = csv.writer(f)
        for x, y, c in zip(a, b, rc, strict=True):
            if x != y:
                w.writerow(
                    [
                        names[x],
                        names[y],
                        RELATIONS[int(c) % len(RELATIONS)],
                        f"day-{c // DAY:04d}",
                        int(c % DAY),
                        10.0 * (c % DAY + 1),
                    ]
                )
    t = time.perf_counter()
    g, _ = EntityGraph.open(path)
    for table, f in (("Entity", "entity"), ("Clip", "clip"), ("SEEN_IN", "seen"), ("RELATED", "rel")):
        g._q(f"COPY {table} FROM '{files[f]}' (header=false)")
    counts = g.counts()
    g.close()
    # COPY went around `EntityGraph.apply`: the adjacency made empty at the first open is dropped,
    # so the next open copies it from Kùzu (as for a graph made before the adjacency existed).
    adjacency_path(path).unlink()
    return {"build_s": round(time.perf_counter() - t, 1), **counts}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--entities", type=int, default=20_000)
    ap.add_argument("--clips", type=int, default=200_000)
    ap.add_argument("--mentions", type=int, default=600_000)
    ap.add_argument("--relations", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    qtexts = caption_vectors.query_texts()
    rng = np.random.default_rng(3)
    qtexts = [qtexts[i] for i in rng.permutation(len(qtexts))[: args.queries]]
    days = (args.clips - 1) // DAY + 1
    cur, earlier = f"day-{days - 1:04d}", [f"day-{d:04d}" for d in range(days - 1)]
    before_t = 10.0 * max(1, (args.clips - (days - 1) * DAY) // 2)
    with tempfile.TemporaryDirectory(prefix="bench_memory_graph_") as d:
        built = build(
            Path(d) / "g.kuzu", Path(d), args.entities, args.clips, args.mentions, args.relations, seed=5
        )
        t = time.perf_counter()
        g, _ = EntityGraph.open(Path(d) / "g.kuzu")  # the first open copies the bulk load into the adjacency
        g.close()
        built["adjacency_copy_s"] = round(time.perf_counter() - t, 1)
        g, _ = EntityGraph.open(Path(d) / "g.kuzu")
        lat, cpu, hits, clips = [], [], [], []
        for q in qtexts:
            names = query_terms(q)
            t, c = time.perf_counter(), time.thread_time()
            res = g.neighbourhood(
                names, before_t=before_t, k=args.k, session_id=cur, earlier_sessions=earlier
            )
            lat.append(time.perf_counter() - t)
            # CPU time of this thread: the figure that does not depend on the other work on the machine.
            cpu.append(time.thread_time() - c)
            hits.append(len(res))
            clips.append(sum(len(h.clip_indices) + len(h.neighbour_clip_indices) for h in res))
        g.close()
    ms = np.asarray(lat) * 1000
    cms = np.asarray(cpu) * 1000
    out = {
        "benchmark": "bench_memory_graph",
        "graph": built,
        "days": days,
        "queries": len(qtexts),
        "k": args.k,
        "neighbourhood_p50_ms": percentile(ms, 50, 2),
        "neighbourhood_p95_ms": percentile(ms, 95, 2),
        "neighbourhood_max_ms": round(float(ms.max()), 2),
        "neighbourhood_cpu_p50_ms": percentile(cms, 50, 2),
        "neighbourhood_cpu_p95_ms": percentile(cms, 95, 2),
        "load_avg_1m": round(os.getloadavg()[0], 2),
        "mean_hits": round(float(np.mean(hits)), 2),
        "mean_clip_refs": round(float(np.mean(clips)), 1),
        "total_s": round(time.perf_counter() - t0, 1),
    }
    write(args.out, out, command_line(argv))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
