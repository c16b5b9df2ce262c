"""`edge-assist gate`: the intervention gate's model.

edge-assist gate show                           thresholds, how it was trained, its val metrics
edge-assist gate train [--out FILE]             fit on CaptainCook4D train labels, thresholds on val
    [--error-free DIR]                          and on Goal-Step streams where nothing is a mistake
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from edge_assist.commands.options import config_from_args
from edge_assist.errors import EdgeAssistError
from edge_assist.reasoning.gate import SHIPPED, Gate

if TYPE_CHECKING:  # training reads the evaluation's data, imported where used
    from edge_assist.evaluation.harness import Dataset

ROOT = Path(__file__).resolve().parents[2]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "gate",
        help="the intervention gate: show or train it",
        description="The small learned classifier that decides when speaking helps.",
    )
    s = p.add_subparsers(dest="gate_cmd", metavar="ACTION")
    s.add_parser("show", help="the gate in use: thresholds, training data, metrics")
    t = s.add_parser("train", help="train it on the bundled CaptainCook4D labels and write a report")
    t.add_argument(
        "--data",
        default=str(ROOT / "edge_assist" / "data" / "captaincook4d"),
        help="a built benchmark directory (eval build-captaincook)",
    )
    t.add_argument("--out", default=str(SHIPPED), help=f"model file to write (default: {SHIPPED})")
    t.add_argument(
        "--report", default="benchmarks/results/gate", help="directory for report.md, results.json, curve.png"
    )
    t.add_argument(
        "--variants",
        default="original,paraphrased,clips,captioner,list",
        help="stream variants of train to fit on (and of val to report)",
    )
    t.add_argument(
        "--choose-on",
        default="paraphrased,clips,captioner,list",
        help="val variants whose false-alarm budgets the thresholds must all keep",
    )
    t.add_argument(
        "--error-free",
        default="",
        metavar="DIR",
        help="a built Ego4D Goal-Step dir (eval build-goalstep): its train streams with the wearer's own "
        "list named are fitted on as captions where nothing is a mistake, its val streams reported",
    )
    t.add_argument(
        "--from-feedback",
        action="store_true",
        help="refit the gate in use from the wearer's thanks / not-now labels (feedback.jsonl in "
        "general.data_dir); writes <data_dir>/gate.json",
    )
    p.set_defaults(func=_gate, _parser=p)


def _error_free(path: str) -> Dataset | None:
    from edge_assist.evaluation import goalstep
    from edge_assist.evaluation.harness import Dataset

    if not path:
        return None
    ds = Dataset.open(path)
    if goalstep.LIST_VARIANT not in ds.variants:
        raise EdgeAssistError(
            f"{path} holds no '{goalstep.LIST_VARIANT}' streams; rebuild it with "
            f"`edge-assist eval build-goalstep --data DIR --out {path}`"
        )
    return ds


def _show(g: Gate) -> int:
    print(f"gate: {g.path}")
    for name, m in g.services.items():
        print(
            f"  {name}: {len(m.features)} features, thresholds "
            + ", ".join(f"{k} {v:.3f}" for k, v in m.thresholds.items())
        )
    print(json.dumps(g.training, indent=1))
    return 0


def _gate(args: argparse.Namespace) -> int:
    cmd = getattr(args, "gate_cmd", None)
    if cmd is None:
        args._parser.print_help()
        return 2
    cfg = config_from_args(args)
    if cmd == "show":
        return _show(Gate.load(cfg.reasoner.gate_file or SHIPPED))
    if args.from_feedback:
        from edge_assist.evaluation.gate_feedback import refit_from_feedback
        from edge_assist.outputs.feedback import FILE

        out = Path(args.out) if args.out != str(SHIPPED) else cfg.data_path("gate.json")
        r = refit_from_feedback(Gate.load(cfg.reasoner.gate_file or SHIPPED), cfg.data_path(FILE), out)
        print(
            f"refit on {r['labels']} labels; on {r['held_back']} held back: log-loss "
            f"{r['before']['log_loss']} -> "
            f"{r['after']['log_loss']}, accuracy {r['before']['accuracy']} -> {r['after']['accuracy']}"
        )
        print(f"wrote {out}; use it with --set reasoner.gate_file={out} (or in edge-assist.toml)")
        return 0
    # Training reads the evaluation's data: imported here, the product never needs it.
    from edge_assist.evaluation.gate_report import train_and_report
    from edge_assist.evaluation.harness import Dataset
    from edge_assist.inference.loader import load_text_encoder

    ds = Dataset.open(args.data)
    command = "edge-assist gate train" + (f" --out {args.out}" if args.out != str(SHIPPED) else "")
    command += f" --error-free {args.error_free}" if args.error_free else ""
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    choose_on = [v.strip() for v in args.choose_on.split(",") if v.strip()]
    unknown = sorted(set(choose_on) - set(variants))
    if unknown:
        raise EdgeAssistError(f"--choose-on names {', '.join(unknown)}, not in --variants {args.variants}")
    res = train_and_report(
        ds,
        load_text_encoder(cfg),
        Path(args.report),
        Path(args.out),
        command,
        variants=variants,
        choose_on=choose_on,
        negatives=_error_free(args.error_free),
    )
    for name, pts in res["rows"].items():
        if name.startswith(("gate, ", "caption-only")):
            print(
                name
                + ": "
                + "; ".join(f"{c} F1 {p['f1']} at {p['false_alarms_per_hour']}/h" for c, p in pts.items())
            )
    print(f"wrote {args.out} and {args.report}/report.md")
    return 0
