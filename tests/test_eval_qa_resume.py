"""`eval qa` keeps each recording's answers as it goes, resumes with --read-back, runs in workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edge_assist.cli import main
from edge_assist.evaluation.captaincook import build

DATA = Path(__file__).parent / "data" / "captaincook4d"


def _stable(results: dict[str, Any]) -> dict[str, Any]:
    """A results.json without what varies from run to run: timings and the command line."""
    out = {k: v for k, v in results.items() if k not in ("wall_s", "command")}
    out["records"] = [{k: v for k, v in r.items() if k != "seconds"} for r in results["records"]]
    out["summary"] = {
        row: {k: v for k, v in s.items() if k != "latency_s"} for row, s in results["summary"].items()
    }
    return out


def _report(path: Path) -> list[str]:
    """report.md without the command line and the latencies."""
    return [x for x in path.read_text().splitlines() if "latency" not in x and "eval qa" not in x]


@pytest.mark.slow
def test_an_interrupted_run_resumes_to_the_uninterrupted_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(DATA, tmp_path / "cc4d")
    manifest = json.loads((tmp_path / "cc4d" / "manifest.json").read_text())
    first, second = manifest["splits"]["val"][:2]
    qa = ["eval", "qa", "--dataset", str(tmp_path / "cc4d"), "--answerer", "grounded"]
    resumed = tmp_path / "resumed"

    # Stopped after one recording: its answers are on disk already.
    assert main([*qa, "--limit", "1", "--out", str(resumed)]) == 0
    kept = resumed / "answers" / f"{first}.jsonl"
    before = kept.stat().st_mtime_ns
    assert len(kept.read_text().splitlines()) > 0

    capsys.readouterr()
    assert main([*qa, "--limit", "2", "--read-back", "--out", str(resumed)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert any(first in line and line.endswith("read back") for line in err)
    assert kept.stat().st_mtime_ns == before  # read, not answered again
    assert (resumed / "answers" / f"{second}.jsonl").exists()

    whole = tmp_path / "whole"
    assert main([*qa, "--limit", "2", "--jobs", "2", "--out", str(whole)]) == 0
    a = json.loads((resumed / "results.json").read_text())
    b = json.loads((whole / "results.json").read_text())
    assert a["recordings"] == 2 and _stable(a) == _stable(b)
    on_disk = [
        json.loads(x)
        for rid in (first, second)
        for x in (resumed / "answers" / f"{rid}.jsonl").read_text().splitlines()
    ]
    assert on_disk == a["records"]
    assert _report(resumed / "report.md") == _report(whole / "report.md")
    # stamped with the commit whose code answered (taken at the start of the run)
    assert (whole / "command.txt").read_text().splitlines()[1].startswith("commit ")


def test_qa_jobs_below_one_is_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "qa", "--jobs", "0", "--out", str(tmp_path / "o")]) == 2
    assert "--jobs" in capsys.readouterr().err
