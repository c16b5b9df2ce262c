"""`edge-assist eval`: build the CaptainCook4D benchmark, run configurations over it, score files.

- `eval build-captaincook --data DIR --out DIR`: caption streams (original and paraphrased),
  ground truth and a manifest from the CaptainCook4D annotations.
- `eval run --dataset DIR --split val [--variant ...] [--ablations] --out DIR`: our rows and
  the baselines through the app, scored; writes results.json, report.md, runtime.json and a
  timeline PNG per recording. Variants: the stored per-step streams (original, paraphrased)
  and those derived from them on first use (clips, captioner, list; evaluation/variants.py).
- `eval qa --split val --variant original --out DIR`: the question benchmark (template
  questions from the step annotations), grounded and free-writing answerers side by side
  (commands/eval_qa.py).
- `eval score --gt FILE --predictions FILE`: score any decision log (or EgoServe-style
  predictions) against EgoServe annotations or our GT JSONL.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_assist.commands.eval_goalstep import add_build_goalstep
from edge_assist.commands.eval_qa import add_qa
from edge_assist.commands.options import config_from_args, override_items
from edge_assist.errors import EdgeAssistError

# evaluation.captaincook.DEFAULT_DATASET (a test keeps them one), without importing the
# evaluation at every start of every command.
DEFAULT_DATASET = Path(__file__).resolve().parents[1] / "data" / "captaincook4d"
# evaluation.harness.ALL_VARIANTS, likewise: the stored per-step streams, then the derived ones.
VARIANTS = ("original", "paraphrased", "clips", "captioner", "list")

if TYPE_CHECKING:
    from edge_assist.config import Config
    from edge_assist.evaluation import harness
    from edge_assist.evaluation.annotations import GTEvent


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="benchmark edge-assist: EgoServe scoring, CaptainCook4D, reports",
        description="Evaluate edge-assist with the EgoServe protocol.",
    )
    esub = p.add_subparsers(dest="eval_command", metavar="ACTION", required=True)
    _add_build(esub)
    add_build_goalstep(esub)
    _add_run(esub)
    add_qa(esub, DEFAULT_DATASET, VARIANTS)
    _add_score(esub)


def _add_build(esub: argparse._SubParsersAction) -> None:
    b = esub.add_parser("build-captaincook", help="build the CaptainCook4D proactive-service benchmark")
    b.add_argument("--data", required=True, metavar="DIR", help="CaptainCook4D annotations directory")
    b.add_argument("--out", required=True, metavar="DIR", help="where to write the benchmark")
    b.add_argument("--split", action="append", default=[], help="split to build (default: train and val)")
    b.add_argument("--seed", type=int, default=0, help="paraphrase seed (default 0)")
    b.set_defaults(func=_build)


def _add_run(esub: argparse._SubParsersAction) -> None:
    r = esub.add_parser("run", help="run our assistant and the baselines over a dataset and write the report")
    r.add_argument(
        "--dataset",
        default=str(DEFAULT_DATASET),
        metavar="DIR",
        help="a built benchmark (default: the shipped CaptainCook4D build)",
    )
    r.add_argument("--split", default="val", help="which split (default val; develop on train)")
    r.add_argument(
        "--variant",
        default="",
        help="caption stream variant (default: the dataset's first, e.g. original): per step (original, "
        "paraphrased, list: the recipe as a plain list) or cut into 10-s clips (clips, captioner); the "
        "derived ones are written to a cache on first use",
    )
    r.add_argument("--ablations", action="store_true", help="also run the five retrieval ablations")
    r.add_argument(
        "--rows",
        default="",
        help="comma-separated rows: ours,no-memory,never,er,cue,normal,chatty,gate+llm,llm (the default), "
        "caption-only, no-graph-order, no-deviation, no-alignment, no-timing, no-hazard, "
        "no-session-history (gates written by `edge-assist gate train`)",
    )
    r.add_argument("--limit", type=int, default=0, help="only the first N recordings of the split (0 = all)")
    r.add_argument(
        "--delta-s", type=float, default=0.0, help="matching tolerance δ in seconds (0 = the dataset's)"
    )
    r.add_argument(
        "--content-threshold", type=float, default=0.5, help="content-match cosine threshold (default 0.5)"
    )
    r.add_argument("--judge-max-pairs", type=int, default=50, help="LLM-judged pairs per row (0 = no judge)")
    r.add_argument("--no-plots", action="store_true", help="skip the timeline PNGs")
    r.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="recordings replayed at once, one worker process each (default 1; give each a core)",
    )
    r.add_argument(
        "--read-back",
        action="store_true",
        help="resume an interrupted run: recordings whose decisions are already in --out are read, "
        "not replayed (same code and configuration only)",
    )
    r.add_argument(
        "--response-cache",
        default=None,
        metavar="FILE",
        help="replay identical model requests from this SQLite file (default OUT/model-cache.sqlite; "
        "'' = off): rows that share requests cost them once, and a rerun resumes",
    )
    r.add_argument(
        "--out", required=True, metavar="DIR", help="where to write results.json, report.md, plots"
    )
    r.set_defaults(func=_run)


def _add_score(esub: argparse._SubParsersAction) -> None:
    s = esub.add_parser("score", help="score a decision log against annotations (EgoServe or our GT JSONL)")
    s.add_argument("--gt", required=True, metavar="FILE", help="annotations: EgoServe JSON/JSONL or GT JSONL")
    s.add_argument(
        "--predictions", required=True, metavar="FILE", help="decision log (Decision JSONL) or EgoServe-style"
    )
    s.add_argument(
        "--delta-s",
        type=float,
        default=25.0,
        help="matching tolerance δ (60 all-day, 25 CaptainCook4D, 10 HoloAssist)",
    )
    s.set_defaults(func=_score)


def _build(args: argparse.Namespace) -> int:
    from edge_assist.evaluation.captaincook import build

    manifest = build(args.data, args.out, splits=tuple(args.split) or ("train", "val"), seed=args.seed)
    for split, ids in manifest["splits"].items():
        events = sum(manifest["recordings"][r]["gt_events"] for r in ids)
        print(f"{split}: {len(ids)} recordings, {events} ground-truth services -> {Path(args.out) / split}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from edge_assist.evaluation import harness, report
    from edge_assist.evaluation.workers import worker_pool

    cfg = config_from_args(args)
    if args.jobs < 1:
        raise EdgeAssistError(f"--jobs must be 1 or more, got {args.jobs}")
    out = Path(args.out)
    cache_path = str(out / "model-cache.sqlite") if args.response_cache is None else args.response_cache
    if cache_path and not cfg.models.response_cache:
        cfg = cfg.replace(**{"models.response_cache": cache_path})
    ds = harness.Dataset.open(args.dataset)
    args.variant = args.variant or ds.variants[0]
    recordings = ds.recordings(args.split, args.limit)
    checked = harness.variant_check(ds, args.split, args.variant, recordings)
    rows = _chosen_rows(args.rows)
    ablations = harness.ablation_rows() if args.ablations else []
    needs_models = any(not r.baseline for r in rows + ablations) or args.judge_max_pairs > 0

    from edge_assist.inference.loader import load_llm, load_text_encoder

    encoder = load_text_encoder(cfg)
    judge = load_llm(cfg) if needs_models and args.judge_max_pairs > 0 else None
    out.mkdir(parents=True, exist_ok=True)

    def progress(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    done: list[harness.RowResult] = []
    with worker_pool(args.jobs) as pool:
        for row in rows + ablations:
            done.append(
                harness.run_row(
                    cfg,
                    ds,
                    args.split,
                    args.variant,
                    row,
                    recordings,
                    text_encoder=encoder,
                    judge_llm=judge,
                    judge_max_pairs=args.judge_max_pairs,
                    content_threshold=args.content_threshold,
                    delta_s=args.delta_s or None,
                    out_dir=out,
                    progress=progress,
                    executor=pool,
                    read_back=args.read_back,
                )
            )
    results = _write_results(args, cfg, ds, recordings, done, out, checked)
    print(report.table(results["rows"]))
    print(f"wrote {out / 'results.json'}, {out / 'report.md'}")
    return 0


def _chosen_rows(names: str) -> list[harness.Row]:
    """The rows `--rows` names (the standard rows when empty); a gate row needs its gate file."""
    from edge_assist.evaluation import harness

    if not names:
        return harness.standard_rows()
    keyed = dict(harness.keyed_rows())
    wanted = [x.strip() for x in names.split(",") if x.strip()]
    bad = [w for w in wanted if w not in keyed]
    if bad:
        raise EdgeAssistError(f"unknown row {bad[0]!r} for --rows; choose from {', '.join(keyed)}")
    rows = [keyed[w] for w in wanted]
    for r in rows:
        gate_file = r.overrides.get("reasoner.gate_file")
        if gate_file and not Path(gate_file).exists():
            raise EdgeAssistError(
                f"row {r.name!r} needs {gate_file}; write it with `edge-assist gate train` "
                "from a checkout of the repository"
            )
    return rows


def _write_results(
    args: argparse.Namespace,
    cfg: Config,
    ds: harness.Dataset,
    recordings: list[str],
    done: list[harness.RowResult],
    out: Path,
    variant_check: dict[str, Any],
) -> dict[str, Any]:
    """results.json, runtime.json, report.md and the timelines of a finished run."""
    from edge_assist.evaluation import report

    gt, problems = ds.ground_truth(args.split, recordings)
    with_gt = {g.session_id for g in gt}
    models = f"llm={cfg.models.llm}, text_encoder={cfg.models.text_encoder}, vlm={cfg.models.vlm or 'none'}"
    results: dict[str, Any] = {
        "dataset": {"name": ds.manifest.get("dataset", ds.root.name), "path": str(args.dataset)},
        "split": args.split,
        "variant": args.variant,
        "variant_check": variant_check or None,
        "recordings": len(recordings),
        "recordings_without_errors": sum(1 for r in recordings if ds.session_id(r) not in with_gt),
        "gt_events": len(gt),
        "delta_s": args.delta_s or ds.delta_s,
        "content_threshold": args.content_threshold,
        "judge_max_pairs": args.judge_max_pairs,
        "models": models,
        "config_overrides": override_items(args),
        "rows": [d.result for d in done if d.row.kind != "ablation"],
        "ablations": [d.result for d in done if d.row.kind == "ablation"],
        "problems": problems,
        "command": "edge-assist " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:] else "",
    }
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    runtime: dict[str, Any] = {d.row.name: d.runtime for d in done}
    for d in done:
        per = [r.get("response_cache") for r in d.runtime["recordings"].values() if r.get("response_cache")]
        if per:
            d.runtime["response_cache"] = {
                k: round(sum(p[k] for p in per), 1) for k in ("hits", "misses", "saved_s")
            }
            print(f"{d.row.name}: response cache {d.runtime['response_cache']}", file=sys.stderr)
    (out / "runtime.json").write_text(json.dumps(runtime, indent=1) + "\n", encoding="utf-8")
    (out / "report.md").write_text(report.render(results), encoding="utf-8")
    if not args.no_plots:
        _plot_timelines(args, ds, recordings, done, gt, out)
    return results


def _plot_timelines(
    args: argparse.Namespace,
    ds: harness.Dataset,
    recordings: list[str],
    done: list[harness.RowResult],
    gt: list[GTEvent],
    out: Path,
) -> None:
    from edge_assist.evaluation.timeline import plot_timeline

    for rid in recordings:
        sid = ds.session_id(rid)
        caps = [(c["t0"], c["t1"]) for c in ds.captions(args.split, args.variant, rid)]
        systems = [
            (d.row.name, [p for p in d.predictions if p.session_id == sid], d.matching)
            for d in done
            if d.row.kind != "ablation"
        ]
        plot_timeline(
            out / "timelines" / f"{rid}.png",
            f"{rid} ({ds.manifest['recordings'][rid].get('recipe') or 'no task named'})",
            [g for g in gt if g.session_id == sid],
            systems,
            caps,
            ds.duration_s(rid),
        )


def _score(args: argparse.Namespace) -> int:
    from edge_assist.evaluation.annotations import read_ground_truth, read_predictions
    from edge_assist.evaluation.scorer import score

    gt = read_ground_truth(args.gt)
    preds = read_predictions(args.predictions)
    for p in gt.problems + preds.problems:
        print(f"edge-assist: skipped {p}", file=sys.stderr)
    sc, m = score(gt.gt, preds.predictions, args.delta_s)
    out = {
        **sc.to_json(),
        "gt": len(gt.gt),
        "predictions": len(preds.predictions),
        "skipped": [str(p) for p in gt.problems + preds.problems],
    }
    print(json.dumps(out, indent=1))
    return 0
