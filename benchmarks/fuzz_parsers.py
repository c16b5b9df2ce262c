"""Fuzz every input parser with hypothesis and write what happened.

    python -m benchmarks.fuzz_parsers [--examples 10000] [--only NAME ...] [--out DIR]

For each target of `benchmarks.fuzz_targets.TARGETS`: how many inputs ran, how many were
accepted and how many ended in the parser's clean error, the slowest input, and the first
failure if any (the minimal example hypothesis shrank it to). Writes
`benchmarks/results/fuzz/results.json` (with this command in it) and exits non-zero when
a target failed. A per-input deadline turns a hang into a failure.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from benchmarks import results_io
from benchmarks.fuzz_targets import TARGETS, Target, run_one

DEADLINE_MS = 2000  # one input; the largest generated file parses in a few milliseconds


def fuzz(target: Target, examples: int, *, seed: int | None = None) -> dict[str, Any]:
    outcomes: Counter[str] = Counter()
    slowest = [0.0]

    @settings(
        max_examples=examples,
        deadline=DEADLINE_MS,
        database=None,
        derandomize=seed is not None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(target.inputs)
    def prop(value: Any) -> None:
        t = time.perf_counter()
        outcomes[run_one(target, value)] += 1
        slowest[0] = max(slowest[0], time.perf_counter() - t)

    started = time.perf_counter()
    failure = ""
    try:
        prop()
    except BaseException as e:  # noqa: BLE001 - recorded, the run goes on with the next target
        if isinstance(e, KeyboardInterrupt):
            raise
        failure = f"{type(e).__name__}: {e}"[:2000]
    return {
        "inputs": sum(outcomes.values()),
        "accepted": outcomes["ok"],
        "clean_errors": outcomes["clean"],
        "failure": failure or None,
        "slowest_input_ms": round(1000 * slowest[0], 2),
        "wall_s": round(time.perf_counter() - started, 1),
        "clean_error_types": [c.__name__ for c in target.clean],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=10_000, help="inputs per parser (default 10000)")
    ap.add_argument("--only", nargs="*", default=None, help="target names (default: all)")
    ap.add_argument("--out", default="benchmarks/results/fuzz", help="results folder")
    args = ap.parse_args(argv)
    chosen = [t for t in TARGETS if args.only is None or t.name in args.only]
    results: dict[str, Any] = {}
    for t in chosen:
        r = fuzz(t, args.examples)
        results[t.name] = r
        state = "FAILED " + (r["failure"] or "").splitlines()[0] if r["failure"] else "clean"
        print(
            f"{t.name}: {r['inputs']} inputs, {r['accepted']} accepted, {r['clean_errors']} clean errors, "
            f"{r['wall_s']} s: {state}",
            flush=True,
        )
    out = {
        "examples_per_target": args.examples,
        "targets": results,
        "not_fuzzed": {
            "task files": "the task library (edge_assist/tasks/) is on another branch; add its parser "
            "to TARGETS in benchmarks/fuzz_targets.py (one line)"
        },
    }
    path = results_io.write(Path(args.out) / "results.json", out, results_io.command_line(argv))
    print(f"wrote {path}")
    return 1 if any(r["failure"] for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
