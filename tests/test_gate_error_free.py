"""The gate's error-free training streams: Goal-Step videos with the wearer's own list named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.evaluation import goalstep
from edge_assist.evaluation.gate_report import _error_free
from edge_assist.evaluation.harness import Dataset
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.gate_features import NAMES

DATA = Path(__file__).parent / "data" / "ego4d-goalstep"


def test_every_caption_of_the_followed_list_is_a_row_with_no_error(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    goalstep.build(DATA, tmp_path / "gs")
    # The one test video is a val video: train is empty, val holds its 32 captions.
    rows = _error_free(Dataset.open(tmp_path / "gs"), text_encoder, lambda _: None)
    assert len(rows["train"].y) == 0 and len(rows["val"].y) == 32
    assert rows["val"].y.sum() == 0
    # The task is the list the stream names, tracked like any task the wearer names.
    assert (rows["val"].X[:, NAMES.index("task_confidence")] == 1.0).all()
    assert rows["val"].X[:, NAMES.index("progress")].max() > 0.5


def test_a_build_without_list_streams_names_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    goalstep.build(DATA, tmp_path / "gs")
    manifest = tmp_path / "gs" / "manifest.json"
    old = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**old, "variants": [goalstep.VARIANT]}))
    assert (
        main(["gate", "train", "--error-free", str(tmp_path / "gs"), "--out", str(tmp_path / "g.json")]) != 0
    )
    err = capsys.readouterr().err
    assert "build-goalstep" in err and len(err.strip().splitlines()) == 1
