"""The shipped gate, as it is, on one split's stream variants: what a change to the tracker
or the task reading does to the gate's ER decisions before the gate is trained again.

    python -m benchmarks.eval_gate_variant [--split val] [--variants list,paraphrased] [--gate FILE]
        [--record]

Per variant and chattiness: every caption whose gate probability passes the gate file's
threshold is an ER prediction, the first of each step only (as `edge-assist gate train`
scores it, `gate_training.evaluate`): precision, recall, ER F1 and false alarms per hour of
error-free recordings. The same features the trainer collects (`gate_data.collect`), so the
figures match its report's rows for the gate it wrote.

`--record` (val only) writes the figures into the gate file's recorded val metrics, with the
commit and command that measured them (`training.val_metrics_rerecorded`): the gate is kept as
trained, and what it records is what it does on the tracker as it is now (the shipped gate's
test reproduces them).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence

from benchmarks.results_io import stamp
from edge_assist.config import Config
from edge_assist.evaluation.captaincook import DEFAULT_DATASET
from edge_assist.evaluation.gate_data import collect
from edge_assist.evaluation.gate_report import _probs, _Split
from edge_assist.evaluation.gate_training import evaluate
from edge_assist.evaluation.harness import Dataset
from edge_assist.inference.loader import load_text_encoder
from edge_assist.reasoning.gate import SHIPPED, Gate


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--split", default="val")
    ap.add_argument("--variants", default="list,paraphrased")
    ap.add_argument("--gate", default=str(SHIPPED))
    ap.add_argument("--dataset", default=str(DEFAULT_DATASET))
    ap.add_argument("--record", action="store_true", help="write the val figures into the gate file")
    args = ap.parse_args(argv)
    if args.record and args.split != "val":
        ap.error("--record writes the recorded val metrics: use it with --split val")
    gate = Gate.load(args.gate)
    recorded: dict[str, dict] = {}
    ds = Dataset.open(args.dataset)
    model = gate.services["ER"]
    encoder = load_text_encoder(Config())
    sp = _Split(ds, args.split)
    for variant in args.variants.split(","):
        started = time.process_time()
        rows = collect(ds, args.split, variant, encoder)
        p = _probs(model, rows)
        for chattiness, thr in model.thresholds.items():
            pt = evaluate(p, rows, thr, sp.gt, sp.durations, sp.delta_s).to_json()
            print(json.dumps({"split": args.split, "variant": variant, "chattiness": chattiness, **pt}))
            recorded.setdefault(f"gate, val {variant}", {})[chattiness] = pt
        print(f"# {variant}: {len(rows.y)} captions, {time.process_time() - started:.0f} s CPU", flush=True)
    if args.record:
        gate.training.setdefault("val_metrics", {}).update(recorded)
        gate.training["val_metrics_rerecorded"] = {**stamp(), "rows": sorted(recorded)}
        print(f"recorded {', '.join(sorted(recorded))} in {gate.save(args.gate)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
