"""`edge-assist trace`: read the decision traces the pipeline writes, readably.

Each step of a run appends one line to `traces.jsonl` in the data directory: what each
pass answered, what each retrieval path found and when it ran, the reconstructed
context, the policy's verdict and the time every section took.
"""

from __future__ import annotations

import argparse
import json
from collections import deque
from pathlib import Path

from edge_assist.commands.options import config_from_args
from edge_assist.errors import EdgeAssistError
from edge_assist.outputs.trace_format import TRACES_FILE, read_traces, render


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "trace",
        help="show the decision traces of past steps",
        description="Render decision traces: passes, retrieval paths with timings, context, verdict.",
    )
    p.add_argument(
        "--file", "-f", metavar="PATH", help=f"trace file (default: {TRACES_FILE} in general.data_dir)"
    )
    p.add_argument(
        "--last", "-n", type=int, default=10, metavar="N", help="show the last N traces (default 10; 0 = all)"
    )
    p.add_argument("--clip", type=int, metavar="I", help="only the steps of clip index I")
    p.add_argument("--session", metavar="ID", help="only this session")
    p.add_argument(
        "--speak", action="store_true", help="only steps that spoke or were suppressed by the policy"
    )
    p.add_argument(
        "--verbose", "-v", action="store_true", help="also the full retrieved context and path inputs"
    )
    p.add_argument("--json", action="store_true", help="print the raw JSON lines")
    p.set_defaults(func=_trace)


def _trace(args: argparse.Namespace) -> int:
    if args.last < 0:
        raise EdgeAssistError("--last must be 0 (all) or a positive count")
    path = Path(args.file) if args.file else config_from_args(args).data_path(TRACES_FILE)
    keep: deque[dict] = deque(maxlen=args.last or None)
    for rec in read_traces(path):
        d = rec.get("decision", {})
        if args.clip is not None and d.get("clip_index") != args.clip:
            continue
        if args.session and d.get("session_id") != args.session:
            continue
        if args.speak and d.get("decision") != "speak" and not d.get("suppressed_by"):
            continue
        keep.append(rec)
    if not keep:
        print(f"no matching traces in {path}")
        return 0
    for rec in keep:
        if args.json:
            print(json.dumps(rec, ensure_ascii=False))
        else:
            print(render(rec, verbose=args.verbose))
            print()
    return 0
