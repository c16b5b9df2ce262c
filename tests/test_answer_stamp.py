"""An answer is stamped with the moment it was asked, and the decision log keeps the question."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.evaluation.annotations import read_predictions
from edge_assist.events import Caption, Decision, UserQuery
from edge_assist.outputs.console import format_decision
from edge_assist.reasoning.api import StepContext
from edge_assist.runtime.steps.questions import QuestionStep, asked_stream_t
from tests.clip_level import CLIP_LEVEL_ARGS

DEMO = Path(__file__).parents[1] / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"
CAPTION = Caption(t=196.0, session_id="s", index=4, t0=164.2, t1=194.1, text="Line the muffin with lettuce")


def _answer() -> Decision:
    return Decision(
        201.5, "s", 4, 164.2, 194.1, True, text="At 0:41 you cut the English muffin.", trigger="query"
    )


def test_a_replayed_question_is_stamped_where_it_was_planted() -> None:
    ctx = StepContext("s", CAPTION, query=UserQuery(t=200.0, text="what did I do?", stream_t=200.0))
    d = QuestionStep.stamp(_answer(), ctx)
    assert (d.t, d.stream_t0, d.stream_t1, d.question) == (200.0, 164.2, 200.0, "what did I do?")
    assert format_decision(d).startswith("[00:03:20] ANSWER:")  # not the last clip's end, 3:14


def test_a_live_question_moves_on_from_the_last_clip_by_the_clock() -> None:
    # Typed 9 s of clock after the last caption came out: 9 s after that clip's end.
    ctx = StepContext("s", CAPTION, query=UserQuery(t=205.0, text="what did I do?"))
    assert asked_stream_t(ctx) == pytest.approx(203.1)
    # A clock that reads earlier than the caption never moves the answer before the clip's end.
    early = StepContext("s", CAPTION, query=UserQuery(t=190.0, text="what did I do?"))
    assert asked_stream_t(early) == CAPTION.t1


def test_the_log_line_of_an_answer_carries_the_question_and_reads_back() -> None:
    ctx = StepContext("s", CAPTION, query=UserQuery(t=200.0, text="what did I do?", stream_t=200.0))
    line = QuestionStep.stamp(_answer(), ctx).to_json()
    assert line["question"] == "what did I do?" and line["t1"] == 200.0
    assert Decision.from_json(line).question == "what did I do?"
    # A proactive decision's line is as it was: no question key.
    assert "question" not in Decision(10.0, "s", 0, 0.0, 10.0, False).to_json()


@pytest.mark.slow  # the replay loads the offline text encoder
@pytest.mark.timeout(300)
def test_the_demo_answer_is_logged_with_its_question_at_the_time_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = "what did I do with the English muffin?"
    args = ["replay", str(DEMO), "--no-progress", "--set", f"general.data_dir={tmp_path}"]
    assert main([*args, "--ask", f"200:{question}"]) == 0
    assert "[00:03:20] ANSWER: At 0:41 you cut the English muffin" in capsys.readouterr().out
    lines = [json.loads(x) for x in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    (answer,) = [r for r in lines if r.get("trigger") == "query"]
    assert answer["question"] == question and answer["t"] == 200.0 and answer["t1"] == 200.0
    assert all("question" not in r for r in lines if r.get("trigger") == "proactive")


@pytest.mark.slow  # memory and answers use the offline text encoder
@pytest.mark.timeout(300)
def test_a_question_asked_with_ask_is_logged_with_its_answer_and_when(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = ("when did I add the cheese?", "did I add salsa?")
    said = []
    for question in questions:
        args = ["ask", question, "--recording", str(DEMO), "--json", "--set", f"general.data_dir={tmp_path}"]
        assert main([*args, *CLIP_LEVEL_ARGS]) == 0
        said.append(json.loads(capsys.readouterr().out))
    log = tmp_path / "decisions.jsonl"
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(r["type"], r["question"], r["text"]) for r in lines] == [
        ("question", q, out["answer"]) for q, out in zip(questions, said, strict=True)
    ]
    assert lines[0]["asked_at"] == said[0]["asked_at"] and lines[0]["t"] > 0 and lines[0]["trigger"] == "ask"
    # Readers of the spoken decisions pass over them.
    loaded = read_predictions(log)
    assert not loaded.predictions and not loaded.problems


@pytest.mark.slow  # the replay loads the offline text encoder
@pytest.mark.timeout(300)
def test_live_questions_are_read_as_ask_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Terse, and naming a time instead of an act: said plain first, live as in `ask`.
    args = ["replay", str(DEMO), "--no-progress", "--set", f"general.data_dir={tmp_path}"]
    asks = ["--ask", "200:what was I doing a minute in?", "--ask", "210:egg - how many?"]
    assert main([*args, *asks]) == 0
    out = capsys.readouterr().out
    assert "[00:03:20] ANSWER: At 0:41 you cut the English muffin" in out
    assert "[00:03:30] ANSWER: 1 egg" in out
