"""The gate's timing features: a finding is about the step it was raised at."""

from __future__ import annotations

import math

from edge_assist.reasoning.gate_features import SessionClock
from edge_assist.tasks import findings as F


def _state(step: str, found: bool = False) -> F.TrackerState:
    finding = F.Finding(F.DEVIATION, step, f"step {step}", 0.9, "the step says water; seen: salt")
    return F.TrackerState(
        task="t",
        task_title="T",
        step_id=step,
        step_text=f"step {step}",
        confidence=0.9,
        similarity=0.7,
        margin=0.1,
        done=(step,),
        available=(),
        n_steps=3,
        findings=(finding,) if found else (),
    )


def test_a_finding_counts_at_its_step_and_not_at_the_next() -> None:
    clock = SessionClock()
    first = clock.update("s", _state("1", found=True), 0.0, 10.0)
    assert first.first and math.isinf(first.since_finding_s)
    same = clock.update("s", _state("1"), 10.0, 20.0)
    assert same.since_finding_s == 10.0 and same.step_s == 20.0
    # The wearer is at another step: the doubt about step 1 says nothing of it.
    other = clock.update("s", _state("2"), 20.0, 30.0)
    assert math.isinf(other.since_finding_s) and other.step_s == 10.0
    assert other.session_s == 30.0


def test_a_new_session_starts_clean() -> None:
    clock = SessionClock()
    clock.update("a", _state("1", found=True), 0.0, 10.0)
    fresh = clock.update("b", _state("1"), 100.0, 110.0)
    assert fresh.first and math.isinf(fresh.since_finding_s) and fresh.session_s == 10.0
