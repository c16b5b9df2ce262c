"""What a replay tells a new user: a task it cannot follow, and a question over a stream
memory already holds (answered from memory, not dropped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.cli import main

DEMO = (
    Path(__file__).resolve().parents[1] / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"
)
TEA = (Path(__file__).parent / "data" / "tasks" / "tea.toml").read_text(encoding="utf-8")


def _answers(out: str) -> list[str]:
    return [line for line in out.splitlines() if "] ANSWER: " in line]


@pytest.mark.slow
def test_a_second_replay_answers_its_question_from_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = DEMO.read_text(encoding="utf-8").splitlines()[:6]  # meta and five captions
    stream = tmp_path / "short.jsonl"
    stream.write_text("\n".join(lines) + "\n", encoding="utf-8")
    asked = json.loads(lines[5])["t1"] - 1.0  # while the last caption's step runs
    argv = ["replay", str(stream), "--no-progress", "--set", f"general.data_dir={tmp_path / 'data'}"]
    argv += ["--set", "output.speech=off", "--ask", f"{asked}:what did I do with the English muffin?"]
    assert main(argv) == 0
    first = _answers(capsys.readouterr().out)
    assert len(first) == 1 and "muffin" in first[0]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "already in memory up to clip 5: answering --ask from memory" in err
    assert _answers(out) == first


@pytest.mark.slow
def test_a_question_planted_after_the_end_is_answered_from_memory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = DEMO.read_text(encoding="utf-8").splitlines()[:6]
    stream = tmp_path / "short.jsonl"
    stream.write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["replay", str(stream), "--no-progress", "--set", f"general.data_dir={tmp_path / 'data'}"]
    argv += ["--set", "output.speech=off", "--ask", "9000:what did I do with the English muffin?"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "asked after the stream's end: answering --ask from memory" in err
    assert len(_answers(out)) == 1 and _answers(out)[0].startswith("[02:30:00] ANSWER: ")


@pytest.mark.slow
def test_a_task_missing_from_the_data_folder_is_named_with_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = tmp_path / "tea.jsonl"
    stream.write_text(
        json.dumps({"meta": {"session_id": "tea-1", "task": "tea"}})
        + "\n"
        + json.dumps({"t0": 0, "t1": 10, "text": "I fill the kettle with water."})
        + "\n",
        encoding="utf-8",
    )
    data = tmp_path / "data"
    argv = ["replay", str(stream), "--no-progress", "--set", f"general.data_dir={data}"]
    assert main([*argv, "--set", "output.speech=off"]) == 0
    err = capsys.readouterr().err
    assert f"the stream names task 'tea', which is not in the task library of {data}" in err
    assert f"edge-assist tasks add FILE --set general.data_dir={data}" in err

    (tmp_path / "tea.toml").write_text(TEA, encoding="utf-8")
    assert main(["tasks", "add", str(tmp_path / "tea.toml"), "--set", f"general.data_dir={data}"]) == 0
    capsys.readouterr()
    stream.write_text(stream.read_text(encoding="utf-8").replace("tea-1", "tea-2"), encoding="utf-8")
    assert main([*argv, "--set", "output.speech=off"]) == 0
    assert "not in the task library" not in capsys.readouterr().err
