"""Refit the gate from the wearer's feedback, starting from the shipped gate.

Labels are the wearer's "thanks" (1) and "not now" / "stop" (0) on alerts, with the gate's
features at that moment (`outputs/feedback.py`). Every fourth label (in time order) is held
back; the rest refit the ER model with a penalty that pulls towards the shipped weights
(a handful of presses must not undo what hundreds of labelled recordings taught). The
thresholds stay the shipped ones. Before/after is the log-loss and accuracy on the
held-back labels.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.gate_training import fit_logistic
from edge_assist.outputs.feedback import read_feedback
from edge_assist.reasoning.gate import Gate

MIN_LABELS = 8
PRIOR_L2 = 5.0


def _scores(gate: Gate, feats: list[dict[str, float]], y: np.ndarray) -> dict[str, float]:
    p = np.array([gate.probability("ER", f) or 0.0 for f in feats])
    eps = 1e-6
    loss = float(-np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)))
    thr = gate.threshold("ER", "normal")
    acc = float(np.mean((p >= thr) == (y == 1)))
    return {"log_loss": round(loss, 4), "accuracy": round(acc, 4)}


def refit_from_feedback(gate: Gate, feedback: str | Path, out: str | Path) -> dict[str, Any]:
    recs = list(read_feedback(feedback))
    model = gate.services.get("ER")
    if model is None:
        raise EdgeAssistError("the gate has no ER model to refit; train one with `edge-assist gate train`")
    usable = [r for r in recs if all(n in r["features"] for n in model.features)]
    if len(usable) < MIN_LABELS:
        raise EdgeAssistError(
            f"{feedback}: {len(usable)} usable feedback labels; at least {MIN_LABELS} are needed "
            "(press thanks / not now on the glasses after alerts)"
        )
    held = usable[3::4]
    fit = [r for i, r in enumerate(usable) if i % 4 != 3]
    X = np.array([[r["features"][n] for n in model.features] for r in fit], dtype=np.float64)
    y = np.array([r["label"] for r in fit], dtype=np.float64)
    hx = [r["features"] for r in held]
    hy = np.array([r["label"] for r in held], dtype=np.float64)
    before = _scores(gate, hx, hy)
    refit = fit_logistic(X, y, model.features, l2=PRIOR_L2, pairs=model.pairs, prior=model)
    refit.thresholds = dict(model.thresholds)
    new = copy.deepcopy(gate)
    new.services["ER"] = refit
    new.training = {
        **gate.training,
        "refit_from_feedback": {
            "file": str(feedback),
            "labels": len(fit),
            "held_back": len(held),
            "prior_l2": PRIOR_L2,
        },
    }
    after = _scores(new, hx, hy)
    new.training["refit_from_feedback"].update({"before": before, "after": after})
    new.save(out)
    if not all(math.isfinite(v) for v in after.values()):
        raise EdgeAssistError("the refit gate gives non-finite scores; keep the shipped one")
    return {"labels": len(fit), "held_back": len(held), "before": before, "after": after, "out": str(out)}
