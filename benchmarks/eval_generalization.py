"""Does the default gate work where a wearer lives? One report over the generalisation checks.

    python -m benchmarks.eval_generalization
        [--checks per-step,clips,captioner,list,goalstep,goalstep-list,hazards]
        [--rows ours,chatty,caption-only] [--limit N] [--jobs N] [--goalstep DIR]
        [--response-cache FILE] [--work DIR [--read-back]] [--set section.key=value ...]
        [--out benchmarks/results/generalization]

Checks (`CHECKS`): CaptainCook4D val per step (paraphrased); the same recordings as 10-s clip
streams (`clips`), in a captioner's words (`captioner`), and with each recipe given as a
plain list (`list`); Ego4D Goal-Step unscripted (`goalstep`: no task named, no ground truth,
every alert a false alarm) and the same streams with the wearer's own list named
(`goalstep-list`: the video's steps as the person did them; every alert false too); and the
hazard set (`hazards`: the shipped hazard detector on `edge_assist/data/hazard_captions/`,
recall on hazards and alerts on near-misses, val only; `--final` scores the test half, once
per design). A variant this checkout cannot make is reported as "not built", not run.

Per check and row: ER F1, P/R, false alarms per hour (recordings without ground truth) and
by the tracker finding behind each, content match, "strong held behind weak" (from the
policy's marker in `suppressed_by`; 0, marked "not reported", when this policy has none),
and which library tasks the tracker named. Writes report.md and results.json (stamped with
command and commit) to --out, and one archive of the run's decisions, decisions.tar.gz.
"""

from __future__ import annotations

import argparse
import json
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.results_io import ROOT, command_line, write
from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation import alerts, goalstep, harness
from edge_assist.evaluation.captaincook import DEFAULT_DATASET
from edge_assist.evaluation.workers import worker_pool
from edge_assist.inference.base import TextEncoder

OUT = ROOT / "benchmarks" / "results" / "generalization"
GOALSTEP_DATA = ROOT.parent / "shared" / "data" / "ego4d-goalstep"
HAZARD_DATA = ROOT / "edge_assist" / "data" / "hazard_captions"
ROWS = ("ours", "chatty", "caption-only")
NOT_BUILT = "not built"

Detect = Callable[[Sequence[str]], list[bool]]


@dataclass(frozen=True)
class Check:
    key: str
    title: str
    dataset: str  # "captaincook" or "goalstep"
    variant: str


CHECKS = (
    Check("per-step", "CaptainCook4D val, one caption per step (paraphrased)", "captaincook", "paraphrased"),
    Check("clips", "CaptainCook4D val as 10-s clip streams", "captaincook", "clips"),
    Check("captioner", "CaptainCook4D val, clips in a captioner's words", "captaincook", "captioner"),
    Check("list", "CaptainCook4D val, recipes as plain lists", "captaincook", "list"),
    Check("goalstep", "Ego4D Goal-Step val, unscripted, no task named", "goalstep", goalstep.VARIANT),
    Check(
        "goalstep-list", "Ego4D Goal-Step val, the wearer's own list named", "goalstep", goalstep.LIST_VARIANT
    ),
)
CHECK_KEYS = (*(c.key for c in CHECKS), "hazards")


def open_check(check: Check, args: argparse.Namespace, work: Path) -> tuple[harness.Dataset | None, str]:
    """The check's dataset, or None and why it cannot run here."""
    if check.dataset == "goalstep":
        built = Path(args.goalstep) if args.goalstep else work / "goalstep"
        if not (built / "manifest.json").exists():
            if not (Path(args.goalstep_data) / goalstep.DATA_FILE).exists():
                return None, f"{NOT_BUILT}: no Goal-Step annotations at {args.goalstep_data}"
            goalstep.build(args.goalstep_data, built)
        ds = harness.Dataset.open(built)
    else:
        ds = harness.Dataset.open(args.dataset)
    if check.variant not in ds.variants:
        return None, f"{NOT_BUILT}: variant {check.variant!r} is not one this checkout makes"
    try:
        ds.stream(args.split, check.variant, ds.recordings(args.split, 1)[0])
    except (EdgeAssistError, IndexError) as e:
        return None, f"{NOT_BUILT}: {e}"
    return ds, ""


def row_summary(rr: harness.RowResult, ds: harness.Dataset, split: str, recordings: Sequence[str]) -> dict:
    """The numbers the report shows for one row of one check."""
    r = rr.result
    er = r.get("per_sub_type", {}).get("ER", {})
    gt, _ = ds.ground_truth(split, recordings)
    with_gt = {g.session_id for g in gt}
    clean = [rid for rid in recordings if ds.session_id(rid) not in with_gt]
    hours = sum(ds.duration_s(rid) for rid in clean) / 3600.0
    false = alerts.alert_profile({rid: rr.decisions[rid] for rid in clean}, hours)
    everything = r.get("alerts") or alerts.alert_profile(rr.decisions, 0.0)
    policy = r.get("policy") or {}
    held = everything["held_behind_weak"]
    return {
        "name": r["name"],
        "er_f1": er.get("f1"),
        "er_precision": er.get("precision"),
        "er_recall": er.get("recall"),
        "macro_f1": r.get("macro_f1"),
        "gt": r.get("gt"),
        "predictions": r.get("predictions"),
        "false_alarms": {
            "recordings": len(clean),
            "hours": false["hours"],
            "per_hour": false["per_hour"],
            "by_sub_type": false["by_sub_type"],
            "by_finding": false["by_finding"],
        },
        "content_match": r.get("content_match", {}).get("rate"),
        "strong_held_behind_weak": {
            **held,
            "count": policy.get("strong_held_behind_weak", held["count"]),
        },
        "recognition": everything["recognition"],
    }


def run_check(
    check: Check,
    ds: harness.Dataset,
    args: argparse.Namespace,
    cfg: Config,
    encoder: TextEncoder,
    run_dir: Path,
    pool: Any,
) -> dict[str, Any]:
    recordings = ds.recordings(args.split, args.limit)
    keyed = dict(harness.keyed_rows())
    rows: dict[str, Any] = {}
    for key in args.rows:
        row = keyed[key]
        gate_file = row.overrides.get("reasoner.gate_file")
        if gate_file and not Path(gate_file).exists():
            rows[key] = {"name": row.name, "status": f"{NOT_BUILT}: {gate_file} is missing"}
            continue
        rr = harness.run_row(
            cfg,
            ds,
            args.split,
            check.variant,
            row,
            recordings,
            text_encoder=encoder,
            out_dir=run_dir / check.key,
            executor=pool,
            progress=lambda msg: print(f"{check.key}: {msg}", flush=True),
            read_back=args.read_back,
        )
        rows[key] = row_summary(rr, ds, args.split, recordings)
    hours = sum(ds.duration_s(r) for r in recordings) / 3600.0
    return {
        "title": check.title,
        "variant": check.variant,
        "recordings": len(recordings),
        "hours": round(hours, 4),
        "rows": rows,
    }


def shipped_hazard_detector(encoder: TextEncoder) -> tuple[str, Detect] | None:
    """The hazard detector this checkout ships, as `texts -> alert or not`: the compositional
    detector where it exists, else the phrase list the assistant matches today."""
    from edge_assist.reasoning import hazards

    detector_cls = getattr(hazards, "HazardDetector", None)
    if detector_cls is not None:
        det = detector_cls.load(encoder)
        return "compositional detector", lambda texts: [
            det.detect(t, v) is not None for t, v in zip(texts, encoder.encode(list(texts)), strict=True)
        ]
    matcher_cls = getattr(hazards, "HazardMatcher", None)
    if matcher_cls is None:
        return None
    matcher = matcher_cls.load(encoder)
    return "phrase list (hazards.toml)", lambda texts: [
        matcher.match(v) is not None for v in encoder.encode(list(texts))
    ]


def hazard_check(detect: Detect | None, name: str = "", split: str = "val", data: Path = HAZARD_DATA) -> dict:
    """Recall on the hazards of `split` and the share of near-misses (and ordinary clips) that
    get an alert. The test half is for the final run only (`--final`)."""
    path = data / f"{split}.jsonl"
    if detect is None:
        return {"status": f"{NOT_BUILT}: no hazard detector in this checkout"}
    if not path.exists():
        return {"status": f"{NOT_BUILT}: {path} is missing"}
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    said = detect([str(x["text"]) for x in lines])
    out: dict[str, Any] = {"detector": name, "split": split, "captions": len(lines)}
    for label in ("hazard", "near_miss", "ordinary"):
        hits = [s for x, s in zip(lines, said, strict=True) if x["label"] == label]
        rate = round(sum(hits) / len(hits), 4) if hits else None
        out[label] = {"n": len(hits), "alerted": sum(hits), "rate": rate}
    hazards = [(x, s) for x, s in zip(lines, said, strict=True) if x["label"] == "hazard"]
    by_style: dict[str, list[bool]] = {}
    for x, s in hazards:
        by_style.setdefault(str(x.get("style")), []).append(s)
    out["recall_by_style"] = {st: round(sum(v) / len(v), 4) for st, v in sorted(by_style.items())}
    return out


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def _rate(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}"


def _held(h: dict[str, Any]) -> str:
    said = str(h["count"]) if h.get("policy_reports") or h["count"] else "0 (not reported)"
    return f"{said}; derived {h.get('derived_from_gate', 0)}"


def _check_tables(checks: dict[str, Any]) -> list[str]:
    head = (
        "| check | row | ER F1 | P / R | false alarms / h (hours) | content match | strong held behind weak |"
    )
    out = [head, "|---|---|---|---|---|---|---|"]
    kinds = sorted(
        {
            k
            for c in checks.values()
            for r in c.get("rows", {}).values()
            for k in r.get("false_alarms", {}).get("by_finding", {})
        }
    ) or ["(none spoken)"]
    by_kind = ["| check | row | " + " | ".join(kinds) + " |", "|---|---|" + "---|" * len(kinds)]
    tasks = [
        "| check | row | captions with a task | recordings with a task | tasks named (captions) |",
        "|---|---|---|---|---|",
    ]
    for key, c in checks.items():
        if "status" in c:
            out.append(f"| {key} | – | {c['status']} | | | | |")
            continue
        for row, r in c["rows"].items():
            if "status" in r:
                out.append(f"| {key} | {row} | {r['status']} | | | | |")
                continue
            fa = r["false_alarms"]
            out.append(
                f"| {key} | {row} | {_pct(r['er_f1'])} | {_pct(r['er_precision'])} / {_pct(r['er_recall'])} "
                f"| {_rate(fa['per_hour'])} ({fa['hours']:.2f} h) | {_pct(r['content_match'])} "
                f"| {_held(r['strong_held_behind_weak'])} |"
            )
            cells = [_rate(fa["by_finding"].get(k, {}).get("per_hour", 0.0)) for k in kinds]
            by_kind.append(f"| {key} | {row} | " + " | ".join(cells) + " |")
            rec = r["recognition"]
            named = ", ".join(f"{t} ({v['captions']})" for t, v in list(rec["by_task"].items())[:5]) or "none"
            tasks.append(
                f"| {key} | {row} | {rec['captions_with_task']}/{rec['captions']} "
                f"| {rec['recordings_with_task']}/{rec['recordings']} | {named} |"
            )
    return [
        *out,
        "",
        "False alarms per hour by the finding behind each (recordings without ground truth):",
        "",
        *by_kind,
        "",
        "Tasks the tracker had (named by the stream, or recognised):",
        "",
        *tasks,
    ]


def _hazard_lines(h: dict[str, Any]) -> list[str]:
    if "status" in h:
        return [f"Hazards: {h['status']}."]
    nm, hz, od = h["near_miss"], h["hazard"], h["ordinary"]
    styles = ", ".join(f"{k} {_pct(v)}" for k, v in h["recall_by_style"].items())
    return [
        f"Hazards ({h['split']} half, {h['captions']} captions, detector: {h['detector']}; "
        "the same for every row): "
        f"recall {_pct(hz['rate'])} % ({hz['alerted']}/{hz['n']}; by style: {styles}), alerts on near-misses "
        f"{_pct(nm['rate'])} % ({nm['alerted']}/{nm['n']}), on ordinary clips {_pct(od['rate'])} % "
        f"({od['alerted']}/{od['n']})."
    ]


def render(result: dict[str, Any]) -> str:
    lines = [
        "# Generalisation checks: the default gate at quiet and chatty, and the caption-only row",
        "",
        f"Split {result['split']}, first {result['limit'] or 'all'} recordings per check; commit "
        f"{result.get('commit')}, {result.get('date')}, load {result.get('machine', {}).get('load_avg_1m')}.",
        "ER F1, P, R and content match in %. False alarms per hour: spoken alerts on recordings without "
        "ground truth (on Goal-Step every recording). Strong held behind weak: as the policy marks it "
        '("not reported" when this policy has no marker), then derived from the gate\'s probabilities '
        "(held by a cooldown with a higher P than the alert that set it).",
        "",
        *_check_tables(result["checks"]),
        "",
        *_hazard_lines(result["hazards"]),
        "",
        "Data: CaptainCook4D annotations (MIT); Ego4D Goal-Step (Song et al., NeurIPS 2023), MIT License.",
        "",
        "Command:",
        "",
        "```",
        str(result.get("command", "")),
        "```",
    ]
    return "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--checks", default=",".join(CHECK_KEYS), help=f"comma-separated: {', '.join(CHECK_KEYS)}")
    p.add_argument("--rows", default=",".join(ROWS), help="comma-separated rows of `eval run --rows`")
    p.add_argument("--split", default="val", help="split of every check (default val; never test here)")
    p.add_argument("--limit", type=int, default=0, help="first N recordings per check (0 = all)")
    p.add_argument("--jobs", type=int, default=1, help="recordings replayed at once (worker processes)")
    p.add_argument("--dataset", default=str(DEFAULT_DATASET), help="the built CaptainCook4D benchmark")
    p.add_argument("--goalstep", default="", help="a built Goal-Step dir (default: built into --work)")
    p.add_argument("--goalstep-data", default=str(GOALSTEP_DATA), help="Goal-Step annotations")
    p.add_argument("--final", action="store_true", help="score the hazard set's test half (final run only)")
    p.add_argument("--work", default="", help="decisions and the model cache (default: a temporary dir)")
    p.add_argument(
        "--read-back",
        action="store_true",
        help="resume a run: recordings whose decisions are already in --work are read, not replayed",
    )
    p.add_argument(
        "--response-cache", default=None, help="model response cache (default WORK/model-cache.sqlite)"
    )
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE", help="config override")
    p.add_argument("--out", default=str(OUT), help="where report.md, results.json and decisions.tar.gz go")
    args = p.parse_args(argv)
    args.checks = [c.strip() for c in args.checks.split(",") if c.strip()]
    args.rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    keyed = dict(harness.keyed_rows())
    bad = [c for c in args.checks if c not in CHECK_KEYS] + [r for r in args.rows if r not in keyed]
    if bad or args.jobs < 1:
        p.error(f"unknown check or row {bad[0]!r}" if bad else "--jobs must be 1 or more")
    return args


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    from edge_assist.config import load_config, parse_override
    from edge_assist.inference.loader import load_text_encoder

    cfg = load_config(None, dict(parse_override(x) for x in args.set))
    cache = str(work / "model-cache.sqlite") if args.response_cache is None else args.response_cache
    if cache and not cfg.models.response_cache:
        cfg = cfg.replace(**{"models.response_cache": cache})
    opened = {c.key: (c, *open_check(c, args, work)) for c in CHECKS if c.key in args.checks}
    runs = any(ds is not None for _, ds, _ in opened.values())
    encoder = load_text_encoder(cfg) if runs or "hazards" in args.checks else None
    checks: dict[str, Any] = {}
    with worker_pool(args.jobs if runs else 1) as pool:
        for key, (check, ds, why) in opened.items():
            if ds is None or encoder is None:
                checks[key] = {"title": check.title, "status": why}
            else:
                checks[key] = run_check(check, ds, args, cfg, encoder, work / "runs", pool)
    hazards: dict[str, Any] = {"status": "not asked (--checks)"}
    if encoder is not None and "hazards" in args.checks:
        found = shipped_hazard_detector(encoder)
        name, detect = found if found is not None else ("", None)
        hazards = hazard_check(detect, name, "test" if args.final else "val")
    return {"split": args.split, "limit": args.limit, "rows": args.rows, "checks": checks, "hazards": hazards}


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    with tempfile.TemporaryDirectory(prefix="edge-assist-generalization-") as tmp:
        work = Path(args.work) if args.work else Path(tmp)
        result = run(args, work)
        out.mkdir(parents=True, exist_ok=True)
        runs = work / "runs"
        if runs.is_dir():
            with tarfile.open(out / "decisions.tar.gz", "w:gz") as tar:
                tar.add(runs, arcname="decisions")
    path = write(out / "results.json", result, command=command_line(list(argv) if argv is not None else None))
    stamped = json.loads(path.read_text(encoding="utf-8"))
    (out / "report.md").write_text(render(stamped), encoding="utf-8")
    print(render(stamped))
    print(f"wrote {out / 'report.md'}, {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
