"""Memory search latency: sqlite-vec vs numpy brute force, float32 vs int8 / bit with rescoring.

    python -m benchmarks.bench_memory_search [--sizes 1000,10000,100000,1000000] [--queries 20]

For each size and dimension (384-d text vectors, 512-d keyframe vectors) the same data
goes into: a numpy matrix (exact top-k by one matrix-vector product, with the t' <= t
mask), a sqlite-vec vec0 float32 table with a `t1` metadata column (what the store uses),
and vec0 int8 and bit tables whose candidates (k x oversample) are rescored exactly with
the float vectors read back by rowid. Latency is the median of `--queries` queries with the
causal filter `t1 <= before_t` (90 % of rows visible); recall@10 is against exact search.

Data are synthetic but not uniform: unit vectors around 2,000 random centroids (topics),
so quantization faces neighbours that are close, as real caption vectors are. Writes
benchmarks/results/bench_memory_search.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.results_io import command_line, write
from edge_assist.memory.sqlite import connect

K = 10
RESULTS = Path(__file__).resolve().parent / "results" / "bench_memory_search.json"


def make_data(n: int, dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centroids = rng.standard_normal((2000, dim)).astype(np.float32)
    out = np.empty((n, dim), np.float32)
    step = 100_000
    for i in range(0, n, step):
        m = min(step, n - i)
        x = centroids[rng.integers(0, 2000, m)] + 0.6 * rng.standard_normal((m, dim)).astype(np.float32)
        out[i : i + m] = x / np.linalg.norm(x, axis=1, keepdims=True)
    t1 = np.arange(n, dtype=np.float64) * 10.0  # one clip every 10 s
    return out, t1


def queries(data: np.ndarray, nq: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed + 1)
    q = data[rng.integers(0, len(data), nq)] + 0.3 * rng.standard_normal((nq, data.shape[1])).astype(
        np.float32
    )
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


def numpy_topk(data: np.ndarray, visible: int, q: np.ndarray, k: int) -> np.ndarray:
    s = data[:visible] @ q  # rows are in time order: t1 <= before_t is a prefix
    idx = np.argpartition(-s, k)[:k]
    return idx[np.argsort(-s[idx])]


def timed(fn: Any, qs: np.ndarray) -> tuple[float, list[np.ndarray]]:
    ts, res = [], []
    for q in qs:
        t = time.perf_counter()
        res.append(fn(q))
        ts.append(time.perf_counter() - t)
    return statistics.median(ts), res


def recall(got: list[np.ndarray], exact: list[np.ndarray]) -> float:
    return float(
        np.mean([len(set(map(int, g)) & set(map(int, e))) / len(e) for g, e in zip(got, exact, strict=True)])
    )


def bench_one(n: int, dim: int, nq: int, oversample: int, workdir: Path) -> dict[str, Any]:
    data, t1 = make_data(n, dim, seed=dim)
    qs = queries(data, nq, seed=dim)
    visible = int(n * 0.9)
    before_t = float(t1[visible - 1])
    row: dict[str, Any] = {
        "n": n,
        "dim": dim,
        "queries": nq,
        "k": K,
        "float32_mb": round(data.nbytes / 2**20, 1),
    }

    lat, exact = timed(lambda q: numpy_topk(data, visible, q, K), qs)
    row["numpy_ms"] = lat * 1000
    conn = _load(workdir / f"vec_{n}_{dim}.sqlite", data, t1, row)
    nq_slow = nq if n <= 100_000 else max(5, nq // 4)  # 1M-row scans take seconds each
    for name, fn in _searches(conn, before_t, oversample).items():
        lat, got = timed(fn, qs[:nq_slow])
        row[f"{name}_ms"] = lat * 1000
        row[f"{name}_recall10"] = recall(got, exact[:nq_slow])
    conn.close()
    for p in workdir.glob(f"vec_{n}_{dim}.sqlite*"):
        p.unlink()
    for name in ("sqlite_vec_float", "sqlite_vec_int8_rescore", "sqlite_vec_bit_rescore"):
        row[f"{name}_vs_numpy"] = row[f"{name}_ms"] / row["numpy_ms"]
    row["bit_rescore_vs_float"] = row["sqlite_vec_bit_rescore_ms"] / row["sqlite_vec_float_ms"]
    row["int8_rescore_vs_float"] = row["sqlite_vec_int8_rescore_ms"] / row["sqlite_vec_float_ms"]
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}


def _load(path: Path, data: np.ndarray, t1: np.ndarray, row: dict[str, Any]) -> Any:
    """The vectors into float32, int8 and bit vec0 tables; insert rates, load time and size into row."""
    n, dim = data.shape
    conn = connect(str(path), isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")  # bulk load only; the store itself runs with FULL
    conn.execute(
        f"CREATE VIRTUAL TABLE f USING vec0(embedding float[{dim}] distance_metric=cosine, t1 float)"
    )
    conn.execute(f"CREATE VIRTUAL TABLE i8 USING vec0(embedding int8[{dim}], t1 float)")
    conn.execute(f"CREATE VIRTUAL TABLE b USING vec0(embedding bit[{dim}], t1 float)")
    t = time.perf_counter()
    step = 20_000
    for table, expr in (("f", "?"), ("i8", "vec_quantize_int8(?, 'unit')"), ("b", "vec_quantize_binary(?)")):
        t_tab = time.perf_counter()
        conn.execute("BEGIN")
        for i in range(0, n, step):
            conn.executemany(
                f"INSERT INTO {table}(rowid, embedding, t1) VALUES (?, {expr}, ?)",
                [(j + 1, data[j].tobytes(), float(t1[j])) for j in range(i, min(n, i + step))],
            )
        conn.execute("COMMIT")
        row[f"insert_{table}_per_s"] = n / (time.perf_counter() - t_tab)
    row["load_s"] = time.perf_counter() - t
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    row["db_mb"] = round(path.stat().st_size / 2**20, 1)
    return conn


def _searches(conn: Any, before_t: float, oversample: int) -> dict[str, Any]:
    """Each sqlite-vec search, plain and with the int8 / bit candidates re-ranked on float vectors."""

    def knn(table: str, expr: str, k: int) -> Any:
        sql = (
            f"SELECT rowid FROM {table} WHERE embedding MATCH {expr} AND k = ? AND t1 <= ? ORDER BY distance"
        )

        def run(q: np.ndarray) -> np.ndarray:
            return np.array([r[0] - 1 for r in conn.execute(sql, (q.tobytes(), k, before_t))], dtype=np.int64)

        return run

    def rescored(table: str, expr: str) -> Any:
        first = knn(table, expr, K * oversample)

        def run(q: np.ndarray) -> np.ndarray:
            cand = first(q)
            marks = ",".join("?" * len(cand))
            # The exact vectors come back from the float table by rowid, as the store would do it.
            rows = conn.execute(
                f"SELECT rowid, embedding FROM f WHERE rowid IN ({marks})", [int(c) + 1 for c in cand]
            )
            ids, vecs = zip(*((r[0] - 1, np.frombuffer(r[1], np.float32)) for r in rows), strict=True)
            s = np.stack(vecs) @ q
            return np.array(ids)[np.argsort(-s)[:K]]

        return run

    return {
        "sqlite_vec_float": knn("f", "?", K),
        "sqlite_vec_int8": knn("i8", "vec_quantize_int8(?, 'unit')", K),
        "sqlite_vec_int8_rescore": rescored("i8", "vec_quantize_int8(?, 'unit')"),
        "sqlite_vec_bit": knn("b", "vec_quantize_binary(?)", K),
        "sqlite_vec_bit_rescore": rescored("b", "vec_quantize_binary(?)"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--dims", default="384,512")
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument(
        "--oversample", type=int, default=8, help="quantized candidates per wanted hit before rescoring"
    )
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    rows = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_memory_search_") as d:
        for n in (int(x) for x in args.sizes.split(",")):
            for dim in (int(x) for x in args.dims.split(",")):
                r = bench_one(n, dim, args.queries, args.oversample, Path(d))
                rows.append(r)
                print(json.dumps(r), flush=True)
    out = {
        "benchmark": "bench_memory_search",
        "oversample": args.oversample,
        "total_s": round(time.perf_counter() - t0, 1),
        "rows": rows,
    }
    write(args.out, out, command_line(argv))
    print(f"wrote {args.out} in {out['total_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
