"""Run configurations over a built dataset through the app and score them.

Every row (our assistant, an ablation, the no-memory reasoner, a baseline) replays every
recording through `edge_assist.runtime.assembly.run_replay` on the virtual clock, each
recording with its own fresh memory directory (recordings are not one wearer's consecutive
days), and is scored by the same EgoServe scorer and measures.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.alerts import alert_profile
from edge_assist.evaluation.annotations import (
    GTEvent,
    Prediction,
    prediction_from_json,
    read_ground_truth,
    write_jsonl,
)
from edge_assist.evaluation.baselines import BASELINES
from edge_assist.evaluation.judge import judge_pairs
from edge_assist.evaluation.measures import content_match, false_alarms_per_hour, revealable_split
from edge_assist.evaluation.report import policy_counts
from edge_assist.evaluation.scorer import Matching, score
from edge_assist.evaluation.variants import DERIVED, STORED, check, derived_path
from edge_assist.events import Decision
from edge_assist.inference.base import LLM, TextEncoder

if TYPE_CHECKING:
    from edge_assist.reasoning.api import Assistant
    from edge_assist.runtime.app import RunResult

# The stored per-step streams: what gate training and the tracker benchmark iterate over.
VARIANTS = STORED
# Every variant `Dataset.stream` serves: those, and the ones derived on first use (`variants.py`).
ALL_VARIANTS = STORED + DERIVED
CLIP_VARIANTS = ("clips", "captioner")

# "No memory at all": the reasoner sees the current caption (and the task) only.
NO_MEMORY = {
    "reasoner.context_captions": 0,
    "retrieval.temporal": False,
    "retrieval.graph": False,
    "retrieval.visual": False,
}
ABLATIONS: dict[str, dict[str, Any]] = {
    "no multiscale": {"retrieval.multiscale": False},
    "no reconstruction": {"retrieval.reconstruction": False},
    "no visual": {"retrieval.visual": False},
    "no graph": {"retrieval.graph": False},
    "no temporal": {"retrieval.temporal": False},
}
# A replay is a benchmark run, not a wearer's session: no speech, no console, no glasses.
REPLAY_OVERRIDES = {"output.console": False, "output.speech": "off", "bridge.transport": "off"}


@dataclass(frozen=True)
class Row:
    name: str
    overrides: dict[str, Any] = field(default_factory=dict)
    baseline: str = ""  # a BASELINES key; "" runs the real assistant
    kind: str = "ours"  # "ours", "baseline" or "ablation"


def standard_rows() -> list[Row]:
    """The default rows of `eval run`, in report order (`row_keys()` names them for --rows)."""
    return [row for _, row in keyed_rows() if row.kind != "gate variant"]


# The gates `edge-assist gate train` writes beside its report: the caption-only baseline and
# the gate refitted without each feature group (thresholds chosen on val the same way).
GATE_VARIANTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "gate" / "models"
GATE_ABLATIONS = ("graph-order", "deviation", "alignment", "timing", "hazard", "session-history")


def keyed_rows() -> list[tuple[str, Row]]:
    rows = [
        ("ours", Row("edge-assist (gate, quiet)")),
        ("no-memory", Row("no memory (current caption only)", dict(NO_MEMORY))),
        ("never", Row("never speak", baseline="never-speak", kind="baseline")),
        ("er", Row("Error Recovery at every caption", baseline="er-every-caption", kind="baseline")),
        # The LLM decides (EgoMemo's pass 1), plus the tracker's findings when it stays silent.
        (
            "cue",
            Row("LLM pass 1 + tracker cue", {"reasoner.decider": "llm", "reasoner.progress_cue": "speak"}),
        ),
        ("normal", Row("gate, normal", {"policy.chattiness": "normal"})),
        ("chatty", Row("gate, chatty", {"policy.chattiness": "chatty"})),
        ("gate+llm", Row("gate+llm (LLM where the gate is unsure)", {"reasoner.decider": "gate+llm"})),
        ("llm", Row("LLM pass 1", {"reasoner.decider": "llm"})),
        (
            "caption-only",
            Row(
                "caption-only learned baseline (quiet)",
                {"reasoner.gate_file": str(GATE_VARIANTS / "caption-only.json")},
                kind="gate variant",
            ),
        ),
    ]
    for g in GATE_ABLATIONS:
        rows.append(
            (
                f"no-{g}",
                Row(
                    f"gate without {g.replace('-', ' ')} (quiet)",
                    {"reasoner.gate_file": str(GATE_VARIANTS / f"without-{g}.json")},
                    kind="gate variant",
                ),
            )
        )
    return rows


def ablation_rows() -> list[Row]:
    return [Row(name, dict(ov), kind="ablation") for name, ov in ABLATIONS.items()]


@dataclass
class Dataset:
    """A built benchmark directory (manifest.json, <split>/<variant>/*.jsonl, <split>/gt.jsonl).

    The derived variants are written on first use into `cache_dir` (default:
    `variants.default_cache_dir()`), unless the directory holds them itself.
    """

    root: Path
    manifest: dict[str, Any]
    cache_dir: Path | None = None

    @classmethod
    def open(cls, root: str | Path, cache_dir: Path | None = None) -> Dataset:
        r = Path(root)
        mf = r / "manifest.json"
        if not mf.exists():
            raise EdgeAssistError(
                f"{r} has no manifest.json; build one with "
                f"`edge-assist eval build-captaincook --data DIR --out {r}`"
            )
        return cls(r, json.loads(mf.read_text(encoding="utf-8")), cache_dir)

    @property
    def delta_s(self) -> float:
        return float(self.manifest.get("delta_s", 25.0))

    def recordings(self, split: str, limit: int = 0) -> list[str]:
        splits = self.manifest.get("splits", {})
        if split not in splits:
            raise EdgeAssistError(f"split {split!r} is not in {self.root} (has {', '.join(splits)})")
        ids = list(splits[split])
        return ids[:limit] if limit > 0 else ids

    @property
    def variants(self) -> tuple[str, ...]:
        """The caption-stream variants this build holds (its manifest says; else CaptainCook4D's)."""
        return tuple(self.manifest.get("variants") or ALL_VARIANTS)

    def stream(self, split: str, variant: str, rid: str) -> Path:
        if variant not in self.variants:
            raise EdgeAssistError(f"variant must be one of {', '.join(self.variants)}, got {variant!r}")
        stored = self.root / split / variant / f"{rid}.jsonl"
        if variant in STORED or stored.exists() or "variants" in self.manifest:
            return stored
        return derived_path(self.root, split, variant, rid, self.cache_dir)

    def session_id(self, rid: str) -> str:
        return str(self.manifest["recordings"][rid]["session_id"])

    def duration_s(self, rid: str) -> float:
        return float(self.manifest["recordings"][rid]["duration_s"])

    def ground_truth(self, split: str, recordings: Sequence[str]) -> tuple[list[GTEvent], list[str]]:
        loaded = read_ground_truth(self.root / split / "gt.jsonl")
        keep = {self.session_id(r) for r in recordings}
        return [g for g in loaded.gt if g.session_id in keep], [str(p) for p in loaded.problems]

    def captions(self, split: str, variant: str, rid: str) -> list[dict[str, Any]]:
        lines = self.stream(split, variant, rid).read_text(encoding="utf-8").splitlines()
        return [json.loads(x) for x in lines if x.strip() and "meta" not in json.loads(x)]


def variant_check(ds: Dataset, split: str, variant: str, recordings: Sequence[str]) -> dict[str, Any]:
    """A clip variant against the per-step streams: every step cut into its clips, each clip in
    its step's window, the same sessions and so the same ground truth. Raises on a mismatch;
    {} for a per-step variant, and for a dataset built as clips only (no per-step twin)."""
    if variant not in CLIP_VARIANTS or "paraphrased" not in ds.variants:
        return {}
    gt, _ = ds.ground_truth(split, recordings)
    problems: list[str] = []
    steps = clips = 0
    for rid in recordings:
        per_step, derived = ds.stream(split, "paraphrased", rid), ds.stream(split, variant, rid)
        problems += check(per_step, derived, gt, same_text=variant == "clips")
        steps += len(ds.captions(split, "paraphrased", rid))
        clips += len(ds.captions(split, variant, rid))
    if problems:
        raise EdgeAssistError(
            f"the {variant!r} streams do not match the per-step streams ({len(problems)} problems): "
            + "; ".join(problems[:5])
        )
    return {
        "recordings": len(recordings),
        "steps": steps,
        "clips": clips,
        "gt_events": len(gt),
        "problems": 0,
    }


@dataclass
class RowResult:
    row: Row
    decisions: dict[str, list[Decision]]  # per recording id
    predictions: list[Prediction]
    matching: Matching
    result: dict[str, Any]  # stable numbers (JSON)
    runtime: dict[str, Any]  # wall-clock measurements (vary from run to run)


def _replay(cfg: Config, path: Path, assistant: Assistant | None) -> RunResult:
    from edge_assist.runtime.app import run_sync
    from edge_assist.runtime.assembly import build_pipeline

    # A baseline reads no memory: the same pipeline without the memory writer, whose
    # summaries would cost the model time the baseline never uses. No signal handlers of
    # the replay's own: a replay stopped by SIGTERM would look finished and its partial
    # decisions be scored and kept for --read-back; SIGTERM and Ctrl-C end the evaluation.
    pipeline, close = build_pipeline(
        cfg, live=False, path=path, assistant=assistant, sinks=[], with_memory=assistant is None
    )
    try:
        return run_sync(pipeline.run())
    finally:
        close()


def replay_recording(row_cfg: Config, stream: Path, row: Row) -> tuple[list[Decision], dict[str, Any]]:
    """One recording through one row, in a fresh memory directory: (decisions, runtime stats).

    A top-level function so that a worker process can run it (`run_row(executor=...)`).
    """
    from edge_assist.inference.loader import response_cache_stats

    before = response_cache_stats(row_cfg) or {}
    with tempfile.TemporaryDirectory(prefix="edge-assist-eval-") as tmp:
        assistant = BASELINES[row.baseline]() if row.baseline else None
        res = _replay(row_cfg.replace(**{"general.data_dir": tmp}), stream, assistant)
    runtime = res.stats.to_json()
    after = response_cache_stats(row_cfg)
    if after is not None:
        runtime["response_cache"] = {
            k: round(after[k] - before.get(k, 0), 1) for k in ("hits", "misses", "saved_s")
        }
    return list(res.decisions), runtime


def run_row(
    cfg: Config,
    ds: Dataset,
    split: str,
    variant: str,
    row: Row,
    recordings: Sequence[str],
    *,
    text_encoder: TextEncoder | None = None,
    judge_llm: LLM | None = None,
    judge_max_pairs: int = 50,
    content_threshold: float = 0.5,
    delta_s: float | None = None,
    out_dir: Path | None = None,
    progress: Callable[[str], None] | None = None,
    executor: Executor | None = None,
    read_back: bool = False,
) -> RowResult:
    """Replay every recording through `row` and score it.

    With an `executor` (a process pool) recordings run in parallel workers; the numbers
    are the same as a serial run, since every recording replays on its own virtual clock
    with its own memory. Results are kept in recording order either way. With `read_back`,
    a recording whose decisions an earlier run wrote to `out_dir` is read, not replayed:
    for resuming an interrupted run of the same code and configuration.
    """
    row_cfg = cfg.replace(**{**REPLAY_OVERRIDES, **row.overrides})
    kept = _written(out_dir, row, recordings) if read_back and out_dir is not None else {}
    decisions: dict[str, list[Decision]] = {}
    runtime: dict[str, Any] = {"recordings": {}}
    if executor is not None:
        futures = {
            rid: executor.submit(replay_recording, row_cfg, ds.stream(split, variant, rid), row)
            for rid in recordings
            if rid not in kept
        }
    for rid in recordings:
        if rid in kept:
            decs, stats = kept[rid], {"read_back": True}
        elif executor is not None:
            decs, stats = futures[rid].result()
        else:
            decs, stats = replay_recording(row_cfg, ds.stream(split, variant, rid), row)
        if progress:
            progress(f"{row.name}: {rid} ({len(decs)} decisions)")
        decisions[rid] = decs
        runtime["recordings"][rid] = stats
        if out_dir is not None:
            write_jsonl(out_dir / "decisions" / _slug(row.name) / f"{rid}.jsonl", (d.to_json() for d in decs))
    preds = [
        prediction_from_json(d.to_json())
        for rid in recordings
        for d in decisions[rid]
        if d.speak and d.sub_type is not None and d.trigger == "proactive"
    ]
    m, result = _scored(ds, split, row, recordings, preds, text_encoder, content_threshold, delta_s)
    result |= _decision_counts(ds, recordings, decisions)
    if judge_llm is not None:
        result["judge"] = _judged(judge_llm, ds, split, variant, m, judge_max_pairs)
    return RowResult(row, decisions, preds, m, result, runtime)


def _decision_counts(
    ds: Dataset, recordings: Sequence[str], decisions: dict[str, list[Decision]]
) -> dict[str, Any]:
    """What was said per hour by kind, and what the intervention policy held back."""
    hours = sum(ds.duration_s(r) for r in recordings) / 3600.0
    return {"alerts": alert_profile(decisions, hours), "policy": policy_counts(decisions)}


def _written(out_dir: Path, row: Row, recordings: Sequence[str]) -> dict[str, list[Decision]]:
    """The decisions an earlier run of the row wrote, per recording that has them."""
    kept: dict[str, list[Decision]] = {}
    for rid in recordings:
        f = out_dir / "decisions" / _slug(row.name) / f"{rid}.jsonl"
        if f.exists():
            lines = f.read_text(encoding="utf-8").splitlines()
            kept[rid] = [Decision.from_json(json.loads(x)) for x in lines if x]
    return kept


def _scored(
    ds: Dataset,
    split: str,
    row: Row,
    recordings: Sequence[str],
    preds: list[Prediction],
    text_encoder: TextEncoder | None,
    content_threshold: float,
    delta_s: float | None,
) -> tuple[Matching, dict[str, Any]]:
    """The row's predictions matched to the ground truth, and its stable numbers."""
    gt, problems = ds.ground_truth(split, recordings)
    sc, m = score(gt, preds, ds.delta_s if not delta_s else delta_s)
    durations = {ds.session_id(r): ds.duration_s(r) for r in recordings}
    cm = content_match(m.pairs, text_encoder, content_threshold)
    result: dict[str, Any] = {
        "name": row.name,
        "kind": row.kind,
        "baseline": row.baseline or None,
        "overrides": row.overrides,
        **sc.to_json(),
        "predictions": len(preds),
        "gt": len(gt),
        "false_alarms": false_alarms_per_hour(preds, gt, durations),
        "content_match": {k: v for k, v in cm.items() if k != "cosines"},
        "revealable": revealable_split(m),
        "problems": problems,
    }
    return m, result


def _judged(llm: LLM, ds: Dataset, split: str, variant: str, m: Matching, max_pairs: int) -> dict[str, Any]:
    """The LLM judge's verdict on up to `max_pairs` correctly matched predictions."""
    correct = [p for p in m.pairs if p.correct][: max(0, max_pairs)]
    situations = [_situation(ds, split, variant, p.prediction) for p in correct]
    j = judge_pairs(llm, correct, situations)
    j["limit"] = max_pairs
    return j


def _situation(ds: Dataset, split: str, variant: str, p: Prediction) -> str:
    """The caption the prediction was made at: what the judge is told the wearer was doing."""
    rid = next((r for r, v in ds.manifest["recordings"].items() if v["session_id"] == p.session_id), "")
    if not rid:
        return ""
    caps = ds.captions(split, variant, rid)
    best = min(caps, key=lambda c: abs((c["t0"] + c["t1"]) / 2 - p.centre), default=None)
    return str(best["text"]) if best else ""


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
