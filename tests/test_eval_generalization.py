"""The generalisation report: checks that cannot run say so, the hazard hook, one small run."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from benchmarks import eval_generalization as G
from edge_assist.evaluation.goalstep import build

GOALSTEP = Path(__file__).parent / "data" / "ego4d-goalstep"


def test_a_variant_or_dataset_that_is_not_there_is_not_built(tmp_path: Path) -> None:
    args = G.parse_args(["--goalstep-data", str(tmp_path / "none"), "--limit", "1"])
    ds, why = G.open_check(G.Check("x", "x", "captaincook", "no-such-variant"), args, tmp_path)
    assert ds is None and why.startswith("not built: variant 'no-such-variant'")
    goalstep = next(c for c in G.CHECKS if c.key == "goalstep")
    ds, why = G.open_check(goalstep, args, tmp_path)
    assert ds is None and why.startswith("not built: no Goal-Step annotations")
    result = {
        "split": "val",
        "limit": 1,
        "checks": {"goalstep": {"title": goalstep.title, "status": why}},
        "hazards": {"status": "not built: no hazard detector in this checkout"},
    }
    md = G.render(result)
    assert "| goalstep | – | not built: no Goal-Step annotations" in md and "Hazards: not built" in md


def test_the_hazard_hook_scores_recall_and_near_miss_alerts(tmp_path: Path) -> None:
    lines = [
        {"text": "hand under the blade", "label": "hazard", "style": "terse"},
        {"text": "The person leaves the pan on high.", "label": "hazard", "style": "captioner"},
        {"text": "blade guarded, hand clear", "label": "near_miss", "style": "terse"},
        {"text": "The person stirs the soup.", "label": "ordinary", "style": "captioner"},
    ]
    (tmp_path / "val.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")

    def says_blade(texts: Sequence[str]) -> list[bool]:
        return ["blade" in t for t in texts]

    h = G.hazard_check(says_blade, "blade words", "val", tmp_path)
    assert h["hazard"] == {"n": 2, "alerted": 1, "rate": 0.5}
    assert h["near_miss"]["rate"] == 1.0 and h["ordinary"]["rate"] == 0.0
    assert h["recall_by_style"] == {"captioner": 0.0, "terse": 1.0}
    assert G.hazard_check(says_blade, "x", "test", tmp_path)["status"].startswith("not built")
    assert G.hazard_check(None)["status"].startswith("not built")


@pytest.mark.slow
def test_one_goalstep_video_end_to_end(tmp_path: Path) -> None:
    built = tmp_path / "goalstep"
    build(GOALSTEP, built)
    out = tmp_path / "report"
    argv = ["--checks", "goalstep,clips", "--rows", "ours", "--limit", "1", "--goalstep", str(built)]
    assert G.main([*argv, "--work", str(tmp_path / "work"), "--out", str(out)]) == 0
    result = json.loads((out / "results.json").read_text())
    assert result["commit"] and result["command"].startswith("python -m")
    row = result["checks"]["goalstep"]["rows"]["ours"]
    assert row["false_alarms"]["hours"] == pytest.approx(412.8 / 3600, abs=1e-3)
    assert row["recognition"]["captions"] == 32
    assert "clips" in result["checks"]
    assert (out / "decisions.tar.gz").exists() and "| goalstep | ours |" in (out / "report.md").read_text()
