"""`edge-assist eval build-goalstep`: Ego4D Goal-Step as clip streams with no task named.

Registered by `commands/eval.py` as one of its actions; the builder is
`evaluation/goalstep.py`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


def add_build_goalstep(esub: argparse._SubParsersAction) -> None:
    b = esub.add_parser(
        "build-goalstep",
        help="build Ego4D Goal-Step as unscripted clip streams (no task named, no ground truth)",
    )
    b.add_argument(
        "--data",
        required=True,
        metavar="DIR",
        help="Goal-Step annotations (a directory with goalstep_dev.json)",
    )
    b.add_argument("--out", required=True, metavar="DIR", help="where to write the streams and manifest.json")
    b.add_argument("--split", action="append", default=[], help="split to build (default: train and val)")
    b.set_defaults(func=_build_goalstep)


def _build_goalstep(args: argparse.Namespace) -> int:
    from edge_assist.evaluation.goalstep import CREDIT, SPLITS, build

    start, cpu = time.perf_counter(), time.process_time()
    manifest = build(args.data, args.out, splits=tuple(args.split) or SPLITS)
    for split, ids in manifest["splits"].items():
        print(
            f"{split}: {len(ids)} videos, {manifest['hours'][split]:.2f} h "
            f"({manifest['captioned_hours'][split]:.2f} h captioned), {manifest['clips'][split]} clips "
            f"-> {Path(args.out) / split}"
        )
    print(
        f"built in {time.perf_counter() - start:.1f} s ({time.process_time() - cpu:.1f} s CPU); "
        f"credit: {CREDIT}"
    )
    return 0
