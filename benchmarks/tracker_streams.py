"""The recordings `eval_tracker` runs the tracker on, in the forms a wearer's device gives them.

- Form "steps": one caption per performed step (the benchmark's streams as built).
- Form "clips": as glasses caption, every 10 s: each step's window cut into 10-s clips (the
  last one shorter; at least one per step), each carrying the step's caption. A step that
  spans six clips is six similar captions in a row, which the tracker must read as one step.

And how the task is known, each as a wearer would meet it:

- "named": the stream names the library task (its graph's order, `after`);
- "list": the recipe given as a plain list (graph thrown away, steps in the recipe's listed
  order), as a wearer's own list task is;
- "recognised": nothing names the task; recognition over the whole library picks it up.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_assist.clock import RealClock
from edge_assist.evaluation.harness import Dataset
from edge_assist.tasks.library import LIST_TASK, TaskLibrary
from edge_assist.tasks.model import Task
from edge_assist.tasks.session import TaskSession
from edge_assist.tasks.tracker import StepTracker, TrackerParams
from edge_assist.tasks.vector_cache import VectorCache

FORMS = ("steps", "clips")
MODES = ("named", "list", "recognised")
CLIP_S = 10.0
LIST_ORDER_COS = 0.55


@dataclass(frozen=True)
class Stream:
    rid: str
    session_id: str
    recipe: str
    task_context: str
    captions: list[dict[str, Any]]  # t0, t1, text
    labels: list[str]  # per caption, the annotated step's text


def clips(caps: list[dict[str, Any]], labels: list[str]) -> tuple[list[dict[str, Any]], list[str]]:
    out, lab = [], []
    for c, label in zip(caps, labels, strict=True):
        t0, t1 = float(c["t0"]), float(c["t1"])
        n = max(1, math.ceil((t1 - t0) / CLIP_S - 1e-9))
        for k in range(n):
            out.append({"t0": t0 + k * CLIP_S, "t1": min(t0 + (k + 1) * CLIP_S, t1), "text": c["text"]})
            lab.append(label)
    return out, lab


def streams(ds: Dataset, raw: Any, split: str, variant: str, form: str, limit: int = 0) -> Iterator[Stream]:
    for rid in ds.recordings(split, limit):
        caps = ds.captions(split, variant, rid)
        meta = json.loads(ds.stream(split, variant, rid).read_text(encoding="utf-8").splitlines()[0])["meta"]
        labels = [s.description for s in raw.recordings[rid].performed]
        assert len(labels) == len(caps), (rid, len(labels), len(caps))
        if form == "clips":
            caps, labels = clips(caps, labels)
        yield Stream(rid, meta["session_id"], meta["recipe"], meta["task_context"], caps, labels)


class Reader:
    """Reads one stream caption by caption, the task known as `mode` says."""

    def __init__(
        self, lib: TaskLibrary, vc: VectorCache, encoder: Any, params: TrackerParams, mode: str, s: Stream
    ) -> None:
        self.mode = mode
        self.stream = s
        self.tracker: StepTracker | None = None
        self.session: TaskSession | None = None
        if mode == "recognised":
            self.session = TaskSession(lib, encoder, RealClock(), params)
            self.session.vectors = vc
            return
        task = lib.resolve(s.task_context, name=s.recipe if mode == "named" else LIST_TASK)
        assert task is not None and (mode != "named" or task.name == s.recipe), s.rid
        self.tracker = StepTracker(task, vc.get, params=params, vectors=vc)

    @property
    def task(self) -> Task | None:
        if self.session is not None:
            return self.session.current_task
        return self.tracker.task if self.tracker is not None else None

    def observe(self, text: str, vec: Any) -> Any:
        """The tracker's state at this caption (None while no task is under way)."""
        if self.tracker is not None:
            return self.tracker.observe(text, vec)
        assert self.session is not None
        reading = asyncio.run(self.session.observe(self.stream.session_id, text))
        return reading.state if reading is not None else None


def recognition_summary(rec: dict[str, Any], captions: int, recordings: int) -> dict[str, Any]:
    """How soon and how surely recognition names the recording's recipe, and how often nothing."""
    first = [f for f in rec["first_right"] if f >= 0]
    return {
        "named_at_all": round(len(first) / recordings, 4),
        "named_by_caption_3": round(sum(f < 3 for f in first) / recordings, 4),
        "named_by_caption_6": round(sum(f < 6 for f in first) / recordings, 4),
        "right_at_end": round(rec["right_at_end"] / recordings, 4),
        "median_first_caption": float(np.median(first)) + 1 if first else None,
        "no_task_share": round(rec["no_task"] / captions, 4),
        "wrong_task_share": round(rec["wrong_task"] / captions, 4),
    }


def list_order_fires(step_vecs: np.ndarray, cap_vecs: np.ndarray) -> list[tuple[bool, bool]]:
    """The replaced signal: nearest listed step; (a listed step before it newly found not done,
    any listed step before it not done). The issue's baseline is the second ("any")."""
    done: list[int] = []
    flagged: set[int] = set()
    out = []
    for v in cap_vecs:
        row = step_vecs @ v
        j = int(np.argmax(row))
        ok = row[j] >= LIST_ORDER_COS
        skipped = [i for i in range(j) if i not in done] if ok else []
        new = [i for i in skipped if i not in flagged]
        flagged.update(new)
        out.append((bool(new), bool(skipped)))
        if ok and j not in done:
            done.append(j)
    return out
