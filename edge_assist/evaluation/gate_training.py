"""Fit the intervention gate on train labels and choose its thresholds on val.

The model is an L2-regularised logistic regression fitted by Newton's method in numpy
(no training dependency: with a few dozen features it converges in ~10 iterations). Its
thresholds are the operating points of the wearer's chattiness, each the best ER F1 on
the val split under a false-alarm budget per hour of error-free recordings, measured by
the same EgoServe scorer as every report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_assist.evaluation.annotations import GTEvent, Prediction
from edge_assist.evaluation.gate_data import Rows
from edge_assist.evaluation.measures import false_alarms_per_hour
from edge_assist.evaluation.scorer import score
from edge_assist.events import SubType
from edge_assist.reasoning.gate import ServiceModel

# False alarms per hour of error-free recordings each chattiness may cost (val).
BUDGETS = {"quiet": 1.0, "normal": 2.5, "chatty": 5.0}
L2 = 1.0


def fit_logistic(
    X: np.ndarray,
    y: np.ndarray,
    names: Sequence[str],
    *,
    l2: float = L2,
    pairs: Sequence[tuple[str, str]] = (),
    prior: ServiceModel | None = None,
    sample_weight: np.ndarray | None = None,
) -> ServiceModel:
    """Newton's method on the penalised log-likelihood; `prior` pulls towards a shipped model
    (refitting from feedback keeps what the shipped gate learned from people)."""
    idx = {n: i for i, n in enumerate(names)}
    cols = [X[:, idx[a]] * X[:, idx[b]] for a, b in pairs]
    D = np.column_stack([X, *cols]) if cols else X
    if prior is not None:
        mean, scale = prior.mean, prior.scale
    else:
        mean = D.mean(axis=0)
        scale = D.std(axis=0)
        scale[scale < 1e-6] = 1.0  # no spread, no information (and a rounded 0 would not load)
    Z = (D - mean) / scale
    n, k = Z.shape
    A = np.column_stack([Z, np.ones(n)])
    w0 = np.append(prior.weights, prior.bias) if prior is not None else np.zeros(k + 1)
    w = w0.copy()
    sw = np.ones(n) if sample_weight is None else sample_weight
    reg = np.full(k + 1, l2)
    reg[-1] = 0.0 if prior is None else l2  # the bias is free unless anchored to a prior

    def loss(v: np.ndarray) -> float:
        z = np.clip(A @ v, -40, 40)
        nll = np.sum(sw * (np.logaddexp(0.0, z) - y * z))
        return float(nll + 0.5 * np.sum(reg * (v - w0) ** 2))

    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(A @ w, -40, 40)))
        g = A.T @ (sw * (p - y)) + reg * (w - w0)
        H = (A * (sw * p * (1 - p))[:, None]).T @ A + np.diag(reg + 1e-9)
        step = np.linalg.solve(H, g)
        # Damped: from a saturated start (a prior far from a wearer's labels) a full Newton
        # step can overshoot; halve it until the penalised loss goes down.
        before, t = loss(w), 1.0
        while t > 1e-4 and loss(w - t * step) > before:
            t /= 2
        w -= t * step
        if np.max(np.abs(t * step)) < 1e-8:
            break
    return ServiceModel(list(names), [tuple(p) for p in pairs], mean, scale, w[:-1], float(w[-1]))  # type: ignore[misc]


def design(X: np.ndarray, names: Sequence[str], pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    idx = {n: i for i, n in enumerate(names)}
    cols = [X[:, idx[a]] * X[:, idx[b]] for a, b in pairs]
    return np.column_stack([X, *cols]) if cols else X


@dataclass(frozen=True)
class Point:
    threshold: float
    predictions: int
    precision: float
    recall: float
    f1: float
    false_alarms_per_hour: float

    def to_json(self) -> dict[str, Any]:
        return {
            "threshold": round(self.threshold, 6),
            "predictions": self.predictions,
            "precision": round(100 * self.precision, 1),
            "recall": round(100 * self.recall, 1),
            "f1": round(100 * self.f1, 1),
            "false_alarms_per_hour": round(self.false_alarms_per_hour, 2),
        }


def _spoken(p: np.ndarray, rows: Rows, thr: float) -> list[int]:
    """Rows over the threshold, the first of each step only: the policy holds back the same
    advice on the step's later 10-s clips (a repeat), so a clip stream is scored as the
    assistant would speak it, not once per clip. A per-step caption is a step of its own."""
    out: list[int] = []
    said: set[tuple[str, str]] = set()
    for i, x in enumerate(p):
        if x < thr:
            continue
        step = (rows.keys[i][0], rows.steps[i]) if rows.steps else (rows.keys[i][0], str(i))
        if step not in said:
            said.add(step)
            out.append(i)
    return out


def evaluate(
    p: np.ndarray, rows: Rows, thr: float, gt: list[GTEvent], durations: dict[str, float], delta_s: float
) -> Point:
    preds = [
        Prediction(rows.keys[i][0], rows.keys[i][1], rows.keys[i][2], SubType.ERROR_RECOVERY, "")
        for i in _spoken(p, rows, thr)
    ]
    sc, _ = score(gt, preds, delta_s)
    er = sc.to_json()["per_sub_type"].get("ER", {})
    fa = false_alarms_per_hour(preds, gt, durations)
    return Point(
        thr,
        len(preds),
        er.get("precision", 0.0),
        er.get("recall", 0.0),
        er.get("f1", 0.0),
        fa["per_hour"] or 0.0,
    )


def curve(
    p: np.ndarray, rows: Rows, gt: list[GTEvent], durations: dict[str, float], delta_s: float, n: int = 60
) -> list[Point]:
    qs = np.unique(np.quantile(p, np.linspace(0.5, 0.999, n)))
    return [evaluate(p, rows, float(t), gt, durations, delta_s) for t in qs]


def choose(points: list[Point], budget: float) -> Point:
    ok = [pt for pt in points if pt.false_alarms_per_hour <= budget + 1e-9]
    if not ok:
        return max(points, key=lambda pt: pt.threshold)
    return max(ok, key=lambda pt: (pt.f1, -pt.threshold))
