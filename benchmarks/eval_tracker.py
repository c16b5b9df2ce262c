"""The step tracker measured on CaptainCook4D (train and val, both stream variants).

Each recording is read in two forms (one caption per step, or 10-s clips as glasses caption)
and with the task known three ways (named, given as a plain list, or recognised with
nothing named); `benchmarks/tracker_streams.py` builds them.

- Step alignment: the annotations say which recipe step each caption is; the tracker's
  step in progress against nearest-step-only matching (argmax cosine, no graph).
- Findings as speakers: each finding kind (and their unions) speaks an Error Recovery at
  the caption where it fires, scored by the eval's EgoServe scorer (P, R, F1) with false
  alarms per hour on error-free recordings, beside the list-order signal the tracker
  replaced (a listed step before the nearest one not done; cosine 0.55).
- Task recognition (task recognised): how soon the recipe is named, and the share of
  captions read with no task or another task under way.
- Cost per caption with every library task loaded: the decoder alone, and decoder plus
  recognition over all tasks (the caption's vector is computed once by the memory writer's
  encoder anyway; its cost is reported separately).

Needs the raw annotations for the step labels (../shared/data/captaincook4d):

    python -m benchmarks.eval_tracker [--data ../shared/data/captaincook4d] [--fit]
        [--splits val] [--forms steps,clips] [--modes named,list,recognised] [--limit N]
        [--out benchmarks/results/tracker]

`--fit` grid-searches the tracker's parameters on train (alignment accuracy) and prints
each; the defaults in `edge_assist/tasks/tracker.py` are what it chose.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.results_io import stamp, write
from benchmarks.tracker_streams import FORMS, MODES, Reader, list_order_fires, recognition_summary, streams
from edge_assist.config import Config
from edge_assist.evaluation.annotations import Prediction
from edge_assist.evaluation.captaincook import load_raw
from edge_assist.evaluation.harness import VARIANTS, Dataset
from edge_assist.evaluation.measures import false_alarms_per_hour
from edge_assist.evaluation.scorer import score
from edge_assist.events import SubType
from edge_assist.inference.loader import load_text_encoder
from edge_assist.runtime.percentiles import percentile
from edge_assist.tasks import findings as F
from edge_assist.tasks.library import TaskLibrary, parse_listed_steps
from edge_assist.tasks.recognition import TaskRecognizer
from edge_assist.tasks.tracker import StepTracker, TrackerParams
from edge_assist.tasks.vector_cache import VectorCache

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "edge_assist" / "data" / "captaincook4d"
OUT = ROOT / "benchmarks" / "results" / "tracker"
SPEAKERS: dict[str, tuple[str, ...]] = {
    "prerequisite": (F.PREREQUISITE,),
    "order": (F.ORDER,),
    "repeated": (F.REPEATED,),
    "deviation": (F.DEVIATION,),
    "deviation: amount, duration, setting, temperature": ("deviation:values",),
    "deviation: tool or object": ("deviation:words",),
    "unmatched": (F.UNMATCHED,),
    "graph (prerequisite+order)": (F.PREREQUISITE, F.ORDER),
    "graph+deviation": (F.PREREQUISITE, F.ORDER, F.DEVIATION),
    "all findings": F.KINDS,
    # Like the replaced signal, which spoke at every caption while a listed step was not done:
    # every caption while a step found missing (by the graph) is still not done, or any finding.
    "all findings, or a step still missing": (*F.KINDS, "still_missing"),
}
ER = SubType.ERROR_RECOVERY


# Who would speak, besides the tracker's speakers: the list-order cue and every caption.
OTHER_SPEAKERS = ("list-order, newly skipped", "list-order, any skipped (replaced)", "every caption")


def _kinds(st: Any) -> set[str]:
    """The kinds of finding one tracker step raised (a deviation by what differs)."""
    kinds = {f.kind for f in st.findings}
    if st.missing:
        kinds.add("still_missing")
    for f in st.findings:
        for d in f.differences:
            kinds.add("deviation:words" if d.kind in ("tool", "object", "ingredient") else "deviation:values")
    return kinds


def _speaker_scores(ds: Dataset, split: str, recs: list[str], preds: dict[str, list[Prediction]]) -> Any:
    """Each speaker's ER precision, recall, F1 and false alarms per hour; and the GT count."""
    gt, _ = ds.ground_truth(split, recs)
    durations = {ds.session_id(r): ds.duration_s(r) for r in recs}
    rows = {}
    for name, ps in preds.items():
        sc, _ = score(gt, ps, ds.delta_s)
        er = sc.to_json()["per_sub_type"].get("ER", {})
        fa = false_alarms_per_hour(ps, gt, durations)
        rows[name] = {
            "predictions": len(ps),
            "precision": round(100 * er.get("precision", 0.0), 1),
            "recall": round(100 * er.get("recall", 0.0), 1),
            "f1": round(100 * er.get("f1", 0.0), 1),
            "false_alarms_per_hour": fa["per_hour"],
        }
    return rows, len(gt)


def run_split(
    ds: Dataset,
    raw: Any,
    lib: TaskLibrary,
    vc: VectorCache,
    split: str,
    variant: str,
    params: TrackerParams,
    *,
    form: str = "steps",
    mode: str = "named",
    speakers: bool = True,
    limit: int = 0,
    encoder: Any = None,
) -> dict[str, Any]:
    recs = ds.recordings(split, limit)
    n = hit_tracker = hit_nearest = 0
    preds: dict[str, list[Prediction]] = {k: [] for k in [*SPEAKERS, *OTHER_SPEAKERS]}
    fired: dict[str, int] = {}
    rec: dict[str, Any] = {"no_task": 0, "wrong_task": 0, "first_right": [], "right_at_end": 0}
    for s in streams(ds, raw, split, variant, form, limit):
        reader = Reader(lib, vc, encoder, params, mode, s)
        cap_vecs = vc.get([c["text"] for c in s.captions])
        _, listed = parse_listed_steps(s.task_context)
        lo = list_order_fires(vc.get(list(listed)), cap_vecs)
        first_right = -1
        for i, (c, v, lab, lofire) in enumerate(zip(s.captions, cap_vecs, s.labels, lo, strict=True)):
            st = reader.observe(c["text"], v)
            task = reader.task
            n += 1
            on_task = task is not None and task.name in (s.recipe, "ad-hoc")
            rec["no_task"] += st is None
            rec["wrong_task"] += st is not None and not on_task
            first_right = i if first_right < 0 and st is not None and on_task else first_right
            if task is not None and on_task:
                hit_tracker += st is not None and st.step_text == lab
                sims = vc.get([x.text for x in task.steps]) @ v
                hit_nearest += task.steps[int(np.argmax(sims))].text == lab
            kinds = _kinds(st) if st is not None else set()
            for k in kinds:
                fired[k] = fired.get(k, 0) + 1
            if speakers:
                _speak(preds, kinds, lofire, Prediction(s.session_id, c["t0"], c["t1"], ER, ""))
        rec["first_right"].append(first_right)
        rec["right_at_end"] += reader.task is not None and reader.task.name in (s.recipe, "ad-hoc")
    out: dict[str, Any] = {
        "split": split,
        "variant": variant,
        "form": form,
        "mode": mode,
        "recordings": len(recs),
        "captions": n,
        "alignment": {"tracker": round(hit_tracker / n, 4), "nearest_step": round(hit_nearest / n, 4)},
        "finding_counts": fired,
    }
    if mode == "recognised":
        out["recognition"] = recognition_summary(rec, n, len(recs))
    if speakers:
        out["speakers"], out["gt_events"] = _speaker_scores(ds, split, recs, preds)
    return out


def _speak(
    preds: dict[str, list[Prediction]], kinds: set[str], lofire: tuple[bool, bool], p: Prediction
) -> None:
    for name, ks in SPEAKERS.items():
        if kinds & set(ks):
            preds[name].append(p)
    if lofire[0]:
        preds["list-order, newly skipped"].append(p)
    if lofire[1]:
        preds["list-order, any skipped (replaced)"].append(p)
    preds["every caption"].append(p)


def cost(ds: Dataset, lib: TaskLibrary, vc: VectorCache, enc: Any) -> dict[str, Any]:
    dec, both, encode, cpu = [], [], [], []
    for rid in ds.recordings("val")[:20]:
        caps = ds.captions("val", "paraphrased", rid)
        meta = json.loads(ds.stream("val", "paraphrased", rid).read_text(encoding="utf-8").splitlines()[0])[
            "meta"
        ]
        task = lib.get(meta["recipe"])
        assert task is not None
        tr = StepTracker(task, vc.get, vectors=vc)
        rec = TaskRecognizer(lib.tasks(), vc)
        for c in caps:
            t = time.perf_counter()
            v = np.asarray(enc.encode([c["text"]]), dtype=np.float32)[0]
            encode.append(time.perf_counter() - t)
            t = time.perf_counter()
            c0 = time.thread_time()
            tr.observe(c["text"], v)
            cpu.append(time.thread_time() - c0)
            t1 = time.perf_counter()
            rec.observe(v)
            t2 = time.perf_counter()
            dec.append(t1 - t)
            both.append(t2 - t)

    def stats(xs: list[float]) -> dict[str, float | None]:
        ms = [1000 * x for x in xs]
        return {"median_ms": percentile(ms, 50, 3), "p95_ms": percentile(ms, 95, 3), "n": len(xs)}

    # Wall time includes waiting for the CPU when other processes run; thread CPU time does not.
    return {
        "tasks_loaded": len(lib),
        "tracker": stats(dec),
        "tracker_cpu": stats(cpu),
        "tracker_and_recognition": stats(both),
        "caption_encoding": stats(encode),
    }


def fit(ds: Dataset, raw: Any, lib: TaskLibrary, vc: VectorCache, limit: int = 0) -> TrackerParams:
    """Alignment on train, per-step and clip streams of both variants alike: a step spans one
    caption in the first and several similar ones in the second, and one cost of staying in a
    step must suit both. An earlier, wider grid (tau 0.02-0.08, none_cos 0.2-0.55, skip -0.5 to
    -4, repeat -2 to -8) settled at tau 0.03, none_cos 0.2, skip -1, repeat -8; this grid is
    the costs of staying in a step, of taking one up again and of doing it again."""
    grid = {
        "stay_logp": [0.0, -0.5, -1.0],
        "resume_logp": [-1.0, -2.0, -4.0],
        "repeat_logp": [-5.0, -6.0, -8.0],
    }
    grid = {k: v for k, v in grid.items() if hasattr(TrackerParams(), k)}
    best, best_acc = TrackerParams(), -1.0
    for values in itertools.product(*grid.values()):
        p = replace(TrackerParams(), **dict(zip(grid, values, strict=True)))
        runs = [
            run_split(ds, raw, lib, vc, "train", v, p, form=f, speakers=False, limit=limit)
            for v in VARIANTS
            for f in FORMS
        ]
        acc = sum(r["alignment"]["tracker"] for r in runs) / len(runs)
        repeats = sum(r["finding_counts"].get(F.REPEATED, 0) for r in runs)
        print(f"fit: {acc:.4f} repeated {repeats} {dict(zip(grid, values, strict=True))}", flush=True)
        if acc > best_acc:
            best, best_acc = p, acc
    return best


def _name(r: dict[str, Any]) -> str:
    return f"{r['split']}, {r['variant']}, {r['form']}, task {r['mode']}"


def _speakers_md(splits: list[dict[str, Any]]) -> list[str]:
    lines = [
        "",
        "## Findings as speakers (Error Recovery where the finding fires; EgoServe scorer, δ = 25 s)",
        "",
    ]
    for r in splits:
        lines += [
            f"### {_name(r)} ({r['gt_events']} GT events)",
            "",
            "| speaker | predictions | P | R | F1 | false alarms / h |",
            "|---|---|---|---|---|---|",
        ]
        for name, s in r["speakers"].items():
            lines.append(
                f"| {name} | {s['predictions']} | {s['precision']} | {s['recall']} | {s['f1']} "
                f"| {s['false_alarms_per_hour']} |"
            )
        lines.append("")
    return lines


def _recognition_md(splits: list[dict[str, Any]]) -> list[str]:
    lines = [
        "## Task recognition (nothing names the task; all library tasks)",
        "",
        "Named = the tracker follows the recording's recipe; no task / wrong task = share of captions "
        "read with no task under way, or under another task.",
        "",
        "| stream | named at all | by caption 3 | by caption 6 | right at the end | median first caption "
        "| no task | wrong task |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in splits:
        if "recognition" not in r:
            continue
        g = r["recognition"]
        lines.append(
            f"| {_name(r)} | {100 * g['named_at_all']:.1f} % | {100 * g['named_by_caption_3']:.1f} % "
            f"| {100 * g['named_by_caption_6']:.1f} % | {100 * g['right_at_end']:.1f} % "
            f"| {g['median_first_caption']} | {100 * g['no_task_share']:.1f} % "
            f"| {100 * g['wrong_task_share']:.1f} % |"
        )
    return lines


def report(res: dict[str, Any]) -> str:
    lines = [
        "# Step tracker on CaptainCook4D",
        "",
        f"Command: `{res['command']}`  ",
        f"Commit: {res.get('commit', '?')}  ",
        f"Machine: {res['machine']}  ",
        f"Parameters: {res['params']}",
        "",
        "## Step alignment (share of captions assigned their annotated step)",
        "",
        "| split | variant | form | task | captions | tracker | nearest step only |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in res["splits"]:
        a = r["alignment"]
        lines.append(
            f"| {r['split']} | {r['variant']} | {r['form']} | {r['mode']} | {r['captions']} "
            f"| {100 * a['tracker']:.1f} % | {100 * a['nearest_step']:.1f} % |"
        )
    lines += _speakers_md(res["splits"])
    lines += _recognition_md(res["splits"])
    c = res.get("cost")
    if c:
        lines += [
            "",
            f"## Cost per caption ({c['tasks_loaded']} tasks loaded, this machine)",
            "",
            "| part | median | p95 |",
            "|---|---|---|",
        ]
        for k in ("tracker", "tracker_cpu", "tracker_and_recognition", "caption_encoding"):
            lines.append(f"| {k.replace('_', ' ')} | {c[k]['median_ms']} ms | {c[k]['p95_ms']} ms |")
    return "\n".join(lines) + "\n"


def _args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "captaincook4d"))
    ap.add_argument("--fit", action="store_true", help="grid-search the tracker's parameters on train first")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--splits", default="train,val")
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--forms", default=",".join(FORMS), help="steps (one caption per step), clips (10 s)")
    ap.add_argument("--modes", default=",".join(MODES), help="how the task is known: " + ", ".join(MODES))
    ap.add_argument("--limit", type=int, default=0, help="recordings per split (0: all)")
    ap.add_argument("--fit-limit", type=int, default=0, help="train recordings the fit reads (0: all)")
    ap.add_argument("--no-cost", action="store_true", help="skip the cost-per-caption measurement")
    return ap.parse_args()


def main() -> int:
    args = _args()
    ds = Dataset.open(DATASET)
    raw = load_raw(args.data)
    lib = TaskLibrary.load()
    enc = load_text_encoder(Config())
    vc = VectorCache(enc.encode, max_items=10**7)
    params = fit(ds, raw, lib, vc, args.fit_limit) if args.fit else TrackerParams()
    res: dict[str, Any] = {
        **stamp(),  # first, as `write` puts it: the report names the machine too
        "benchmark": "eval_tracker",
        "params": params.__dict__,
        "splits": [],
    }
    for split, variant, form, mode in itertools.product(
        *(a.split(",") for a in (args.splits, args.variants, args.forms, args.modes))
    ):
        r = run_split(
            ds, raw, lib, vc, split, variant, params, form=form, mode=mode, limit=args.limit, encoder=enc
        )
        print(json.dumps({k: r[k] for k in ("split", "variant", "form", "mode", "alignment")}), flush=True)
        res["splits"].append(r)
    if not args.no_cost:
        res["cost"] = cost(ds, lib, vc, enc)
    out = Path(args.out)
    write(out / "results.json", res)
    (out / "report.md").write_text(report(res), encoding="utf-8")
    print(report(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
