"""Temporal search at a year's scale: the IVF index beside numpy and sqlite-vec brute force.

    python -m benchmarks.bench_memory_scale [--sizes 10000,100000,1000000] [--queries 100]

Real caption vectors (MiniLM of the bundled CaptainCook4D captions, grown to N as
`benchmarks.caption_vectors` documents: noisy copies and two-caption mixtures) go through
the real `MemoryStore` in days of 5,760 clips (16 h at 10 s), in bulk transactions; after
each day the idle-time index work runs to completion, as the memory writer does it when
its queue is empty, so the index at each size was built incrementally (trained at the
configured minimum, re-trained each time the memory doubled). At each size, the queries
(recipe step texts and questions, never stored rows) are searched the way retrieval does:
the current day up to the middle of it (t' <= t) plus every earlier day. Three ways, in
the same run on the same data:

- `numpy`: exact top-10 by one matrix product over the rows in scope (the reference);
- `sqlite_vec_exact`: the store's exact path (`memory.ann_min_items = 0`), a vec0 scan;
- `ivf`: the store's index path (k-means lists as a vec0 partition key, `--probe` lists).

Latency is the median and p95 of the queries (wall clock, and the process's CPU time, which
is what matters on a machine shared with other work); recall@10 is against numpy. Writes
benchmarks/results/bench_memory_scale.json.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import caption_vectors
from benchmarks.results_io import command_line, write
from edge_assist.memory.ivf import IvfSettings
from edge_assist.memory.store import MemoryStore, Windows
from edge_assist.runtime.percentiles import percentile

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "bench_memory_scale.json"
DAY = 5760  # clips in a 16-hour day at 10 s
K = 10
WINDOWS = Windows(10.0, 60.0, 300.0)


def pct(xs: list[float], p: float) -> float | None:
    """The p-th percentile of xs (seconds) in ms."""
    return percentile((1000.0 * x for x in xs), p)


def fill(store: MemoryStore, data: np.ndarray, start: int, stop: int) -> float:
    """Rows start..stop as days of clips; returns seconds of idle-time index work after them."""
    idle = 0.0
    a = start
    while a < stop:
        b = min(stop, (a // DAY + 1) * DAY)
        rows = [
            (f"day-{j // DAY:04d}", j % DAY, 10.0 * (j % DAY), 10.0 * (j % DAY + 1), f"clip {j}", data[j])
            for j in range(a, b)
        ]
        for i in range(0, len(rows), 2000):
            store.add_clips(rows[i : i + 2000], windows=WINDOWS)
        if b % DAY == 0 or b == stop:
            t = time.perf_counter()
            while store.index_step(5.0):
                pass
            idle += time.perf_counter() - t
        a = b
    return idle


def _numpy_exact(
    scope: np.ndarray, scope_idx: np.ndarray, qs: np.ndarray, lat: list[float], cpu: list[float]
) -> list[set[tuple[str, int]]]:
    """The exact top K of each query by numpy over the rows in scope: the recall reference,
    and the brute-force baseline's latency (process CPU time: its BLAS product uses other threads)."""
    exact: list[set[tuple[str, int]]] = []
    for q in qs:
        t, c = time.perf_counter(), time.process_time()
        s = scope @ q
        top = np.argpartition(-s, K)[:K]
        top = top[np.argsort(-s[top])]
        lat.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        exact.append({(f"day-{int(scope_idx[i]) // DAY:04d}", int(scope_idx[i]) % DAY) for i in top})
    return exact


def _latencies(
    row: dict[str, Any], lat: dict[str, list[float]], cpu: dict[str, list[float]], probes: list[int]
) -> None:
    """p50 / p95 of each search (wall and CPU, ms) and each probe count's ratio to the baselines."""
    for name, xs in lat.items():
        row[f"{name}_p50_ms"] = pct(xs, 50)
        row[f"{name}_p95_ms"] = pct(xs, 95)
        row[f"{name}_cpu_p50_ms"] = pct(cpu[name], 50)
        row[f"{name}_cpu_p95_ms"] = pct(cpu[name], 95)
    for p in probes:
        row[f"ivf_probe{p}_vs_numpy_p95"] = row[f"ivf_probe{p}_p95_ms"] / row["numpy_p95_ms"]
        row[f"ivf_probe{p}_vs_sqlite_vec_exact_p95"] = (
            row[f"ivf_probe{p}_p95_ms"] / row["sqlite_vec_exact_p95_ms"]
        )
    # The configured probe count (the first) also under the plain `ivf_` names the bench summary reads.
    first = f"ivf_probe{probes[0]}_"
    row.update({"ivf_" + k[len(first) :]: v for k, v in list(row.items()) if k.startswith(first)})


def measure(
    stores: dict[int, MemoryStore],
    exact_store: MemoryStore,
    data: np.ndarray,
    n: int,
    qs: np.ndarray,
    n_slow: int,
) -> dict[str, Any]:
    cur_day = (n - 1) // DAY
    cur = f"day-{cur_day:04d}"
    day_rows = n - cur_day * DAY
    before_t = 10.0 * max(1, day_rows // 2)  # the middle of the current day
    earlier = [f"day-{d:04d}" for d in range(cur_day)]
    rows = np.arange(n)
    in_scope = (rows < cur_day * DAY) | ((rows >= cur_day * DAY) & (10.0 * (rows % DAY + 1) <= before_t))
    scope_idx = np.flatnonzero(in_scope)
    scope = data[scope_idx]
    names = ["numpy", *(f"ivf_probe{p}" for p in stores), "sqlite_vec_exact"]
    lat: dict[str, list[float]] = {k: [] for k in names}
    # CPU seconds of the calling thread per query: what the wall time would be without other
    # load (SQLite runs in the calling thread).
    cpu: dict[str, list[float]] = {k: [] for k in names}
    exact = _numpy_exact(scope, scope_idx, qs, lat["numpy"], cpu["numpy"])

    def run(st: MemoryStore, name: str, nq: int) -> float:
        rec = []
        for q, e in zip(qs[:nq], exact[:nq], strict=True):
            t, c = time.perf_counter(), time.thread_time()
            hits = st.search_text(
                q, k=K, before_t=before_t, levels=("clip",), session_id=cur, earlier_sessions=earlier
            )
            lat[name].append(time.perf_counter() - t)
            cpu[name].append(time.thread_time() - c)
            assert all(h.session_id in earlier or (h.session_id == cur and h.t1 <= before_t) for h in hits)
            rec.append(len({(h.session_id, h.clip_indices[0]) for h in hits} & e) / K)
        return float(np.mean(rec))

    row: dict[str, Any] = {
        "n": n,
        "queries": len(qs),
        "k": K,
        "days": cur_day + 1,
        "in_scope": int(len(scope_idx)),
    }
    for p, st in stores.items():
        row[f"ivf_probe{p}_recall10"] = run(st, f"ivf_probe{p}", len(qs))
    row["sqlite_vec_exact_recall10"] = run(exact_store, "sqlite_vec_exact", n_slow)
    row["sqlite_vec_exact_queries"] = n_slow
    _latencies(row, lat, cpu, list(stores))
    row["load_avg_1m"] = os.getloadavg()[0]
    row["index"] = next(iter(stores.values())).stats()["text_index"]
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument(
        "--slow-queries", type=int, default=20, help="queries for the sqlite-vec exact scan (slow at 1M)"
    )
    ap.add_argument("--min-items", type=int, default=IvfSettings.min_items)
    ap.add_argument("--list-size", type=int, default=IvfSettings.list_size)
    ap.add_argument("--probe", default=str(IvfSettings.probe), help="lists scanned per search; several: 4,8")
    ap.add_argument(
        "--cache",
        default=str(ROOT / "var" / "bench" / "caption_vectors.npz"),
        help="embedded captions are kept here between runs",
    )
    ap.add_argument(
        "--workdir", default=None, help="where the store is built (default: a temporary directory)"
    )
    ap.add_argument("--out", default=str(RESULTS))
    return ap


def _at_size(
    store: MemoryStore, path: Path, data: np.ndarray, n: int, qs: np.ndarray, probes: list[int], args: Any
) -> dict[str, Any]:
    """One row: the store as filled so far, searched through each probe count and exactly."""
    dim = data.shape[1]
    exact_store = MemoryStore.open(path, text_encoder="bench", text_dim=dim, ivf=IvfSettings(min_items=0))
    # The same file through other probe counts: one run, the same data and load.
    others = {
        p: MemoryStore.open(
            path,
            text_encoder="bench",
            text_dim=dim,
            ivf=IvfSettings(min_items=args.min_items, list_size=args.list_size, probe=p),
        )
        for p in probes[1:]
    }
    try:
        return measure(
            {probes[0]: store, **others}, exact_store, data, n, qs, min(args.slow_queries, len(qs))
        )
    finally:
        exact_store.close()
        for o in others.values():
            o.close()


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    sizes = sorted(int(x) for x in args.sizes.split(","))
    t0 = time.perf_counter()
    base, qv = caption_vectors.load(Path(args.cache))
    data = caption_vectors.grow(base, sizes[-1], seed=1)
    rng = np.random.default_rng(2)
    qs = qv[rng.permutation(len(qv))[: args.queries]]
    probes = [int(x) for x in str(args.probe).split(",")]
    settings = IvfSettings(min_items=args.min_items, list_size=args.list_size, probe=probes[0])
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_memory_scale_", dir=args.workdir) as d:
        path = Path(d) / "scale.sqlite"
        store = MemoryStore.open(path, text_encoder="bench", text_dim=data.shape[1], ivf=settings)
        have, fill_s, idle_s = 0, 0.0, 0.0
        for n in sizes:
            t = time.perf_counter()
            idle_s += fill(store, data, have, n)
            fill_s += time.perf_counter() - t
            have = n
            r = _at_size(store, path, data, n, qs, probes, args)
            r["fill_s_cumulative"] = round(fill_s, 1)
            r["index_idle_s_cumulative"] = round(idle_s, 1)
            # Index upkeep runs in transactions that ingest waits behind; k-means runs outside them.
            r["index_longest_tx_s_cumulative"] = round(store.longest_index_tx_s, 3)
            r["index_longest_tx_kind"] = store.longest_index_tx_kind
            r["db_mb"] = round(sum(p.stat().st_size for p in Path(d).glob("scale.sqlite*")) / 2**20, 1)
            rows.append(r)
            print(json.dumps(r), flush=True)
        store.close()
    out = {
        "benchmark": "bench_memory_scale",
        "data": "real MiniLM caption vectors of edge_assist/data/captaincook4d grown by "
        "benchmarks.caption_vectors",
        "real_captions": int(len(base)),
        "settings": {**settings.__dict__, "probe": probes},
        "total_s": round(time.perf_counter() - t0, 1),
        "rows": rows,
    }
    write(args.out, out, command_line(argv))
    print(f"wrote {args.out} in {out['total_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
