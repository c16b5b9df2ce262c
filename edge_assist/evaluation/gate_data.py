"""Training data for the intervention gate: every caption of a split, with the features the
gate would see at that moment (the real TaskSession over the caption stream, in order) and
a label from the ground truth (an Error Recovery event whose window is the caption's).

The product's gate only reads the trained file; this module is how the file is made.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from edge_assist.clock import RealClock
from edge_assist.evaluation.harness import Dataset
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.gate_features import NAMES, SessionClock, features, vector
from edge_assist.reasoning.hazard_phrases import HazardMatcher
from edge_assist.reasoning.hazards import HazardDetector
from edge_assist.tasks.library import TaskLibrary, stream_task
from edge_assist.tasks.session import TaskSession


@dataclass
class Rows:
    X: np.ndarray  # (n, features)
    y: np.ndarray  # (n,) 0/1
    caption_vecs: np.ndarray  # (n, d): only for the caption-only baseline
    keys: list[tuple[str, float, float, str]]  # (session_id, t0, t1, recipe) per row
    texts: list[str]
    # Which step of its stream each row's caption belongs to: a clip stream cuts one step
    # into several captions, and the policy says one finding once per step, not per clip.
    steps: list[str] = field(default_factory=list)

    def take(self, mask: np.ndarray) -> Rows:
        idx = np.flatnonzero(mask)
        return Rows(
            self.X[idx],
            self.y[idx],
            self.caption_vecs[idx],
            [self.keys[i] for i in idx],
            [self.texts[i] for i in idx],
            [self.steps[i] for i in idx] if self.steps else [],
        )

    @staticmethod
    def concat(parts: list[Rows]) -> Rows:
        return Rows(
            np.concatenate([p.X for p in parts]),
            np.concatenate([p.y for p in parts]),
            np.concatenate([p.caption_vecs for p in parts]),
            [k for p in parts for k in p.keys],
            [t for p in parts for t in p.texts],
            [s for p in parts for s in p.steps] if all(p.steps for p in parts) else [],
        )


def _label(gt_windows: list[tuple[float, float]], t0: float, t1: float) -> int:
    """1 when an ER event is due in this caption's window (the GT windows are step windows)."""
    for a, b in gt_windows:
        if min(b, t1) - max(a, t0) > 0.5 * min(b - a, t1 - t0) or (abs(a - t0) < 1e-3 and abs(b - t1) < 1e-3):
            return 1
    return 0


def collect(
    ds: Dataset,
    split: str,
    variant: str,
    encoder: TextEncoder,
    *,
    library: TaskLibrary | None = None,
    hazards: HazardDetector | None = None,
) -> Rows:
    lib = library or TaskLibrary.load()
    haz = hazards or HazardDetector.load(encoder)
    phrases = HazardMatcher.load(encoder)
    recs = ds.recordings(split)
    gt, _ = ds.ground_truth(split, recs)
    windows: dict[str, list[tuple[float, float]]] = {}
    for g in gt:
        if g.sub_type.value == "ER":
            windows.setdefault(g.session_id, []).append((g.t0, g.t1))
    X, y, vecs, keys, texts, steps = [], [], [], [], [], []
    session = TaskSession(lib, encoder, RealClock())
    clock = SessionClock()

    async def run() -> None:
        for rid in recs:
            lines = ds.stream(split, variant, rid).read_text(encoding="utf-8").splitlines()
            meta = json.loads(lines[0])["meta"]
            sid = meta["session_id"]
            for c in (json.loads(x) for x in lines[1:] if x.strip()):
                reading = await session.observe(
                    sid,
                    c["text"],
                    task_name=stream_task(meta),
                    task_context=meta.get("task_context", ""),
                )
                if reading is None:
                    continue
                st = reading.state
                timing = clock.update(sid, st, c["t0"], c["t1"])
                vec = session.vectors.get([c["text"]])[0]
                f = features(
                    st,
                    timing,
                    step_hazards=session.step_hazards(st.step_id),
                    hazard_cosine=phrases.cosine(vec),
                    hazard_score=haz.score(c["text"], vec),
                )
                X.append(vector(f))
                y.append(_label(windows.get(sid, []), c["t0"], c["t1"]))
                vecs.append(session.vectors.get([c["text"]])[0])
                keys.append((sid, float(c["t0"]), float(c["t1"]), meta.get("recipe", "")))
                texts.append(c["text"])
                # Clip streams name the step a clip was cut from; a per-step caption is its own step.
                steps.append(str(c.get("step", f"{c['t0']}-{c['t1']}")))

    asyncio.run(run())
    return Rows(np.array(X), np.array(y), np.array(vecs), keys, texts, steps)


def data_hash(ds: Dataset, splits: list[str], variants: list[str]) -> str:
    """sha256 over the streams and ground truth a gate was trained on (recorded in its file)."""
    h = hashlib.sha256()
    for split in splits:
        h.update((ds.root / split / "gt.jsonl").read_bytes())
        for variant in variants:
            for rid in ds.recordings(split):
                h.update(ds.stream(split, variant, rid).read_bytes())
    return h.hexdigest()


def summary(rows: Rows) -> dict[str, Any]:
    return {"rows": int(len(rows.y)), "positives": int(rows.y.sum()), "features": list(NAMES)}
