"""`edge-assist bench`: every stage's benchmark on this machine, one summary.

The benchmarks live in the repository's `benchmarks/` package, which the product never
imports (DESIGN.md: benchmarks drive the product from outside). So this command only
finds the checkout it was installed from (an editable install: the folder beside the
`edge_assist` package) and runs `python -m benchmarks.run_all` there as a child process
with this Python; an installed wheel has no benchmarks and gets a one-line error.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import edge_assist
from edge_assist.errors import EdgeAssistError


def checkout(package_dir: Path | None = None) -> Path:
    """The source checkout the installed package runs from (`package_dir`: where edge_assist/ is)."""
    root = (package_dir or Path(edge_assist.__file__).parent).resolve().parent
    if not (root / "benchmarks" / "run_all.py").is_file():
        raise EdgeAssistError(
            f"edge-assist bench needs a source checkout (benchmarks/ beside edge_assist/, not found in "
            f"{root}); "
            "clone the repository, `pip install -e .` from it, and run the command there"
        )
    return root


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="run every benchmark on this machine and write a summary",
        description="Run every stage's benchmark (inference, memory ingest, search at scale, graph, bridge, "
        "pipeline) and write benchmarks/results/bench-<machine>-<date>/summary.md, summary.json and "
        "raw.tar.gz.",
    )
    p.add_argument(
        "--quick", action="store_true", help="minutes instead of about an hour: small sizes, few repeats"
    )
    p.add_argument(
        "--only",
        metavar="NAMES",
        default="",
        help="comma-separated subset: inference, memory_ingest, memory_search, memory_scale, memory_graph, "
        "bridge, pipeline",
    )
    p.add_argument(
        "--out", metavar="DIR", help="run directory (default benchmarks/results/bench-<machine>-<date>)"
    )
    p.set_defaults(func=_bench)


def _bench(args: argparse.Namespace) -> int:
    root = checkout()
    argv = [sys.executable, "-m", "benchmarks.run_all"]
    if args.quick:
        argv.append("--quick")
    if args.only:
        argv += ["--only", args.only]
    if args.out:
        argv += ["--out", str(Path(args.out).resolve())]
    return subprocess.run(argv, cwd=root).returncode
