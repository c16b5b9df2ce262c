"""Cold start to first decision: a wearer switches the glasses on and waits for the first step.

    python -m benchmarks.bench_cold_start [--repeats 5] [--baseline DIR] [--no-bytecode-cache] [--out FILE]

Each run is a fresh process, `edge-assist replay` of a one-caption stream (the demo
recording's first caption; its metadata names the recipe) into a new data dir, timed from
just before the process is spawned to the moment its first decision is in the decision log
(the log flushes each line; this process polls it every `POLL_S`). Also per run: the time to
exit, the CPU time and the peak resident memory of the process (wait4).

Two cases, `--repeats` runs each, in turn (so both see the same load):

- vector_cache_cold: no step and hazard vectors on disk (the first start, or after the task
  files, the vocabulary or the encoder changed): they are encoded and written;
- vector_cache_warm: the vector file a start wrote is there (every later start).

Python runs with its bytecode cache, as an installed package does (pip compiles it; this
machine's shells set PYTHONDONTWRITEBYTECODE, which compiles the checkout's ~170 modules at
every start; `--no-bytecode-cache` measures that): a private cache, filled by one untimed run.
`--code DIR` runs another checkout's code with the same Python; `--baseline DIR` adds that
checkout (e.g. the code before a change) as a third case, in turn with the two, for a
before/after under one load.

One more untimed run with `-X importtime` lists where the import time goes.

Writes benchmarks/results/bench_cold_start.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.results_io import machine, write
from edge_assist.runtime.percentiles import percentile

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"
OUT = ROOT / "benchmarks" / "results" / "bench_cold_start.json"
TARGET_S = 2.0
POLL_S = 0.005
RUN_TIMEOUT_S = 120.0
VECTOR_FILE = "text-vectors.bin"  # edge_assist.tasks.vector_file.FILE_NAME (a benchmark imports nothing)


def one_caption_stream(dest: Path, recording: Path = DEMO) -> Path:
    """The recording's metadata line and its first caption."""
    with recording.open(encoding="utf-8") as fh:
        head = [next(fh), next(fh)]
    dest.write_text("".join(head), encoding="utf-8")
    return dest


def child_env(pycache: Path | None) -> dict[str, str]:
    """With a bytecode cache in `pycache`, or (None) compiling every module at every start."""
    env = dict(os.environ)
    if pycache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def _first_decision(log: Path) -> bool:
    try:
        with log.open(encoding="utf-8") as fh:
            return any('"type": "decision"' in line for line in fh)
    except FileNotFoundError:
        return False


def run_once(code: Path, stream: Path, data_dir: Path, env: dict[str, str]) -> dict[str, Any]:
    """One process from spawn to exit; seconds to the first decision, to exit, CPU and peak RSS."""
    argv = [sys.executable, "-m", "edge_assist", "replay", str(stream), "--no-progress"]
    argv += ["--set", f"general.data_dir={data_dir}"]
    log = data_dir / "decisions.jsonl"
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    p = subprocess.Popen(argv, cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    first = None
    while first is None and p.poll() is None and time.monotonic() - t0 < RUN_TIMEOUT_S:
        if log.exists() and log.stat().st_size and _first_decision(log):
            first = time.monotonic() - t0
            break
        time.sleep(POLL_S)
    _, status, usage = os.wait4(p.pid, 0)
    exit_s = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode("utf-8", "replace") if p.stderr is not None else ""
    if p.returncode != 0:
        raise RuntimeError(f"replay exited {p.returncode}: {err.strip()[-400:]}")
    if first is None and _first_decision(log):
        first = exit_s  # decided and exited between two polls
    if first is None:
        raise RuntimeError(f"no decision in {log}")
    return {
        "first_decision_s": round(first, 3),
        "exit_s": round(exit_s, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "load_avg_1m": round(load, 2),
    }


def spread(runs: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": runs}
    for k in ("first_decision_s", "exit_s", "cpu_s", "peak_rss_mb"):
        xs = np.array([r[k] for r in runs], dtype=float)
        out[k] = {"p50": percentile(xs, 50, 3), "max": round(float(xs.max()), 3)}
    return out


def import_profile(
    code: Path, stream: Path, work: Path, env: dict[str, str], top: int = 10
) -> dict[str, Any]:
    """Top-level imports by cumulative time in one run (`python -X importtime`), and their sum."""
    d = work / "importtime"
    argv = [sys.executable, "-X", "importtime", "-m", "edge_assist", "replay", str(stream), "--no-progress"]
    argv += ["--set", f"general.data_dir={d}"]
    err = subprocess.run(
        argv, cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=RUN_TIMEOUT_S
    ).stderr.decode("utf-8", "replace")
    tops: list[tuple[str, float]] = []
    self_us = 0
    for line in err.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, cumulative, name = line[len("import time:") :].split("|")
        self_us += int(own)
        if not name.startswith("  "):  # imported by our code, not by another import
            tops.append((name.strip(), int(cumulative) / 1000))
    tops.sort(key=lambda t: -t[1])
    return {
        "all_imports_ms": round(self_us / 1000, 1),
        "top_level_ms": {n: round(ms, 1) for n, ms in tops[:top]},
        "note": "wall time of one run, so it carries the machine's load",
    }


def measure(
    code: Path, repeats: int, bytecode: bool = True, baseline: Path | None = None, label: str = ""
) -> dict[str, Any]:
    """Every case once per repeat, in turn, so each sees the same load; `baseline` (another
    checkout, e.g. the code before a change) is one more case."""
    with tempfile.TemporaryDirectory(prefix="bench_cold_start_") as tmp:
        work = Path(tmp)
        stream = one_caption_stream(work / "one-caption.jsonl")
        env = child_env(work / "pycache" if bytecode else None)
        kept = work / "kept"
        kept.mkdir()
        first = run_once(code, stream, work / "fill", env)  # fills the bytecode cache; untimed
        if (work / "fill" / VECTOR_FILE).exists():
            shutil.copy(work / "fill" / VECTOR_FILE, kept / VECTOR_FILE)
        checkouts = {"vector_cache_cold": code, "vector_cache_warm": code}
        if baseline is not None:
            run_once(baseline, stream, work / "fill-baseline", env)
            checkouts = {"baseline": baseline, **checkouts}
        cases: dict[str, list[dict[str, Any]]] = {case: [] for case in checkouts}
        for i in range(repeats):
            for case, runs in cases.items():
                d = work / f"{case}-{i}"
                d.mkdir()
                if case == "vector_cache_warm" and (kept / VECTOR_FILE).exists():
                    shutil.copy(kept / VECTOR_FILE, d / VECTOR_FILE)
                runs.append(run_once(checkouts[case], stream, d, env))
        profile = import_profile(code, stream, work, env)
        written = (kept / VECTOR_FILE).exists()
    return {
        "benchmark": "cold start to first decision",
        "machine": machine(),
        "code": "this checkout" if code == ROOT else str(code),
        "baseline": (label or str(baseline)) if baseline is not None else None,
        "stream": f"{DEMO.relative_to(ROOT)}: metadata and first caption",
        "repeats": repeats,
        "target_s": TARGET_S,
        "bytecode": "cached (a private PYTHONPYCACHEPREFIX, filled by one untimed run)"
        if bytecode
        else "none (PYTHONDONTWRITEBYTECODE=1: this checkout's modules compiled at every start)",
        "untimed_first_run": first,
        "vector_file_written": written,
        "cases": {case: spread(runs) for case, runs in cases.items()},
        "imports": profile,
        "load_avg_1m_end": round(os.getloadavg()[0], 2),
    }


def summary(data: dict[str, Any]) -> dict[str, Any]:
    """The figures run_all's summary shows, from this benchmark's JSON."""
    cases = data.get("cases", {})
    out: dict[str, Any] = {"target_s": data.get("target_s", TARGET_S)}
    for case, c in cases.items():
        out[case] = {
            "p50_s": c["first_decision_s"]["p50"],
            "max_s": c["first_decision_s"]["max"],
            "cpu_p50_s": c["cpu_s"]["p50"],
            "peak_rss_mb": c["peak_rss_mb"]["max"],
            "load_avg_1m": round(float(np.mean([r["load_avg_1m"] for r in c["runs"]])), 2),
        }
    return out


def markdown_lines(s: dict[str, Any]) -> list[str]:
    """The summary's table: one row per case."""
    rows = [(k, v) for k, v in s.items() if isinstance(v, dict)]
    if not rows:
        return []
    lines = [
        "",
        f"## Cold start to first decision (s; target {s.get('target_s', TARGET_S)})",
        "",
        "| case | p50 | max | CPU p50 (whole process) | peak RSS (MB) | load (1 min) |",
        "|---|---|---|---|---|---|",
    ]
    for case, v in rows:
        lines.append(
            f"| {case.removeprefix('vector_cache_')} | {v['p50_s']} | {v['max_s']} | {v['cpu_p50_s']} "
            f"| {v['peak_rss_mb']} | {v['load_avg_1m']} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="runs per case")
    ap.add_argument("--code", default=str(ROOT), help="checkout whose edge_assist runs (default: this one)")
    ap.add_argument("--baseline", help="another checkout, run in turn with the cases (e.g. before a change)")
    ap.add_argument("--baseline-label", default="", help="what the baseline is, for the JSON (e.g. a commit)")
    ap.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="compile every module at every start, as this shell does",
    )
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    result = measure(
        Path(args.code).resolve(),
        max(1, args.repeats),
        bytecode=not args.no_bytecode_cache,
        baseline=Path(args.baseline).resolve() if args.baseline else None,
        label=args.baseline_label,
    )
    path = write(args.out, result)
    print(json.dumps(summary(result), indent=2))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
