"""A "No" the tracker earns: a yes/no question about what a skipped step does ("did I grease the
cup?" when the cup was never coated) is answered "No" with the step, a step still to come asked
"yet" is "Not yet", and a step done, or an act a caption tells, is never a "No"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.answers.skipped_step import asked_focus, names_step, not_done, told_anywhere
from edge_assist.cli import main
from edge_assist.retrieval.api import CaptionRecord
from edge_assist.tasks.findings import TrackerState
from edge_assist.tasks.model import Step, Task
from tests.clip_level import CLIP_LEVEL_ARGS, DEMO

COAT = "Coat a 6-oz. ramekin cup with cooking spray"
TASK = Task.build(
    "egg",
    "Egg sandwich",
    [
        Step("1", COAT),
        Step("2", "Pour 1 egg into the ramekin cup", ("1",)),
        Step("3", "Sprinkle 1 tablespoon of cheese on cup", ("2",)),
        Step("4", "Place the egg from the cup over the lettuce", ("3",)),
    ],
)


def _state(*done: str) -> TrackerState:
    return TrackerState("egg", "Egg sandwich", "", "", 1.0, 1.0, 1.0, tuple(done), (), len(TASK.steps))


def test_a_question_names_the_step_that_does_its_act_on_its_things() -> None:
    assert names_step("grease the cup", COAT)  # grease and coat: one act; the cup named
    assert names_step("use cooking spray", COAT)  # no thing parsed: the words, all in the step
    assert not names_step("grease the cup", "Pour 1 egg into the ramekin cup")  # another act
    assert not names_step("add salt", "Sprinkle 1 tablespoon of cheese on cup")  # another thing
    assert names_step("put the cheese on", "Sprinkle 1 tablespoon of cheese on cup")


def test_a_no_only_for_a_step_not_done_that_is_skipped_or_asked_yet() -> None:
    skipped = not_done("did I grease the cup?", "grease the cup", TASK, _state("2", "3"))
    assert skipped is not None and skipped.skipped and skipped.steps == (COAT,)
    # Done: never a "No".
    assert not_done("did I grease the cup?", "grease the cup", TASK, _state("1", "2")) is None
    # Still to come: "Not yet" only when asked "yet".
    ahead = not_done("did I add the cheese yet?", "add the cheese yet", TASK, _state("1"))
    assert ahead is not None and not ahead.skipped
    assert not_done("did I add the cheese?", "add the cheese", TASK, _state("1")) is None


def test_a_verb_made_of_the_thing_it_puts_names_the_step_that_puts_it() -> None:
    salt = "Add 1/3 tsp salt to the pan"
    task = Task.build(
        "eggs",
        "Eggs",
        [
            Step("1", "Heat the oil in the pan"),
            Step("2", salt, ("1",)),
            Step("3", "Pour the eggs into the pan", ("2",)),
        ],
    )
    state = TrackerState("eggs", "Eggs", "", "", 1.0, 1.0, 1.0, ("1", "3"), (), 3)
    focus = asked_focus("did I salt the pan?", task)
    assert focus == "add salt to the pan"
    found = not_done("did I salt the pan?", focus, task, state)
    assert found is not None and found.skipped and found.steps == (salt,)
    # A caption that puts salt in the pan tells the act: no "No".
    assert told_anywhere(focus, [CaptionRecord("s", 0, 0.0, 9.0, "I'm putting in salt to the pan")])
    # A verb a step tells in its own words stays as asked
    assert asked_focus("did I grease the cup?", TASK) == "grease the cup"
    # A pan the salt step does not name is no step of it: "did I butter the pan?"
    assert not_done("did I butter the pan?", asked_focus("did I butter the pan?", task), task, state) is None


def test_a_caption_telling_the_act_keeps_the_no_from_being_said() -> None:
    clip = CaptionRecord("s", 0, 0.0, 10.0, "I greased the ramekin cup with butter")
    assert told_anywhere("grease the cup", [clip])
    assert not told_anywhere(
        "grease the cup", [CaptionRecord("s", 1, 10.0, 20.0, "I poured the egg in the cup")]
    )


@pytest.mark.slow  # memory and answers use the offline text encoder
@pytest.mark.timeout(300)
def test_over_the_demo_the_skipped_coating_is_a_no(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for question in ("did I use cooking spray?", "did I grease the cup?"):
        capsys.readouterr()
        args = ["ask", question, "--recording", str(DEMO), "--json", "--set", f"general.data_dir={tmp_path}"]
        assert main([*args, *CLIP_LEVEL_ARGS]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["answer"] == f'No: you skipped the step "{COAT}" (the steps after it were done).'
        assert out["trace"]["step_no"] == "earned: skipped"
    # A step that was done is still a "Yes".
    capsys.readouterr()
    args = [
        "ask",
        "did I add cheese?",
        "--recording",
        str(DEMO),
        "--json",
        "--set",
        f"general.data_dir={tmp_path}",
    ]
    assert main([*args, *CLIP_LEVEL_ARGS]) == 0
    assert json.loads(capsys.readouterr().out)["answer"].startswith("Yes")


def test_an_act_asked_of_a_pronoun_names_the_one_step_that_does_it() -> None:
    roll = "Roll the tortilla from one end to another into a log shape"
    assert names_step("roll it up", roll)
    assert not names_step("roll it up", "Add salsa to the bowl")
    assert not names_step("add it", "Add salsa to the bowl")  # any act: no one step
    seen = [CaptionRecord("s", 0, 0.0, 10.0, "Now I am rolling up the tortilla.")]
    assert told_anywhere("roll it up", seen)
    assert not told_anywhere("roll it up", [CaptionRecord("s", 0, 0.0, 10.0, "I beat the egg.")])
