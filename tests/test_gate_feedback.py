"""The wearer's thanks / not-now as labels, and the gate refit from them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.events import Decision, SubType
from edge_assist.outputs.feedback import FILE, FeedbackLog, read_feedback
from edge_assist.reasoning.gate import Gate
from edge_assist.reasoning.gate_features import NAMES


def _alert(t: float, feats: dict[str, float], p: float) -> Decision:
    return Decision(
        t=t,
        session_id="s",
        clip_index=int(t),
        stream_t0=t - 10,
        stream_t1=t,
        speak=True,
        sub_type=SubType.ERROR_RECOVERY,
        text=f"alert at {t}",
        trace={"gate": {"ER": p, "threshold": 0.5, "features": feats}},
    )


def _feats(missing: float, dev: float) -> dict[str, float]:
    f = dict.fromkeys(NAMES, 0.0)
    f.update(
        {
            "prerequisite_missing": missing,
            "deviation_value": dev,
            "deviation_count": math.log1p(dev),  # one deviation found, as the tracker counts it
            "step_cosine": 0.8,
            "step_confidence": 1.0,
            "task_confidence": 1.0,
            "log_since_finding_s": 8.19,
            "log_session_s": 5.0,
            "log_step_s": 3.0,
        }
    )
    return f


async def test_a_press_labels_the_last_alert_once_and_only_when_recent(tmp_path: Path) -> None:
    fb = FeedbackLog(tmp_path / FILE)
    assert not fb.label("thanks", 5.0)  # nothing said yet
    await fb.emit(_alert(100.0, _feats(1, 0), 0.8))
    await fb.emit(Decision(t=105.0, session_id="s", clip_index=105, stream_t0=95, stream_t1=105, speak=False))
    assert fb.label("thanks", 110.0)
    assert not fb.label("not_now", 111.0)  # one label per alert
    await fb.emit(_alert(200.0, _feats(0, 1), 0.6))
    assert not fb.label("not_now", 200.0 + 61)  # too late to be about that alert
    assert not fb.label("banana", 201.0)
    recs = list(read_feedback(tmp_path / FILE))
    assert [(r["label"], r["decision"]["clip_index"]) for r in recs] == [(1, 100)]
    assert recs[0]["features"]["prerequisite_missing"] == 1


async def test_gate_train_from_feedback_refits_from_the_shipped_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fb = FeedbackLog(tmp_path / FILE)
    # This wearer welcomes missing-step alerts and dismisses amount deviations.
    for i in range(24):
        t = 100.0 * (i + 1)
        missing = i % 2 == 0
        await fb.emit(_alert(t, _feats(1.0 if missing else 0.0, 0.0 if missing else 1.0), 0.6))
        assert fb.label("thanks" if missing else "not_now", t + 5)
    with (tmp_path / FILE).open("a", encoding="utf-8") as f:
        f.write('{"type": "feedback", "label": 1, "feat')  # a torn last line is skipped
    s = ["--set", f"general.data_dir={tmp_path}"]
    assert main(["gate", *s, "train", "--from-feedback"]) == 0
    out = capsys.readouterr().out
    assert "refit on 18 labels; on 6 held back" in out
    g = Gate.load(tmp_path / "gate.json")
    rec = g.training["refit_from_feedback"]
    assert rec["after"]["log_loss"] < rec["before"]["log_loss"]
    shipped = Gate.load()
    assert g.threshold("ER", "quiet") == shipped.threshold("ER", "quiet")
    assert g.probability("ER", _feats(0, 1)) < shipped.probability("ER", _feats(0, 1))  # type: ignore[operator]
    assert json.loads((tmp_path / "gate.json").read_text())["format"] == "edge-assist-gate/1"


def test_too_few_labels_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gate", "--set", f"general.data_dir={tmp_path}", "train", "--from-feedback"]) == 2
    assert "at least 8 are needed" in capsys.readouterr().err
