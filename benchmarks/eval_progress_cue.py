"""How much the encoder's task-progress signal alone knows about errors (no LLM).

The reasoner's prompt carries `TaskProgress`: which listed recipe steps the captions so
far match, and which steps listed before the current one are still not done. A 135M
reasoner ignores it (our row never speaks). Before wiring that signal to speech
directly, this measures it as a speaker on its own, on both splits and both stream
variants, with the same EgoServe scorer, beside "Error Recovery at every caption":

- `new`: speak ER when a listed step earlier than the current one is newly found not done;
- `any`: speak ER at every caption while some earlier step is not done;
- `nomatch`: speak ER when the caption matches no listed step (an extra or a mistake);
- `new+nomatch`: either of the first and third;
- `every`: the trivial baseline, ER at every caption.

Each at three match thresholds (cosine). Writes benchmarks/results/eval_progress_cue.json.
Encoder only: about a minute per split on 2 cores.

    python -m benchmarks.eval_progress_cue [--splits train,val]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from benchmarks.results_io import machine, write
from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.evaluation.annotations import Prediction
from edge_assist.evaluation.harness import VARIANTS, Dataset
from edge_assist.evaluation.measures import false_alarms_per_hour
from edge_assist.evaluation.scorer import score
from edge_assist.events import SubType
from edge_assist.inference.loader import load_text_encoder
from edge_assist.reasoning import task_progress
from edge_assist.reasoning.task_progress import TaskProgress

DATASET = Path(__file__).resolve().parents[1] / "edge_assist" / "data" / "captaincook4d"
OUT = Path(__file__).resolve().parent / "results" / "eval_progress_cue.json"
RULES = ("new", "any", "nomatch", "new+nomatch", "every")
THRESHOLDS = (0.45, 0.55, 0.65)


async def _predictions(ds: Dataset, prog: TaskProgress, split: str, variant: str, rule: str) -> list[Prediction]:
    preds: list[Prediction] = []
    for rid in ds.recordings(split):
        lines = [json.loads(x) for x in ds.stream(split, variant, rid).read_text(encoding="utf-8").splitlines() if x.strip()]
        meta, caps = lines[0]["meta"], lines[1:]
        seen: list[str] = []
        flagged: set[str] = set()
        for c in caps:
            p = await prog.progress(meta["task_context"], seen, c["text"])
            seen.append(c["text"])
            fire = rule == "every"
            if p is not None and rule != "every":
                new = [s for s in p.skipped if s not in flagged]
                flagged.update(new)
                fire = (
                    (rule in ("new", "new+nomatch") and bool(new))
                    or (rule == "any" and bool(p.skipped))
                    or (rule in ("nomatch", "new+nomatch") and not p.now_step)
                )
            if fire:
                preds.append(Prediction(meta["session_id"], c["t0"], c["t1"], SubType.ERROR_RECOVERY, rule))
    return preds


async def measure(splits: list[str]) -> dict[str, Any]:
    ds = Dataset.open(DATASET)
    task_progress._CACHE_MAX = 10**7  # one vector per distinct text, kept across every run below
    prog = TaskProgress(load_text_encoder(Config()), RealClock())
    rows = []
    for split in splits:
        recs = ds.recordings(split)
        gt, _ = ds.ground_truth(split, recs)
        durations = {ds.session_id(r): ds.duration_s(r) for r in recs}
        for variant in VARIANTS:
            for rule in RULES:
                for thr in THRESHOLDS if rule != "every" else (None,):
                    task_progress.MATCH_COSINE = thr if thr is not None else task_progress.MATCH_COSINE
                    preds = await _predictions(ds, prog, split, variant, rule)
                    sc, _ = score(gt, preds, ds.delta_s)
                    er = sc.to_json()["per_sub_type"].get("ER", {})
                    fa = false_alarms_per_hour(preds, gt, durations)
                    row = {"split": split, "variant": variant, "rule": rule, "match_cosine": thr,
                           "predictions": len(preds), "gt": len(gt),
                           "precision": round(er.get("precision", 0.0), 4), "recall": round(er.get("recall", 0.0), 4),
                           "f1": round(er.get("f1", 0.0), 4), "false_alarms_per_hour": round(fa["per_hour"], 2)}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    return {"benchmark": "eval_progress_cue", "when": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": machine(), "rows": rows}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--splits", default="train,val")
    args = ap.parse_args()
    saved = task_progress.MATCH_COSINE
    try:
        res = asyncio.run(measure([s for s in args.splits.split(",") if s]))
    finally:
        task_progress.MATCH_COSINE = saved
    write(OUT, res)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
