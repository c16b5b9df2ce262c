"""The harness end to end: baselines through the real pipeline, scored, reported, plotted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.config import Config
from edge_assist.evaluation import harness, report
from edge_assist.evaluation.captaincook import build
from edge_assist.evaluation.timeline import plot_timeline

DATA = Path(__file__).parent / "data" / "captaincook4d"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> harness.Dataset:
    out = tmp_path_factory.mktemp("cc4d")
    build(DATA, out)
    return harness.Dataset.open(out)


@pytest.mark.slow
def test_baselines_through_the_pipeline(dataset: harness.Dataset, tmp_path: Path) -> None:
    rows = {r.baseline: r for r in harness.standard_rows() if r.baseline}
    ids = dataset.recordings("val")
    er = harness.run_row(
        Config(), dataset, "val", "paraphrased", rows["er-every-caption"], ids, out_dir=tmp_path
    )
    never = harness.run_row(Config(), dataset, "val", "paraphrased", rows["never-speak"], ids)
    captions = sum(len(dataset.captions("val", "paraphrased", r)) for r in ids)
    # 1_10: 11 captions, one Missing Step; 1_37: 12 captions, 7 error events.
    assert er.result["predictions"] == captions == 23
    assert er.result["gt"] == 8 and er.result["per_sub_type"]["ER"]["matched"] == 8
    assert er.result["per_sub_type"]["ER"]["precision"] == pytest.approx(8 / 23, abs=1e-4)
    assert never.result["predictions"] == 0 and never.result["macro_f1"] == 0.0
    assert (
        len(
            (tmp_path / "decisions" / "error-recovery-at-every-caption" / "1_10.jsonl")
            .read_text()
            .splitlines()
        )
        == 11
    )
    md = report.render(
        {
            "dataset": {"name": "captaincook4d"},
            "split": "val",
            "variant": "paraphrased",
            "recordings": 2,
            "recordings_without_errors": 0,
            "gt_events": 8,
            "delta_s": 25.0,
            "models": "-",
            "content_threshold": 0.5,
            "judge_max_pairs": 0,
            "rows": [er.result, never.result],
            "ablations": [],
            "problems": [],
            "command": "x",
        }
    )
    assert "| Error Recovery at every caption | 51.6 |" in md  # F1 = 2·(8/23)·1/(8/23+1)
    # An interrupted run resumes: a recording whose decisions are written is read back, not replayed.
    (tmp_path / "decisions" / "error-recovery-at-every-caption" / "1_37.jsonl").unlink()
    again = harness.run_row(
        Config(),
        dataset,
        "val",
        "paraphrased",
        rows["er-every-caption"],
        ids,
        out_dir=tmp_path,
        read_back=True,
    )
    assert (
        again.runtime["recordings"]["1_10"] == {"read_back": True}
        and "read_back" not in again.runtime["recordings"]["1_37"]
    )
    assert again.result == er.result and again.decisions["1_10"] == er.decisions["1_10"]


def test_false_alarms_and_timeline(dataset: harness.Dataset, tmp_path: Path) -> None:
    from edge_assist.evaluation.annotations import Prediction
    from edge_assist.evaluation.measures import false_alarms_per_hour
    from edge_assist.evaluation.scorer import score
    from edge_assist.events import SubType

    gt, _ = dataset.ground_truth("train", dataset.recordings("train"))
    preds = [
        Prediction("captaincook4d-1_7", 10, 20, SubType.ERROR_RECOVERY, "stop"),
        Prediction("captaincook4d-1_7", 30, 40, SubType.NEXT_STEP_GUIDANCE, "next"),
    ]
    durations = {dataset.session_id(r): dataset.duration_s(r) for r in dataset.recordings("train")}
    fa = false_alarms_per_hour(preds, gt, durations)
    assert fa["recordings"] == 1 and fa["spoken"] == 2
    assert fa["per_hour"] == pytest.approx(2 / (dataset.duration_s("1_7") / 3600), rel=1e-3)
    _, m = score(gt, preds, 25.0)
    png = plot_timeline(tmp_path / "t.png", "1_7", [], [("sys", preds, m)], [(0, 10)], 600.0)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_eval_score_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gt = tmp_path / "ann.jsonl"
    gt.write_text(
        json.dumps({"video_id": "v", "sub_type": "ER", "current_time_window": "DAY1 00:01:40\u201300:01:50"})
        + "\n"
        + json.dumps({"video_id": "v", "sub_type": "ER", "current_time_window": "DAY1 00:0X:40-00:01:50"})
        + "\n",
        encoding="utf-8",
    )
    log = tmp_path / "decisions.jsonl"
    log.write_text(
        json.dumps(
            {"session_id": "v", "t0": 100, "t1": 110, "decision": "speak", "sub_type": "ER", "text": "x"}
        )
        + "\n",
        encoding="utf-8",
    )
    assert main(["eval", "score", "--gt", str(gt), "--predictions", str(log)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["macro_f1"] == 1.0
    assert "record 2" in out.err


def test_missing_dataset_is_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "run", "--dataset", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "build-captaincook" in capsys.readouterr().err


@pytest.mark.slow
def test_worker_processes_give_the_serial_numbers(dataset: harness.Dataset, tmp_path: Path) -> None:
    common = [
        "eval",
        "run",
        "--dataset",
        str(dataset.root),
        "--rows",
        "never,er",
        "--judge-max-pairs",
        "0",
        "--no-plots",
        "--variant",
        "paraphrased",
    ]
    assert main([*common, "--out", str(tmp_path / "serial")]) == 0
    assert main([*common, "--jobs", "2", "--out", str(tmp_path / "jobs")]) == 0
    serial = json.loads((tmp_path / "serial" / "results.json").read_text())
    jobs = json.loads((tmp_path / "jobs" / "results.json").read_text())
    assert serial["rows"] == jobs["rows"] and serial["rows"][1]["predictions"] == 23
    for rid in dataset.recordings("val"):
        rel = Path("decisions") / "error-recovery-at-every-caption" / f"{rid}.jsonl"
        assert (tmp_path / "serial" / rel).read_text() == (tmp_path / "jobs" / rel).read_text()


def test_jobs_below_one_is_one_line_error(
    dataset: harness.Dataset, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["eval", "run", "--dataset", str(dataset.root), "--jobs", "0", "--out", str(tmp_path / "o")])
        == 2
    )
    assert "--jobs" in capsys.readouterr().err


@pytest.mark.heavy
@pytest.mark.slow
def test_an_ablation_replays_our_rows_answers_from_the_cache(
    dataset: harness.Dataset, tmp_path: Path
) -> None:
    """The real assistant on three captions, then an ablation: every request the memory
    writer makes (its LLM entity extraction, one per caption) is identical (the ablation only
    changes retrieval), so the second row runs no model call and decides exactly as the first."""
    rid = dataset.recordings("val")[0]
    stream = dataset.stream("val", "paraphrased", rid)
    lines = stream.read_text(encoding="utf-8").splitlines()
    stream.write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")  # the meta line and 3 captions
    try:
        cfg = Config().replace(
            **{"models.response_cache": str(tmp_path / "cache.sqlite"), "memory.entity_extractor": "llm"}
        )
        ours = harness.run_row(cfg, dataset, "val", "paraphrased", harness.standard_rows()[0], [rid])
        ablation = harness.run_row(cfg, dataset, "val", "paraphrased", harness.ablation_rows()[3], [rid])
    finally:
        stream.write_text("\n".join(lines) + "\n", encoding="utf-8")
    first = ours.runtime["recordings"][rid]["response_cache"]
    second = ablation.runtime["recordings"][rid]["response_cache"]
    assert first["misses"] >= 3  # at least one extraction per caption ran on the model
    assert second["hits"] == first["misses"] + first["hits"] and second["misses"] == 0
    assert second["saved_s"] > 0  # the compute the hits would have cost, recorded at the misses
    assert [(d.clip_index, d.speak, d.reason) for d in ours.decisions[rid]] == [
        (d.clip_index, d.speak, d.reason) for d in ablation.decisions[rid]
    ]
