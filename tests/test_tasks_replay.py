"""A wearer's own TOML task, end to end: `tasks add`, a replay whose stream names it, the
tracker's finding spoken by the progress cue, shown by `edge-assist trace`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.cli import main

pytestmark = pytest.mark.slow  # loads the LLM and the text encoder

TEA = """\
[task]
name = "tea"
title = "Make a cup of tea"

[[step]]
id = "boil"
text = "Boil water in the kettle"
hazards = ["hot"]

[[step]]
id = "bag"
text = "Put a tea bag in the cup"

[[step]]
id = "pour"
text = "Pour 250 ml of boiled water over the tea bag"
after = ["boil", "bag"]

[[step]]
id = "steep"
text = "Let the tea steep for 3 minutes, then take the bag out"
after = ["pour"]
"""


@pytest.mark.heavy
def test_user_task_through_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    task_file = tmp_path / "tea.toml"
    task_file.write_text(TEA, encoding="utf-8")
    s = ["--set", f"general.data_dir={data}"]
    assert main(["tasks", *s, "add", str(task_file)]) == 0
    stream = tmp_path / "tea.jsonl"
    lines = [
        {"meta": {"session_id": "tea-1", "task": "tea"}},
        {"t0": 0, "t1": 10, "text": "I put a tea bag in the cup"},
        {"t0": 40, "t1": 50, "text": "Pouring cold tap water over the tea bag"},  # never boiled
        {"t0": 80, "t1": 90, "text": "Letting the tea steep for 3 minutes before taking the bag out"},
    ]
    stream.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    # The LLM decides here, with the tracker's cue (the gate's own replay test is in test_gate_replay.py).
    assert (
        main(
            [
                "replay",
                str(stream),
                "--no-progress",
                *s,
                "--set",
                "reasoner.decider=llm",
                "--set",
                "reasoner.progress_cue=speak",
            ]
        )
        == 0
    )
    decisions = [
        d
        for d in (json.loads(x) for x in (data / "decisions.jsonl").read_text(encoding="utf-8").splitlines())
        if d.get("type") == "decision"
    ]
    spoken = [d for d in decisions if d["decision"] == "speak"]
    assert len(spoken) == 1 and spoken[0]["sub_type"] == "ER" and spoken[0]["t0"] == 40
    assert "Boil water in the kettle" in spoken[0]["text"]
    traces = [json.loads(x) for x in (data / "traces.jsonl").read_text(encoding="utf-8").splitlines()]
    tasks = [t["task"] for t in traces if "task" in t]
    assert [t["step"] for t in tasks] == ["bag", "pour", "steep"]
    assert tasks[-1]["k"] == 3 and tasks[-1]["n"] == 4 and tasks[-1]["missing"] == ["boil"]
    capsys.readouterr()
    assert main(["trace", *s, "--last", "3"]) == 0
    out = capsys.readouterr().out
    assert "task: tea (named), 2/4 done" in out and "finding prerequisite_missing" in out
