"""The CaptainCook4D proactive-service benchmark, built from the dataset's annotations.

Per recording it writes a caption stream (one caption per performed step, in time order,
the `modified_description` where present), a paraphrased twin of that stream, and ground
truth derived from the human error labels (mapping in `evaluation/README.md`):
- every performed step with annotated errors is one Error Recovery event in that step's
  window (several error labels on one step are one event: one correction is due);
- a Missing Step is an Error Recovery event due in the window of the next performed step
  (the last performed step's window when nothing follows);
- each event records whether a caption stream can reveal it: Missing Step, Order Error, or a
  `modified_description` that differs from the recipe step.
Recordings without events measure false alarms.
"""

from __future__ import annotations

import csv
import json
import random
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.annotations import GTEvent, gt_to_json, write_jsonl
from edge_assist.evaluation.paraphrase import clean_step, contains_verbatim, normalise, paraphrase
from edge_assist.evaluation.scorer import DELTA_S
from edge_assist.events import SubType
from edge_assist.tasks.formats import from_captaincook
from edge_assist.tasks.model import TaskFileError

# The built CaptainCook4D caption streams the package ships (train/val/test splits).
DEFAULT_DATASET = Path(__file__).resolve().parents[1] / "data" / "captaincook4d"
DATASET = "captaincook4d"
SOURCE = "CaptainCook4D annotations (MIT), one caption per performed step"
REVEALABLE_TAGS = frozenset({"Missing Step", "Order Error"})
PARAPHRASE_TRIES = 8


class DatasetError(EdgeAssistError):
    """The dataset directory is missing a file or holds something unexpected."""


@dataclass(frozen=True)
class Step:
    step_id: int
    description: str  # the recipe's text, cleaned of its "Verb-" label
    start: float
    end: float
    modified: str = ""  # what the person actually did, cleaned; "" when not annotated
    errors: tuple[tuple[str, str], ...] = ()  # (tag, description)

    @property
    def performed(self) -> bool:
        return self.start >= 0 and self.end >= self.start

    @property
    def caption(self) -> str:
        return self.modified or self.description


@dataclass(frozen=True)
class Recording:
    recording_id: str
    activity_id: int
    recipe: str
    is_error: bool
    steps: tuple[Step, ...]  # in annotation order (skipped steps sit where they were due)
    duration_s: float

    @property
    def session_id(self) -> str:
        return f"{DATASET}-{self.recording_id}"

    @property
    def performed(self) -> list[Step]:
        return sorted((s for s in self.steps if s.performed), key=lambda s: (s.start, s.end))


@dataclass
class Raw:
    recordings: dict[str, Recording]
    recipes: dict[str, list[str]]  # recipe -> steps in a topological order of its task graph
    splits: dict[str, list[str]]
    license_path: Path | None = None
    notes: list[str] = field(default_factory=list)


def _load_json(path: Path) -> Any:
    if not path.exists():
        raise DatasetError(f"{path} is missing; point --data at a CaptainCook4D annotations directory")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DatasetError(f"{path} is not valid JSON ({e}); re-copy it from the dataset") from None


def topological_steps(graph: dict[str, Any]) -> list[str]:
    """Recipe steps in a topological order of the DAG (smallest id first among the ready)."""
    try:
        task = from_captaincook(graph, "recipe")
    except TaskFileError as e:
        raise DatasetError(f"a task graph is not a recipe DAG ({e})") from None
    return [task.steps[i].text for i in task.topological()]


def _durations(path: Path) -> dict[str, float]:
    if not path.exists():
        return {}
    with path.open(encoding="utf-8") as f:
        return {row["recording_id"]: float(row["duration(sec)"]) for row in csv.DictReader(f)}


def load_raw(data_dir: str | Path) -> Raw:
    """Read the annotations and map each activity to its task graph by its step texts."""
    d = Path(data_dir)
    if not d.is_dir():
        raise DatasetError(f"{d} is not a directory; point --data at the CaptainCook4D annotations")
    annotations = _load_json(d / "error_annotations.json")
    splits = _load_json(d / "splits.json")
    graph_dir = d / "task_graphs"
    graphs = {p.stem: _load_json(p) for p in sorted(graph_dir.glob("*.json"))}
    if not graphs:
        raise DatasetError(f"{graph_dir} holds no task graphs; re-copy task_graphs/ from the dataset")
    durations = _durations(d / "video_information.csv")

    recipe_of = _recipe_of_activity(annotations, graphs)
    recordings: dict[str, Recording] = {}
    for rec in annotations:
        steps = [_step(s) for s in rec["step_annotations"]]
        performed_end = max((s.end for s in steps if s.performed), default=0.0)
        rid = str(rec["recording_id"])
        recordings[rid] = Recording(
            rid,
            int(rec["activity_id"]),
            recipe_of[int(rec["activity_id"])],
            bool(rec.get("is_error")),
            tuple(steps),
            max(durations.get(rid, 0.0), performed_end),
        )
    recipes = {name: topological_steps(g) for name, g in graphs.items()}
    lic = d / "LICENSE"
    return Raw(
        recordings,
        recipes,
        {k: [str(x) for x in v] for k, v in splits.items()},
        lic if lic.exists() else None,
    )


def _recipe_of_activity(annotations: list[dict[str, Any]], graphs: dict[str, Any]) -> dict[int, str]:
    """Activity ids are not named anywhere: the recipe is the graph whose step texts the
    activity's recordings use most."""
    texts: dict[int, set[str]] = {}
    for rec in annotations:
        texts.setdefault(int(rec["activity_id"]), set()).update(
            s["description"] for s in rec["step_annotations"]
        )
    recipe_of: dict[int, str] = {}
    for act, used in texts.items():
        overlap = {name: len(used & set(g["steps"].values())) for name, g in graphs.items()}
        best = max(sorted(overlap), key=lambda n: overlap[n])
        if overlap[best] * 2 < len(used):
            raise DatasetError(
                f"activity {act} matches no task graph (best {best}: {overlap[best]}/{len(used)} steps)"
            )
        recipe_of[act] = best
    return recipe_of


def _step(s: dict[str, Any]) -> Step:
    """One annotated step: its description, its times, what was done instead, its errors."""
    errors = tuple((str(e.get("tag", "Other")), str(e.get("description", ""))) for e in s.get("errors") or [])
    modified = s.get("modified_description") or ""
    start, end = float(s["start_time"]), float(s["end_time"])
    return Step(
        int(s["step_id"]),
        clean_step(s["description"]),
        start,
        end,
        clean_step(modified) if modified and start >= 0 else "",
        errors,
    )


def task_context(recipe: str, steps: Sequence[str]) -> str:
    return f"Recipe: {recipe}. Steps in order: " + "; ".join(
        f"{i}. {s}" for i, s in enumerate(steps, start=1)
    )


def _describe(errors: Sequence[tuple[str, str]], step: str) -> str:
    """The annotators' words; the tag names stay out (they live in `tags`), because a
    generic "something went wrong" would otherwise look similar to every "... Error: ...".
    """
    parts = []
    for tag, desc in errors:
        desc = desc.strip().rstrip(".")
        if tag == "Missing Step":
            parts.append(f"Skipped the step: {step}")
        elif tag == "Order Error" or not desc:
            # Order labels say little on their own ("Step performed before correct order").
            parts.append(f"{desc or tag} (step: {step})")
        else:
            parts.append(desc)
    return "; ".join(dict.fromkeys(parts))


def ground_truth(rec: Recording) -> list[GTEvent]:
    events: list[GTEvent] = []
    performed = rec.performed
    for pos, s in enumerate(rec.steps):
        if not s.errors:
            continue
        if s.performed:
            t0, t1 = s.start, s.end
            window_of = "own step"
        else:
            # Due when the next performed step (in annotation order) begins.
            later = [x for x in rec.steps[pos + 1 :] if x.performed]
            if later:
                t0, t1, window_of = later[0].start, later[0].end, "next performed step"
            elif performed:
                t0, t1, window_of = performed[-1].start, performed[-1].end, "last performed step"
            else:
                continue
        tags = sorted({t for t, _ in s.errors})
        differs = bool(s.modified) and normalise(s.modified) != normalise(s.description)
        revealable = bool(REVEALABLE_TAGS & set(tags)) or differs
        events.append(
            GTEvent(
                rec.session_id,
                t0,
                t1,
                SubType.ERROR_RECOVERY,
                _describe(s.errors, s.description),
                {
                    "tags": tags,
                    "step": s.description,
                    "performed_as": s.modified or None,
                    "window": window_of,
                    "revealable": revealable,
                },
            )
        )
    events.sort(key=lambda e: (e.t0, e.t1))
    return events


def streams(rec: Recording, recipe_steps: Sequence[str], *, seed: int = 0) -> tuple[list[dict], list[dict]]:
    """The original and the paraphrased caption stream (meta line first)."""
    meta = {
        "session_id": rec.session_id,
        "recording": rec.recording_id,
        "recipe": rec.recipe,
        "task_context": task_context(rec.recipe, recipe_steps),
        "source": SOURCE,
    }
    original: list[dict] = [{"meta": meta}]
    para: list[dict] = [{"meta": {**meta, "source": SOURCE + ", paraphrased (seeded, rule-based)"}}]
    for i, s in enumerate(rec.performed):
        line = {"t0": round(s.start, 3), "t1": round(s.end, 3)}
        original.append({**line, "text": s.caption})
        para.append(
            {**line, "text": paraphrase_clear_of(s.caption, recipe_steps, f"{seed}:{rec.recording_id}:{i}")}
        )
    return original, para


def paraphrase_clear_of(text: str, recipe_steps: Sequence[str], key: str) -> str:
    """A paraphrase that contains no recipe step verbatim; retries other seeds, then fails loud."""
    for k in range(PARAPHRASE_TRIES):
        out = paraphrase(text, random.Random(f"{key}:{k}"))
        if not any(contains_verbatim(out, step) for step in recipe_steps):
            return out
    raise DatasetError(
        f"cannot paraphrase {text!r} without quoting the recipe; extend evaluation/paraphrase.py"
    )


def build(
    data_dir: str | Path, out_dir: str | Path, *, splits: Sequence[str] = ("train", "val"), seed: int = 0
) -> dict[str, Any]:
    """Write the benchmark; returns the manifest (also written as manifest.json)."""
    raw = load_raw(data_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "dataset": DATASET,
        "delta_s": DELTA_S[DATASET],
        "source": SOURCE,
        "seed": seed,
        "layout": {
            "streams": "<split>/original/<recording>.jsonl and <split>/paraphrased/<recording>.jsonl",
            "ground_truth": "<split>/gt.jsonl",
        },
        "splits": {},
        "recordings": {},
    }
    for split in splits:
        if split not in raw.splits:
            raise DatasetError(f"split {split!r} is not in splits.json (has {', '.join(raw.splits)})")
        ids = [r for r in raw.splits[split] if r in raw.recordings]
        gts: list[dict[str, Any]] = []
        for rid in sorted(ids, key=_natural):
            rec = raw.recordings[rid]
            original, para = streams(rec, raw.recipes[rec.recipe], seed=seed)
            write_jsonl(out / split / "original" / f"{rid}.jsonl", original)
            write_jsonl(out / split / "paraphrased" / f"{rid}.jsonl", para)
            events = ground_truth(rec)
            gts += [gt_to_json(e) for e in events]
            manifest["recordings"][rid] = {
                "split": split,
                "session_id": rec.session_id,
                "recipe": rec.recipe,
                "is_error": rec.is_error,
                "duration_s": round(rec.duration_s, 3),
                "captions": len(original) - 1,
                "gt_events": len(events),
                "revealable": sum(bool(e.extra["revealable"]) for e in events),
            }
        write_jsonl(out / split / "gt.jsonl", gts)
        manifest["splits"][split] = sorted(ids, key=_natural)
    if raw.license_path:
        shutil.copyfile(raw.license_path, out / "LICENSE-CaptainCook4D")
    (out / "manifest.json").write_text(
        json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    return manifest


def _natural(rid: str) -> tuple:
    return tuple(int(x) if x.isdigit() else x for x in re.split(r"(\d+)", rid))
