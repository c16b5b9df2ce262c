"""What a row said without ground truth: alerts per hour by sub-type and finding, tasks named."""

from __future__ import annotations

from typing import Any

import pytest

from edge_assist.evaluation.alerts import alert_profile, finding_kind, held_behind_weak, table
from edge_assist.events import Decision, SubType


def _decision(
    t: float,
    *,
    speak: bool = False,
    sub_type: SubType | None = None,
    trace: dict[str, Any] | None = None,
    suppressed_by: str = "",
    session: str = "s1",
) -> Decision:
    text = "x" if speak else ""
    return Decision(
        t,
        session,
        int(t // 10),
        t - 10,
        t,
        speak,
        sub_type,
        text,
        suppressed_by=suppressed_by,
        trace=trace or {},
    )


def _task(name: str, *kinds: str) -> dict[str, Any]:
    return {"task": name, "task_source": "recognised", "findings": [{"kind": k} for k in kinds]}


def test_the_finding_behind_an_alert_is_read_from_its_trace() -> None:
    er = SubType.ERROR_RECOVERY
    hazard = _decision(10, speak=True, sub_type=SubType.SAFETY, trace={"gate": {"hazard": {"kind": "fire"}}})
    skip = _decision(
        20, speak=True, sub_type=er, trace={"task": _task("tea", "order_violation", "deviation")}
    )
    bare = _decision(30, speak=True, sub_type=er, trace={"task": _task("tea")})
    assert finding_kind(hazard) == "hazard"
    assert finding_kind(skip) == "deviation"  # the one the gate would phrase: most specific first
    assert finding_kind(bare) == "no finding"
    assert finding_kind(_decision(40, speak=True, sub_type=er)) == "unknown (no trace)"


def test_alerts_per_hour_and_the_tasks_named() -> None:
    er = SubType.ERROR_RECOVERY
    decisions = {
        "a": [
            _decision(10, trace={}),
            _decision(20, trace={"task": _task("tea")}),
            _decision(30, speak=True, sub_type=er, trace={"task": _task("tea", "repeated_step")}),
        ],
        "b": [
            _decision(10, speak=True, sub_type=SubType.SAFETY, trace={"gate": {"hazard": {}}}, session="s2"),
            _decision(20, trace={"task": _task("pinwheels")}, session="s2"),
        ],
    }
    p = alert_profile(decisions, hours=2.0)
    assert p["spoken"] == 2 and p["per_hour"] == 1.0
    assert p["by_sub_type"] == {"ER": {"spoken": 1, "per_hour": 0.5}, "SA": {"spoken": 1, "per_hour": 0.5}}
    assert set(p["by_finding"]) == {"hazard", "repeated_step"}
    rec = p["recognition"]
    assert rec["captions"] == 5 and rec["captions_with_task"] == 3 and rec["recordings_with_task"] == 2
    assert rec["by_task"] == {
        "tea": {"captions": 2, "recordings": 1},
        "pinwheels": {"captions": 1, "recordings": 1},
    }
    md = table([{"name": "quiet", "alerts": p}])
    assert "| quiet | 2.00 | 1.00 | 0.50 | 0.50 |" in md and "tea (2)" in md


def test_strong_held_behind_weak_is_derived_from_the_gate_when_the_policy_does_not_say() -> None:
    er = SubType.ERROR_RECOVERY
    decisions = [
        _decision(10, speak=True, sub_type=er, trace={"gate": {"ER": 0.39}}),
        _decision(20, sub_type=er, trace={"gate": {"ER": 0.95}}, suppressed_by="cooldown:ER (10.0 s ...)"),
        _decision(30, sub_type=er, trace={"gate": {"ER": 0.2}}, suppressed_by="cooldown:ER (20.0 s ...)"),
        _decision(40, sub_type=er, trace={"gate": {"ER": 0.9}}, suppressed_by="cooldown:ER", session="s2"),
    ]
    held = held_behind_weak(decisions)
    assert held["derived_from_gate"] == 1  # only the 0.95 behind the 0.39, in the same session
    if not held["policy_reports"]:
        assert held["count"] == 0
    assert alert_profile({}, 0.0)["per_hour"] is None


@pytest.mark.parametrize("hours", [0.5, 4.0])
def test_no_alert_is_zero_per_hour(hours: float) -> None:
    p = alert_profile({"a": [_decision(10, trace={})]}, hours)
    assert p["spoken"] == 0 and p["per_hour"] == 0.0 and p["by_finding"] == {}
