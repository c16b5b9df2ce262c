"""A cooking method told otherwise is a "No"; "how long ago" counts from when the act began; getting
going on something is starting it; a thing thrown out is discarded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.answers import cooking_method, meaning
from edge_assist.answers.run_length import asks_ago, asks_length
from edge_assist.evaluation.goalstep import build
from edge_assist.reasoning.answer_text import question_focus
from edge_assist.text.framed_questions import unframed
from tests.clip_level import ask_recording as _ask

DATA = Path(__file__).parent / "data" / "ego4d-goalstep"


def test_a_method_is_told_by_its_verb_or_the_medium_the_thing_went_into() -> None:
    fried = "The person spreads oil in a pan, then puts sliced potatoes in oil."
    d = cooking_method.method_difference("boil the potatoes", fried)
    assert d is not None and (d.expected, d.observed) == ("boiled", "in oil")
    d = cooking_method.method_difference("fry the nuts", "The person adds nuts to the boiling water.")
    assert d is not None and d.observed == "in boiling water"
    assert cooking_method.method_difference("fry the potatoes", fried) is None  # as asked
    # both done: the potatoes were boiled, then fried
    both = "The person boils potatoes, then fries potatoes."
    assert cooking_method.method_difference("boil the potatoes", both) is None
    # the moment names another thing, or no method: nothing to contradict
    assert cooking_method.method_difference("boil the eggs", fried) is None
    assert cooking_method.method_difference("boil the gourd", "The person slices the gourd.") is None
    # a general verb names no method
    assert cooking_method.method_difference("cook the potatoes", fried) is None


def _stream(path: Path, captions: list[str]) -> Path:
    lines = [json.dumps({"meta": {"recording": "potatoes", "task": None}})]
    lines += [json.dumps({"t0": 10.0 * i, "t1": 10.0 * i + 10, "text": c}) for i, c in enumerate(captions)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_potatoes_put_in_oil_were_not_boiled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stream = _stream(
        tmp_path / "potatoes.jsonl",
        [
            "The person peels potatoes.",
            "The person slices potatoes.",
            "The person spreads oil in a pan, then puts sliced potatoes in oil.",
            "The person puts sliced potatoes in oil.",
            "The person washes a plate.",
        ],
    )
    said = _ask(stream, tmp_path / "a", "did I boil the potatoes?", capsys)
    assert said.startswith("No: at 0:20") and "(in oil, not boiled)" in said, said
    assert _ask(stream, tmp_path / "b", "did I fry the potatoes?", capsys).startswith("Yes"), said


def test_getting_going_on_something_is_starting_it() -> None:
    assert unframed("When did I get going on my studying?") == "when did I start studying?"
    assert unframed("Did I knead the dough before I got on with the onions?") == (
        "Did I knead the dough before I started the onions?"
    )
    # starting on a thing is doing anything to it, from its first moment
    assert question_focus("when did I start on the sauce?") == "do the sauce"
    assert question_focus("when did I start cooking the onions?") == "cooking the onions"
    assert asks_length("How long was I studying for?") and question_focus("How long was I studying for?") == (
        "studying"
    )
    assert asks_ago("and how long ago did I put the rice on?") and not asks_length("how long ago did I stir?")


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("goalstep")
    build(DATA, out)
    return next(out.glob("*/clips/*.jsonl"))


def test_how_long_ago_counts_from_when_the_act_began(
    day: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # twelve clips of "heats meat on a skillet" from 1:20: the meat went on 5 minutes 10 s before
    # the end of the stream (6:30), whichever of the clips ranked first
    said = _ask(day, tmp_path, "how long ago did I heat the meat on the skillet?", capsys)
    assert said.startswith("About 5 minutes ago: at 1:20"), said


def test_a_thing_thrown_out_is_discarded_and_a_thing_thrown_in_added() -> None:
    assert meaning.parse("chuck out the potato peel", verb_first=True).verb == "discard"
    assert meaning.read("chuck out the peel", "The person disposes potato peel.").restated is not None
    assert meaning.parse("throw in the salt", verb_first=True).verb == "add"
