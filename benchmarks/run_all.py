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
import json
import os
import shlex
import socket
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_summary import markdown, summarise
from benchmarks.results_io import command_line, in_checkout, stamp, write

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"

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
    ("bridge", "benchmarks.bench_bridge", ["--n", "50", "--out", "{out}"], ["--n", "200", "--out", "{out}"]),
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


def run_one(name: str, module: str, args: list[str], raw: Path) -> dict[str, Any]:
    """Run one benchmark; its JSON, log, exit code, wall time and peak RSS (from wait4)."""
    out = raw / f"{name}.json"
    log = raw / f"{name}.log"
    argv = [sys.executable, "-m", module, *[a.replace("{out}", str(out)) for a in args]]
    print(f"== {name}: {' '.join(argv[1:])}", flush=True)
    t = time.perf_counter()
    with open(log, "wb") as f:
        p = subprocess.Popen(argv, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    result: dict[str, Any] = {
        "command": shlex.join(["python", *in_checkout(argv[1:])]),
        "exit": p.returncode,
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
    }
    if out.exists():
        result["data"] = json.loads(out.read_text())
    print(f"   exit {p.returncode} in {wall:.0f} s, peak RSS {result['peak_rss_mb']} MB", flush=True)
    return result


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
        **stamp(command_line(argv)),
        "load_start": load,
        "load_end": os.getloadavg()[0],
        "total_s": time.perf_counter() - t0,
    }
    write(out / "summary.json", {**head, **summary})
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
