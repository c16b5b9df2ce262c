"""Which gate ships: the one that generalises best, not the best on one set of streams.

Candidates are fitted on every train variant (the same steps told as per-step captions,
paraphrased, cut into 10-s clips, in a captioner's words, under a plain list). For each
chattiness, a candidate's threshold is the highest of the thresholds each val variant
would choose under its false-alarm budget, so the budget holds on every kind of stream at
once. The candidate with the best worst-case ER F1 over the val variants (quiet and chatty
averaged) ships; every candidate's rows are reported. The two candidates differ in the
session-history features: CaptainCook4D's scripted error recordings make "an error
earlier" predict "an error now", which a wearer's day does not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_assist.evaluation.gate_data import Rows
from edge_assist.evaluation.gate_training import BUDGETS, Point, choose, curve, evaluate
from edge_assist.reasoning.gate import ServiceModel

# What the worst-case score averages: the quietest and the chattiest setting.
SCORED = ("quiet", "chatty")


@dataclass
class Candidate:
    name: str
    model: ServiceModel
    thresholds: dict[str, float]
    rows: dict[str, dict[str, dict[str, Any]]]  # val variant -> chattiness -> point
    score: float  # worst-case over val variants of the mean F1 over SCORED

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.model.features),
            "thresholds": {k: round(v, 6) for k, v in self.thresholds.items()},
            "rows": self.rows,
            "worst_case_f1": round(self.score, 1),
        }


def thresholds_over(
    probs: dict[str, np.ndarray], rows: dict[str, Rows], split: Any
) -> tuple[dict[str, float], list[Point]]:
    """Per chattiness, the strictest of the per-variant thresholds; and the first variant's curve."""
    out: dict[str, float] = {}
    first: list[Point] = []
    for i, v in enumerate(probs):
        pts = curve(probs[v], rows[v], split.gt, split.durations, split.delta_s)
        if i == 0:
            first = pts
        for c, b in BUDGETS.items():
            out[c] = max(out.get(c, 0.0), choose(pts, b).threshold)
    return out, first


def candidate(
    name: str,
    model: ServiceModel,
    probs_of: Callable[[ServiceModel, Rows], np.ndarray],
    val: dict[str, Rows],
    choose_on: Sequence[str],
    split: Any,
) -> Candidate:
    probs = {v: probs_of(model, val[v]) for v in val}
    thr, _ = thresholds_over({v: probs[v] for v in choose_on}, {v: val[v] for v in choose_on}, split)
    rows = {
        v: {
            c: evaluate(probs[v], val[v], t, split.gt, split.durations, split.delta_s).to_json()
            for c, t in thr.items()
        }
        for v in val
    }
    score = min(float(np.mean([rows[v][c]["f1"] for c in SCORED])) for v in choose_on)
    return Candidate(name, model, thr, rows, score)


def best(candidates: Sequence[Candidate]) -> Candidate:
    """The best worst case; on a tie, the one listed first (fewer assumptions come first)."""
    return max(candidates, key=lambda c: (c.score, -candidates.index(c)))
