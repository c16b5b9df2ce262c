"""The Ego4D Goal-Step builder, on one real video's annotations copied into tests/data."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.evaluation.annotations import read_ground_truth
from edge_assist.evaluation.goalstep import (
    CLIP_S,
    CREDIT,
    DATA_FILE,
    LIST_VARIANT,
    VARIANT,
    GoalStepError,
    build,
    clips,
    load,
    own_list,
    split_of,
)
from edge_assist.evaluation.goalstep_captions import clause, sentence
from edge_assist.evaluation.harness import Dataset
from edge_assist.sources.caption_stream import load_caption_stream

DATA = Path(__file__).parent / "data" / "ego4d-goalstep"
UID = "d14d6c08-b80a-446a-988e-5b57a079097c"  # 412.8 s of making fried eggs and potatoes, a val video


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("goalstep")
    build(DATA, out)
    return out


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_annotations_read_as_a_captioner_writes() -> None:
    assert clause("Add salt to mixture") == "adds salt to mixture"
    assert clause("stirs rice with spatula") == "stirs rice with spatula"
    assert clause("Adding cabbage to the pan") == "is adding cabbage to the pan"
    assert clause("Deep fry pancake batter") == "deep-fries pancake batter"
    assert clause("Wash hands") == "washes hands" and clause("Fry Okra") == "fries okra"
    assert clause("Unspecified") == ""
    assert sentence(["add the flour", "Removes the dough", "add the flour"]) == (
        "The person adds the flour, then removes the dough."
    )


def test_a_video_is_cut_into_ten_second_clips_captioned_from_its_substeps() -> None:
    (video,) = load(DATA)
    cut = clips(video)
    assert len(cut) == math.ceil(video.duration_s / CLIP_S) == 42
    assert all(b.t0 == pytest.approx(a.t0 + CLIP_S) for a, b in zip(cut, cut[1:], strict=False))
    assert cut[-1].t1 == pytest.approx(video.end)
    by_t0 = {round(c.t0): c.text for c in cut}
    # The step "Cook potato" has substeps: the clip is captioned from those it shows.
    assert by_t0[30] == "The person adds diced potato to pan, then stirs diced potato in pan."
    # "Heat meat on a skillet" has none: the step itself, clip after clip.
    assert by_t0[100] == by_t0[110] == "The person heats meat on a skillet."
    # Before the first step and between steps: idle, left out of the stream.
    assert by_t0[0] == by_t0[10] == by_t0[300] == ""


def test_the_stream_names_no_task_and_keeps_the_goal_for_reports_only(built: Path) -> None:
    path = built / "val" / VARIANT / f"{UID}.jsonl"
    meta = _lines(path)[0]["meta"]
    assert not {"task", "recipe", "task_context"} & set(meta)
    assert meta["truth"]["goal_description"] == "Prepare ous estrellats" and meta["credit"] == CREDIT
    stream = load_caption_stream(path)
    assert stream.task_context == "" and stream.session_id == f"goalstep-{UID}"
    assert len(stream.captions) == 32  # 42 clips, 10 idle


def test_ground_truth_is_empty_and_the_manifest_counts_hours(built: Path) -> None:
    for split in ("train", "val"):
        gt = read_ground_truth(built / split / "gt.jsonl")
        assert gt.gt == [] and gt.problems == []
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["credit"] == CREDIT and manifest["splits"] == {"train": [], "val": [UID]}
    assert manifest["hours"]["val"] == pytest.approx(412.8 / 3600, abs=1e-3)
    assert manifest["clips"]["val"] == 32 and manifest["recordings"][UID]["idle_clips"] == 10
    assert (built / "LICENSE-Ego4D-GoalStep").exists()
    ds = Dataset.open(built)
    assert ds.variants == (VARIANT, LIST_VARIANT) and ds.recordings("val") == [UID]
    assert len(ds.captions("val", VARIANT, UID)) == 32


def test_the_list_variant_names_the_wearers_own_list_of_what_was_done(built: Path) -> None:
    (video,) = load(DATA)
    # Essential steps once each, in the order first done; "Wash hands" (optional) is an aside and
    # "Cook potato", taken up again at 213 s, is listed once.
    assert own_list(video) == [
        "Cook potato",
        "Add spice into the potato",
        "Heat meat on a skillet",
        "Adjust the meat on the skillet",
        "Prepare toast",
        "Prepare egg in the skillet",
        "Flip the meat in the skillet",
    ]
    assert own_list(video, max_steps=2) == ["Cook potato", "Add spice into the potato"]
    clips_lines = _lines(built / "val" / VARIANT / f"{UID}.jsonl")
    listed = _lines(built / "val" / LIST_VARIANT / f"{UID}.jsonl")
    assert listed[1:] == clips_lines[1:]  # the same clips, captioned the same
    meta = listed[0]["meta"]
    assert meta["task_list"] is True and "recipe" not in meta and "task" not in meta
    assert meta["task_context"].startswith("Steps: 1. Cook potato; 2. Add spice into the potato; 3. ")
    stream = load_caption_stream(built / "val" / LIST_VARIANT / f"{UID}.jsonl")
    assert len(stream.captions) == 32 and "Flip the meat in the skillet" in stream.task_context


def test_the_build_is_deterministic(built: Path, tmp_path: Path) -> None:
    build(DATA, tmp_path)
    files = sorted(p.relative_to(built) for p in built.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert all((built / f).read_bytes() == (tmp_path / f).read_bytes() for f in files)


def test_the_split_is_a_hash_of_the_video_id() -> None:
    assert split_of(UID) == "val" and split_of(UID) == split_of(str(UID))
    halves = [split_of(f"video-{i}") for i in range(400)]
    assert 150 < halves.count("train") < 250


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "is not valid JSON"),
        ('{"videos": []}', "holds no 'videos' list"),
        (
            '{"videos": [{"video_uid": "v1", "start_time": 0, "end_time": 5, "segments": []}]}',
            "no annotated steps",
        ),
        (
            '{"videos": [{"video_uid": "v1", "start_time": 0, "end_time": 50, '
            '"segments": [{"start_time": 9, "end_time": 3, "step_description": "Cut"}]}]}',
            "video 0 (v1), step 0: a segment ends before it starts",
        ),
    ],
)
def test_a_bad_input_file_is_one_line_of_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, expected: str
) -> None:
    (tmp_path / DATA_FILE).write_text(content, encoding="utf-8")
    with pytest.raises(GoalStepError, match=re.escape(expected)):
        load(tmp_path)
    assert main(["eval", "build-goalstep", "--data", str(tmp_path), "--out", str(tmp_path / "out")]) != 0
    err = capsys.readouterr().err.strip()
    assert expected in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_the_command_builds_and_credits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "build-goalstep", "--data", str(DATA), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "val: 1 videos, 0.12 h (0.09 h captioned), 32 clips" in out and CREDIT in out


@pytest.mark.slow
def test_eval_run_replays_the_clip_streams_without_a_variant_named(built: Path, tmp_path: Path) -> None:
    argv = ["eval", "run", "--dataset", str(built), "--split", "val", "--rows", "never"]
    assert main([*argv, "--judge-max-pairs", "0", "--no-plots", "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["variant"] == VARIANT and results["gt_events"] == 0
    alerts = results["rows"][0]["alerts"]
    assert alerts["spoken"] == 0 and alerts["hours"] == pytest.approx(412.8 / 3600, abs=1e-3)
    assert "What was said" in (tmp_path / "report.md").read_text()
