"""Run every benchmark in turn (`make bench`); each writes its JSON to benchmarks/results/."""

from __future__ import annotations

import subprocess
import sys

BENCHMARKS = (
    "benchmarks.bench_inference",
    "benchmarks.bench_memory_ingest",
    "benchmarks.bench_memory_search",
    "benchmarks.bench_bridge",
    "benchmarks.bench_pipeline",
)


def main() -> int:
    failed = []
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        if subprocess.run([sys.executable, "-m", name]).returncode != 0:
            failed.append(name)
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
