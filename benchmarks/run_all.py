"""Every stage's benchmark on this machine, one summary: `edge-assist bench` and `make bench` run this.

    python -m benchmarks.run_all [--quick] [--out benchmarks/results/bench-<machine>-<date>]

Each benchmark runs as its own process (its peak resident memory is read from the
kernel when it ends), with the arguments of the mode: `--quick` takes minutes (small
sizes, few repeats, a short stream), the full run takes about an hour (search at 1M
vectors, the graph at 20k entities / 600k mentions). The run directory then holds
`summary.md` and `summary.json` (the figures below, each beside its baseline measured in
the same run, as a ratio) and `raw.tar.gz` (every benchmark's JSON and log).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import platform
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

from benchmarks import bench_cold_start as cold_start

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
CLIP_S = 10.0

# (name, module, quick arguments, full arguments); "{out}" is the benchmark's JSON file.
PLAN: tuple[tuple[str, str, list[str], list[str]], ...] = (
    ("inference", "benchmarks.bench_inference", ["--quick", "--out", "{out}"], ["--out", "{out}"]),
    (
        "memory_ingest",
        "benchmarks.bench_memory_ingest",
        ["--max-captions", "8", "--out", "{out}"],
        ["--out", "{out}"],
    ),
    (
        "memory_search",
        "benchmarks.bench_memory_search",
        ["--sizes", "1000,10000", "--dims", "384", "--out", "{out}"],
        ["--sizes", "1000,10000,100000,1000000", "--out", "{out}"],
    ),
    (
        "memory_scale",
        "benchmarks.bench_memory_scale",
        ["--sizes", "10000,50000", "--queries", "50", "--slow-queries", "10", "--out", "{out}"],
        [
            "--sizes",
            "10000,100000,300000,1000000",
            "--queries",
            "200",
            "--slow-queries",
            "20",
            "--out",
            "{out}",
        ],
    ),
    (
        "memory_graph",
        "benchmarks.bench_memory_graph",
        [
            "--entities",
            "2000",
            "--clips",
            "20000",
            "--mentions",
            "60000",
            "--relations",
            "20000",
            "--queries",
            "50",
            "--out",
            "{out}",
        ],
        ["--out", "{out}"],
    ),
    ("bridge", "benchmarks.bench_bridge", ["--n", "50"], ["--n", "200"]),  # prints its JSON
    ("pipeline", "benchmarks.bench_pipeline", ["--quick", "--out", "{out}"], ["--out", "{out}"]),
    # The whole default pipeline in CPU time per stream second; the full run adds the old default beside it.
    ("realtime", "benchmarks.bench_realtime", ["--configs", "after", "--out", "{out}"], ["--out", "{out}"]),
    # Fresh processes to the first decision, with and without the step/hazard vectors on disk.
    (
        "cold_start",
        "benchmarks.bench_cold_start",
        ["--repeats", "3", "--out", "{out}"],
        ["--repeats", "7", "--out", "{out}"],
    ),
)


def machine_name() -> str:
    return (
        "".join(c if c.isalnum() or c in "-_" else "-" for c in socket.gethostname().split(".")[0])
        or "machine"
    )


def git_commit() -> str | None:
    """The checkout's commit (with "+changes" when files differ from it), so a result says what code
    made it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+changes" if dirty else "")


def run_one(name: str, module: str, args: list[str], raw: Path) -> dict[str, Any]:
    """Run one benchmark; its JSON, log, exit code, wall time and peak RSS (from wait4)."""
    out = raw / f"{name}.json"
    log = raw / f"{name}.log"
    argv = [sys.executable, "-m", module, *[a.replace("{out}", str(out)) for a in args]]
    print(f"== {name}: {' '.join(argv[1:])}", flush=True)
    t = time.perf_counter()
    with open(log, "wb") as f:
        p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert p.stdout is not None
        captured = io.BytesIO()
        for line in p.stdout:
            f.write(line)
            captured.write(line)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    # Said as one would type it in the checkout: paths inside it relative (the run directory's
    # absolute path is the machine's business, not the result's).
    shown = [
        "python",
        *(os.path.relpath(a, ROOT) if a.startswith(str(ROOT) + os.sep) else a for a in argv[1:]),
    ]
    result: dict[str, Any] = {
        "command": " ".join(shown),
        "exit": p.returncode,
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
    }
    if not out.exists() and p.returncode == 0:
        text = captured.getvalue().decode("utf-8", "replace")
        start = text.find("{")
        if start >= 0:  # a benchmark that prints its JSON (bench_bridge)
            try:
                out.write_text(json.dumps(json.loads(text[start:]), indent=2) + "\n")
            except ValueError:
                pass
    if out.exists():
        result["data"] = json.loads(out.read_text())
    print(f"   exit {p.returncode} in {wall:.0f} s, peak RSS {result['peak_rss_mb']} MB", flush=True)
    return result


def _r(x: float | None, nd: int = 2) -> float | None:
    return None if x is None else round(float(x), nd)


def summarise(runs: dict[str, dict[str, Any]], quick: bool) -> dict[str, Any]:
    """The figures the issue asks for, from the benchmarks' own JSON; None where a benchmark failed."""
    d = {k: v.get("data", {}) for k, v in runs.items()}
    s: dict[str, Any] = {
        "latency_ms": {},
        "realtime_factor": {},
        "search_vs_size": [],
        "disk": {},
        "resident_mb": {},
    }
    lat, rtf = s["latency_ms"], s["realtime_factor"]
    inf = d.get("inference", {})
    if inf:
        llm = inf.get("llm", {})
        lat["llm_first_token"] = {
            "median": _r(1000 * llm.get("time_to_first_token_s", 0.0)),
            "same_prompt_again": _r(1000 * (llm.get("time_to_first_token_same_prompt_s") or 0.0)),
            "note": f"{llm.get('prompt_tokens_approx')} prompt tokens, each prompt new; "
            f"{llm.get('generation_tokens_per_s')} generated tokens/s",
        }
        te = inf.get("text_encoder", {})
        if te.get("per_s_batch1"):
            lat["text_embedding"] = {
                "median": _r(1000 / te["per_s_batch1"]),
                "batch32_speedup": te.get("batch32_over_batch1"),
            }
        vlm = inf.get("vlm", {})
        if vlm:
            lat["caption_vlm"] = {
                "median": _r(1000 * vlm.get("caption_latency_s_median", 0.0)),
                "max": _r(1000 * vlm.get("caption_latency_s_max", 0.0)),
                "note": "tiny generated projector: pipeline overhead, not a real VLM"
                if vlm.get("generated_tiny_projector")
                else "",
            }
            rtf["captioner"] = _r(vlm.get("caption_latency_s_median", 0.0) / CLIP_S, 3)
        s["resident_mb"]["models_loaded"] = inf.get("rss_end_mb")
    ing = d.get("memory_ingest", {})
    if ing.get("runs"):
        # One run per entity path (lexical: the default, none, llm, llm-batch); "on" is the default's.
        by = {
            r.get("entity_extractor", "llm" if r.get("extract_entities") else "none"): r for r in ing["runs"]
        }
        on = by.get(ing.get("default_entity_extractor", "lexical"), ing["runs"][0])
        off = by.get("none", on)
        lat["memory_ingest_per_caption"] = {
            "median": _r(1000 * on["seconds_per_caption"]),
            "without_graph": _r(1000 * off["seconds_per_caption"]),
            "entity_path": on.get("entity_extractor", ""),
            "ratio_graph_on_off": ing.get("entity_graph_cost_ratio"),
        }
        if "llm" in by:
            lat["memory_ingest_per_caption"]["with_llm_entities"] = _r(
                1000 * by["llm"]["seconds_per_caption"]
            )
        rtf["memory_ingest"] = _r(on["per_hour"]["compute_share_of_realtime"], 3)
        rtf["memory_ingest_without_graph"] = _r(off["per_hour"]["compute_share_of_realtime"], 3)
        s["disk"]["store_text_vectors_bytes_per_hour"] = sum(
            on["per_hour"]["bytes_per_level_text_plus_vectors"].values()
        )
        s["disk"]["sqlite_file_bytes_per_hour_extrapolated"] = on["per_hour"]["sqlite_file_bytes"]
        s["disk"]["graph_file_bytes_per_hour_extrapolated"] = on["per_hour"]["graph_file_bytes"]
        s["disk"]["note"] = on.get("note", "")
    sc = d.get("memory_scale", {})
    for r in sc.get("rows", []):
        s["search_vs_size"].append(
            {
                "n": r["n"],
                "index_p50": r["ivf_p50_ms"],
                "index_p95": r["ivf_p95_ms"],
                "recall10": r["ivf_recall10"],
                "numpy_p95": r["numpy_p95_ms"],
                "sqlite_vec_exact_p95": r["sqlite_vec_exact_p95_ms"],
                "ratio_index_over_numpy": r["ivf_vs_numpy_p95"],
                "ratio_index_over_sqlite_vec": r["ivf_vs_sqlite_vec_exact_p95"],
                "index": f"IVF {r['index']['active']['lists']} lists, probe {r['index']['probe']}"
                if r["index"].get("active")
                else "exact (below memory.ann_min_items)",
                "db_mb": r.get("db_mb"),
                "index_longest_tx_s": r.get("index_longest_tx_s_cumulative"),
            }
        )
    if sc.get("rows"):
        big = sc["rows"][-1]
        lat["temporal_search"] = {
            "median": big["ivf_p50_ms"],
            "p95": big["ivf_p95_ms"],
            "at_n": big["n"],
            "recall10": big["ivf_recall10"],
            "baseline_numpy_p95": big["numpy_p95_ms"],
            "ratio_over_numpy": big["ivf_vs_numpy_p95"],
        }
        s["disk"]["text_store_bytes_per_clip_at_max_n"] = int(big["db_mb"] * 2**20 / big["n"])
        s["disk"]["text_store_bytes_per_hour_at_10s_clips"] = int(
            big["db_mb"] * 2**20 / big["n"] * 3600 / CLIP_S
        )
    g = d.get("memory_graph", {})
    if g:
        lat["graph_path"] = {
            "median": g["neighbourhood_p50_ms"],
            "p95": g["neighbourhood_p95_ms"],
            "graph": g["graph"],
        }
    br = d.get("bridge", {})
    for link in ("hud_ack_udp", "hud_ack_serial_pty"):
        if br.get(link):
            lat[link] = {"median": br[link]["p50_ms"], "p95": br[link]["p95_ms"], "max": br[link]["max_ms"]}
    ms = d.get("memory_search", {})
    s["sqlite_vec_quantised"] = [
        {
            k: r[k]
            for k in (
                "n",
                "dim",
                "numpy_ms",
                "sqlite_vec_float_ms",
                "sqlite_vec_int8_rescore_ms",
                "sqlite_vec_int8_rescore_recall10",
                "sqlite_vec_bit_rescore_ms",
                "sqlite_vec_bit_rescore_recall10",
                "sqlite_vec_float_vs_numpy",
            )
            if k in r
        }
        for r in ms.get("rows", [])
    ]
    pl = d.get("pipeline", {})
    e2e = pl.get("end_to_end", {})
    if e2e:
        w, wo = e2e["with_retrieval"], e2e["without_retrieval"]
        lat["clip_end_to_first_word"] = {
            "median": _r(1000 * w["clip_end_to_first_word_s"]["p50"]),
            "p95": _r(1000 * w["clip_end_to_first_word_s"]["p95"]),
            "without_retrieval_median": _r(1000 * wo["clip_end_to_first_word_s"]["p50"]),
            "ratio_with_over_without": e2e.get("p50_ratio_with_over_without"),
        }
        lat["pipeline_step"] = {
            "median": _r(1000 * w["step_latency_s"]["p50"]),
            "p95": _r(1000 * w["step_latency_s"]["p95"]),
        }
        rtf["pipeline_step_decide"] = _r(w["step_latency_s"]["p50"] / CLIP_S, 3)
        rtf["pipeline_wall_over_stream"] = _r(w["wall_s"] / w["stream_s"], 3)
    for opt, share in ing.get("share_of_realtime", {}).items():
        rtf[f"memory_ingest_cpu_{opt}"] = share  # CPU time, each entity path in the same run
    rt = d.get("realtime", {})
    for name, share in rt.get("cpu_share_of_realtime", {}).items():
        rtf[f"full_pipeline_cpu_{name}"] = share
    if "memory_ingest" in rtf and "pipeline_step_decide" in rtf:
        # The writer and the decision path share the device: their shares add up.
        rtf["all_without_captioner"] = _r(rtf["memory_ingest"] + rtf["pipeline_step_decide"], 3)
        if "captioner" in rtf:
            rtf["all"] = _r(rtf["all_without_captioner"] + rtf["captioner"], 3)
    if d.get("cold_start", {}).get("cases"):
        s["cold_start_s"] = cold_start.summary(d["cold_start"])
    s["resident_mb"].update({k: v["peak_rss_mb"] for k, v in runs.items()})
    s["benchmarks"] = {
        k: {"exit": v["exit"], "wall_s": v["wall_s"], "command": v["command"]} for k, v in runs.items()
    }
    s["mode"] = "quick" if quick else "full"
    return s


def _round(x: Any) -> Any:
    """Three significant figures are what a loaded 2-core machine can tell apart."""
    if isinstance(x, float):
        return float(f"{x:.3g}") if abs(x) < 1000 else round(x)
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_round(v) for v in x]
    return x


def markdown(s: dict[str, Any], head: dict[str, Any]) -> str:
    s = _round(s)
    L = [
        f"# Benchmarks on {head['machine']} ({head['date']}, {s['mode']})",
        "",
        f"`{head['command']}` at {head.get('commit') or 'an unknown commit'} — {head['cpus']} CPUs, "
        f"{head['platform']}, load {head['load_start']:.1f} at start, "
        f"{head['total_s']:.0f} s in all. Raw JSON and logs: `raw.tar.gz`.",
        "",
        "## Latency per stage (ms)",
        "",
        "| stage | median | p95 | baseline / notes |",
        "|---|---|---|---|",
    ]
    for k, v in s["latency_ms"].items():
        rest = {a: b for a, b in v.items() if a not in ("median", "p95")}
        L.append(f"| {k} | {v.get('median', '')} | {v.get('p95', '')} | {json.dumps(rest)[1:-1]} |")
    L += ["", "## Real-time factor (compute seconds per second of stream; 10-s clips)", ""]
    L += [f"- {k}: {v}" for k, v in s["realtime_factor"].items()]
    L += [
        "",
        "## Temporal search against memory size (real caption vectors, ms)",
        "",
        "| vectors | index | p50 | p95 | recall@10 | numpy p95 | sqlite-vec exact p95 | index / numpy "
        "| index / sqlite-vec |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in s["search_vs_size"]:
        L.append(
            f"| {r['n']:,} | {r['index']} | {r['index_p50']} | {r['index_p95']} | {r['recall10']} "
            f"| {r['numpy_p95']} | {r['sqlite_vec_exact_p95']} | {r['ratio_index_over_numpy']} "
            f"| {r['ratio_index_over_sqlite_vec']} |"
        )
    held = [
        (r["n"], r.get("index_longest_tx_s"))
        for r in s["search_vs_size"]
        if r.get("index_longest_tx_s") is not None
    ]
    if held:
        L += [
            "",
            "Longest transaction of index upkeep so far (s; ingest waits behind it, k-means runs outside): "
            + ", ".join(f"{v} at {n:,}" for n, v in held),
        ]
    if s["sqlite_vec_quantised"]:
        L += [
            "",
            "## sqlite-vec brute force: float32, int8 and bit columns with re-ranking "
            "(synthetic clustered vectors, median ms)",
            "",
            "| n | dim | numpy | float | int8+rescore (recall) | bit+rescore (recall) | float / numpy |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in s["sqlite_vec_quantised"]:
            L.append(
                f"| {r['n']:,} | {r['dim']} | {r['numpy_ms']} | {r['sqlite_vec_float_ms']} | "
                f"{r['sqlite_vec_int8_rescore_ms']} ({r['sqlite_vec_int8_rescore_recall10']}) | "
                f"{r['sqlite_vec_bit_rescore_ms']} ({r['sqlite_vec_bit_rescore_recall10']}) | "
                f"{r['sqlite_vec_float_vs_numpy']} |"
            )
    L += cold_start.markdown_lines(s.get("cold_start_s", {}))
    L += ["", "## Disk", ""] + [f"- {k}: {v}" for k, v in s["disk"].items()]
    L += ["", "## Peak resident memory per benchmark process (MB)", ""]
    L += [f"- {k}: {v}" for k, v in s["resident_mb"].items()]
    L += ["", "## Benchmarks run", ""]
    L += [f"- {k}: exit {v['exit']}, {v['wall_s']} s — `{v['command']}`" for k, v in s["benchmarks"].items()]
    return "\n".join(L) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="minutes: small sizes, few repeats")
    ap.add_argument("--only", default="", help="comma-separated benchmark names (default: all)")
    ap.add_argument(
        "--out", default=None, help="run directory (default benchmarks/results/bench-<machine>-<date>)"
    )
    args = ap.parse_args(argv)
    date = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d")
    out = (
        Path(args.out)
        if args.out
        else RESULTS / f"bench-{machine_name()}-{date}{'-quick' if args.quick else ''}"
    )
    raw = out / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    only = {x for x in args.only.split(",") if x}
    t0, load = time.perf_counter(), os.getloadavg()[0]
    runs = {}
    for name, module, quick_args, full_args in PLAN:
        if not only or name in only:
            runs[name] = run_one(name, module, quick_args if args.quick else full_args, raw)
    summary = summarise(runs, args.quick)
    head = {
        "machine": machine_name(),
        "date": date,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "commit": git_commit(),
        "load_start": load,
        "load_end": os.getloadavg()[0],
        "total_s": time.perf_counter() - t0,
        "command": "python -m benchmarks.run_all " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    (out / "summary.json").write_text(json.dumps({**head, **summary}, indent=2) + "\n")
    (out / "summary.md").write_text(markdown(summary, head))
    with tarfile.open(out / "raw.tar.gz", "w:gz") as tar:
        tar.add(raw, arcname="raw")
    for p in sorted(raw.iterdir()):
        p.unlink()
    raw.rmdir()
    failed = [k for k, v in runs.items() if v["exit"] != 0]
    print(f"wrote {out}/summary.md" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
