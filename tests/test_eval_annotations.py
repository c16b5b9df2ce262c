"""Readers for EgoServe annotations, our GT JSONL and the decision log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.annotations import parse_window, read_ground_truth, read_predictions
from edge_assist.evaluation.scorer import score
from edge_assist.events import Decision, SubType


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("DAY1 00:01:05\u201300:01:20", (65.0, 80.0)),
        ("DAY2 10:00:00-10:00:30", (86400 + 36000.0, 86400 + 36030.0)),
        ("DAY1 23:59:50\u2013DAY2 00:00:10", (86390.0, 86410.0)),
        ("12.5-20", (12.5, 20.0)),
        ([3, 4.5], (3.0, 4.5)),
    ],
)
def test_parse_window(value: object, expected: tuple[float, float]) -> None:
    assert parse_window(value) == pytest.approx(expected)


@pytest.mark.parametrize("bad", ["DAY1 10:61:00-10:62:00", "yesterday", "DAY1 10:00:30-10:00:10", [1]])
def test_parse_window_rejects(bad: object) -> None:
    with pytest.raises(ValueError):
        parse_window(bad)


def test_egoserve_file_reports_bad_records_by_position_and_scores_the_rest(tmp_path: Path) -> None:
    records = [
        {
            "sub_type": "Error Recovery",
            "current_time_window": "DAY1 00:01:40\u201300:01:50",
            "proactive_dialogue": [{"role": "assistant", "content": "You used salt, not sugar."}],
        },
        {"sub_type": "ER", "current_time_window": "DAY1 00:0X:00-00:03:10", "proactive_dialogue": "x"},
        {"sub_type": "Dance Coaching", "current_time_window": "DAY1 00:04:00-00:04:10"},
        {
            "sub_type": "NSG",
            "current_time_window": "DAY1 00:05:00-00:05:10",
            "proactive_dialogue": "Now stir.",
        },
    ]
    path = tmp_path / "ann.json"
    path.write_text(json.dumps({"video_7": records}, ensure_ascii=False), encoding="utf-8")
    loaded = read_ground_truth(path)
    assert [(p.position, "time window" in p.message) for p in loaded.problems] == [(2, True), (3, False)]
    assert "unknown sub-type" in loaded.problems[1].message
    assert "record 2" in str(loaded.problems[0])
    assert [(g.sub_type, g.t0, g.session_id) for g in loaded.gt] == [
        (SubType.ERROR_RECOVERY, 100.0, "video_7"),
        (SubType.NEXT_STEP_GUIDANCE, 300.0, "video_7"),
    ]
    assert loaded.gt[0].description == "You used salt, not sugar."
    s, _ = score(loaded.gt, [], 25.0)
    assert s.per_sub_type[SubType.ERROR_RECOVERY].gt == 1


def test_decision_log_speak_lines_are_predictions(tmp_path: Path) -> None:
    speak = Decision(1.0, "rec", 3, 40.0, 50.0, True, SubType.ERROR_RECOVERY, "Use the knife.")
    silent = Decision(2.0, "rec", 4, 50.0, 60.0, False)
    path = tmp_path / "decisions.jsonl"
    lines = [json.dumps(d.to_json()) for d in (speak, silent)] + ["{broken"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    loaded = read_predictions(path)
    assert len(loaded.predictions) == 1
    p = loaded.predictions[0]
    assert (p.session_id, p.centre, p.sub_type, p.text) == (
        "rec",
        45.0,
        SubType.ERROR_RECOVERY,
        "Use the knife.",
    )
    assert [pr.position for pr in loaded.problems] == [3]


def test_gt_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "gt.jsonl"
    path.write_text(
        json.dumps({"session_id": "a", "t0": 1, "t1": 2, "sub_type": "ER", "description": "d", "tags": ["x"]})
        + "\n"
        + json.dumps({"session_id": "a", "t0": 5, "sub_type": "ER"})
        + "\n",
        encoding="utf-8",
    )
    loaded = read_ground_truth(path)
    assert loaded.gt[0].extra["tags"] == ["x"]
    assert loaded.problems[0].position == 2


def test_unreadable_file_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(EdgeAssistError, match="cannot read"):
        read_ground_truth(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(EdgeAssistError, match="not valid JSON"):
        read_ground_truth(bad)
