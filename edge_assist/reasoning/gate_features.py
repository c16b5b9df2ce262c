"""What the intervention gate sees of one step: the tracker's findings and how sure it is,
the step's hazards, and time. Never the caption on its own (its words, length or
embedding): annotators write error captions in another style than the recipe, a VLM on
glasses writes every caption in one style, and a gate that learns style fails there. Every
feature relates the caption to the task (similarities, findings), to the session's time,
or to hazards.

Features come in named groups so the evaluation can remove one group at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from edge_assist.tasks.findings import DEVIATION, ORDER, PREREQUISITE, REPEATED, UNMATCHED, TrackerState

GROUPS: dict[str, tuple[str, ...]] = {
    # Where the caption sits in the procedure's graph.
    "graph order": (
        "prerequisite_missing",
        "missing_count",
        "order_violation",
        "repeated_step",
        "still_missing",
        "progress",
    ),
    # What differs from the step the caption is.
    "deviation": ("deviation_value", "deviation_tool_object", "deviation_count"),
    # How well the caption fits the task at all.
    "alignment": ("unmatched_action", "step_cosine", "step_margin", "step_confidence", "task_confidence"),
    "timing": ("log_step_s", "log_since_finding_s", "log_session_s", "first_step"),
    # The step's hazard kinds; the phrase list's cosine margin (what the shipped gate file was
    # trained on) and the hazard detector's probability (what a gate trained from now on sees).
    "hazard": ("step_hot", "step_sharp", "step_electric", "hazard_cosine", "hazard_score"),
}
NAMES: tuple[str, ...] = tuple(n for g in GROUPS.values() for n in g)


@dataclass(frozen=True)
class StepTiming:
    """Seconds of stream time, kept per session by the assistant (or the trainer)."""

    step_s: float  # since the step in progress began
    since_finding_s: float  # since the tracker last found anything at this step (inf: never)
    session_s: float  # since the session's first caption
    first: bool  # the first caption of the session


def features(
    state: TrackerState,
    timing: StepTiming,
    *,
    step_hazards: tuple[str, ...] = (),
    hazard_cosine: float = 0.0,
    hazard_score: float = 0.0,
) -> dict[str, float]:
    kinds = {f.kind for f in state.findings}
    pre = [f for f in state.findings if f.kind == PREREQUISITE]
    devs = [d for f in state.findings if f.kind == DEVIATION for d in f.differences]
    return {
        "prerequisite_missing": float(bool(pre)),
        "missing_count": math.log1p(sum(len(f.missing) for f in pre)),
        "order_violation": float(ORDER in kinds),
        "repeated_step": float(REPEATED in kinds),
        "still_missing": math.log1p(len(state.missing)),
        "progress": state.k / max(state.n_steps, 1),
        "deviation_value": float(any(d.kind not in ("tool", "object", "ingredient") for d in devs)),
        "deviation_tool_object": float(any(d.kind in ("tool", "object", "ingredient") for d in devs)),
        "deviation_count": math.log1p(len(devs)),
        "unmatched_action": float(UNMATCHED in kinds),
        "step_cosine": state.similarity,
        "step_margin": state.margin,
        "step_confidence": state.confidence,
        "task_confidence": state.task_confidence,
        "log_step_s": math.log1p(max(timing.step_s, 0.0)),
        "log_since_finding_s": math.log1p(min(max(timing.since_finding_s, 0.0), 3600.0)),
        "log_session_s": math.log1p(max(timing.session_s, 0.0)),
        "first_step": float(timing.first),
        "step_hot": float("hot" in step_hazards or "fire" in step_hazards),
        "step_sharp": float("sharp" in step_hazards),
        "step_electric": float("electric" in step_hazards),
        "hazard_cosine": hazard_cosine,
        "hazard_score": hazard_score,
    }


# Features that are not 0 only when the tracker has something an error alert can name: a
# finding, or a step found missing and still not done. The decider and the gate's training
# read the same rule from here.
NAMEABLE = (
    "prerequisite_missing",
    "order_violation",
    "repeated_step",
    "deviation_count",
    "unmatched_action",
    "still_missing",
)


def nameable(X: np.ndarray, names: tuple[str, ...] = NAMES) -> np.ndarray:
    """Per feature row (columns in `names` order): is there something to name?"""
    return np.any(X[:, [names.index(n) for n in NAMEABLE]] > 0, axis=1)


def can_name(feats: dict[str, float]) -> bool:
    """The same for one caption's features."""
    return any(feats[n] > 0 for n in NAMEABLE)


def vector(feats: dict[str, float], names: tuple[str, ...] = NAMES) -> np.ndarray:
    return np.array([feats[n] for n in names], dtype=np.float64)


class SessionClock:
    """The timing features of one session, fed with each tracker reading in order."""

    def __init__(self) -> None:
        self.session = ""
        self._start = 0.0
        self._step = ""
        self._step_t0 = 0.0
        self._finding_t = -math.inf
        self._n = 0

    def update(self, session_id: str, state: TrackerState | None, t0: float, t1: float) -> StepTiming:
        if session_id != self.session:
            self.session, self._start, self._step, self._finding_t, self._n = session_id, t0, "", -math.inf, 0
        step = state.step_id if state is not None else ""
        if step != self._step or not step:
            # A finding is about the step it was raised at: once the wearer is at another step it
            # says nothing of this one (else one doubtful finding makes every later clip look
            # wrong).
            self._step, self._step_t0, self._finding_t = step, t0, -math.inf
        since = t1 - self._finding_t
        timing = StepTiming(
            step_s=t1 - self._step_t0, since_finding_s=since, session_s=t1 - self._start, first=self._n == 0
        )
        if state is not None and state.findings:
            self._finding_t = t1
        self._n += 1
        return timing
