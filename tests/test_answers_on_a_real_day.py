"""Answers on a real day cut into 10-s clips (the Ego4D Goal-Step video copied into tests/data):
how long an activity went on, read from the clips that tell it; how long ago something was done;
and what the wearer was making when no task the library knows is under way."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_assist.answers.activity_span import clauses, stretches
from edge_assist.answers.what_i_saw import mostly
from edge_assist.evaluation.goalstep import build
from edge_assist.memory.api import CaptionRecord
from edge_assist.reasoning.answer_text import question_focus
from edge_assist.text.stream_time import length
from tests.clip_level import ask_recording as _ask

DATA = Path(__file__).parent / "data" / "ego4d-goalstep"


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("goalstep")
    build(DATA, out)
    return next(out.glob("*/clips/*.jsonl"))


def test_a_caption_of_several_actions_is_one_clause_each() -> None:
    said = "The person stirs the mixture, washes the red pepper in the water, then slices red pepper."
    assert clauses(said) == [
        "The person stirs the mixture",
        "washes the red pepper in the water",
        "slices red pepper.",
    ]
    # a list of things is one clause: a verb starts one only after a comma or "then"
    assert clauses("The person adds onions, peppers and salt to the pan.") == [
        "The person adds onions, peppers and salt to the pan."
    ]


def test_clips_close_in_time_make_one_stretch_and_a_long_gap_ends_it() -> None:
    clips = [
        CaptionRecord("s", i, t, t + 10.0, text)
        for i, (t, text) in enumerate(
            [
                (0.0, "The person kneads the dough."),
                (10.0, "The person kneads the dough, then checks the phone."),
                (40.0, "The person kneads the dough."),  # two clips missed: still the same kneading
                (50.0, "The person washes hands."),
                (200.0, "The person kneads the dough."),
            ]
        )
    ]
    found = stretches(clips, lambda clause: "knead" in clause)
    assert [(s.t0, s.t1) for s in found] == [(0.0, 50.0), (200.0, 210.0)]
    assert found[0].clips[1].text == "The person kneads the dough"  # told by its own clause


def test_a_later_clause_is_told_with_the_caption_s_subject() -> None:
    clips = [CaptionRecord("s", 0, 0.0, 10.0, "The person stir-fries meat, then stir-fries vegetables.")]
    found = stretches(clips, lambda clause: "vegetables" in clause)
    assert found[0].clips[0].text == "The person stir-fries vegetables."


def test_an_act_no_family_knows_is_measured_by_its_own_word() -> None:
    from edge_assist.answers.quantity_question import parse
    from edge_assist.tasks.step_phrases import singular

    # where only an act stands: after "was I", as the subject, after "did I"
    assert parse("how long did the massaging go on?").action == {"massag"}
    assert parse("how long was I thinning out the pieces?").action == {"thin"}
    assert parse("how long did I pipe before I refilled?").action == {"pip"}
    assert parse("how long was the chicken in?").action == frozenset()  # no act: the thing's time
    assert singular("veggies") == "veggie" and singular("berries") == "berry"


def test_a_length_is_said_as_a_person_says_it() -> None:
    assert length(12) == "10 seconds"
    assert length(80) == "1 minute 20 seconds"
    assert length(120) == "2 minutes"
    assert length(14 * 60 + 10) == "14 minutes"
    assert length(2 * 3600) == "2 hours"


def test_how_long_an_act_went_on_is_its_stretch_of_clips(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _ask(stream, tmp_path, "how long did I spend heating the meat?", capsys)
    assert said.startswith("About 2 minutes, from 1:20 to 3:20"), said
    # stirred in two stretches far apart: added up, each told
    said = _ask(stream, tmp_path, "how long was I stirring the potatoes?", capsys)
    assert said.startswith(
        "About 1 minute 10 seconds in all, in 2 stretches: from 0:30 to 0:50 and from 3:30 to 4:20"
    ), said
    said = _ask(stream, tmp_path, "how long did I stir the potatoes the first time?", capsys)
    assert said.startswith("About 20 seconds, from 0:30 to 0:50"), said


def test_how_long_that_took_leans_on_the_last_answer(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _ask(stream, tmp_path, "when did I heat the meat?", capsys)
    assert said.startswith("At ") and "heated meat" in said, said
    said = _ask(stream, tmp_path, "how long did that take?", capsys, "--continue")
    assert said.startswith("About 2 minutes, from 1:20 to 3:20"), said


@pytest.mark.parametrize(
    ("question", "said_first"),
    [
        # eleven clips in a row heat the meat: the start is the first of them, whichever ranks higher
        ("when did I start heating the meat?", "At 1:20 you heated meat"),
        # potatoes put into the pan on the hob are being cooked from then
        ("when did I start cooking the potatoes?", "At 0:20 you added diced potato to pan"),
        # no thing named: the clips whose own verb tells the act answer, the first of them for "start"
        ("when did I start stirring?", "At 0:30 you added diced potato to pan, then stirred"),
        # "this time" is the latest: before its run, not before the first flip
        (
            "what did I do just before I started flipping this time?",
            "Just before that: at 5:50 you adjusted egg in the skillet",
        ),
    ],
)
def test_an_act_is_found_by_the_run_of_clips_that_tell_it(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], question: str, said_first: str
) -> None:
    said = _ask(stream, tmp_path, question, capsys)
    assert said.startswith(said_first), said


def test_how_long_ago_is_the_time_since_the_moment(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _ask(stream, tmp_path, "how long ago did I wash my hands?", capsys)
    assert said.startswith("About 3 minutes ago: at 3:"), said


def test_what_i_was_making_with_no_task_known_is_what_memory_shows_most(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _ask(stream, tmp_path, "what was I making?", capsys)
    # no task of the library, and no "No" the wearer would hear as "nothing": the stirring of the
    # potatoes and the meat on the skillet are most of the clips
    assert said.startswith("It is no task I know. What I saw most: you "), said
    assert "potato" in said and "meat" in said, said


@pytest.mark.parametrize(
    ("question", "is_task"),
    [
        ("what was i baking?", True),
        ("what was i getting ready in the kitchen?", True),
        ("what was i whipping up for dinner?", True),
        ("what was i getting ready for?", False),
        ("what were we cooking today?", True),
        ("so what am i making here?", True),
        ("what was i baking at ten minutes in?", False),  # a time named: what was done then
        ("what was i frying the onions in?", False),
    ],
)
def test_what_was_made_is_asked_without_a_noun_for_it(question: str, is_task: bool) -> None:
    from edge_assist.answers.procedure import _TASK_FORM

    assert bool(_TASK_FORM.match(question)) == is_task


def test_what_i_saw_most_names_a_new_thing_with_each_activity() -> None:
    clips = [
        CaptionRecord("s", i, 10.0 * i, 10.0 * i + 10.0, text)
        for i, text in enumerate(
            ["The person stirs the noodles in the pan."] * 4
            + ["The person stirs the noodles in the pan, then adds sauce to the noodles."] * 2
            + ["The person cuts the cabbage."] * 2
        )
    ]
    assert mostly(clips) == [
        "The person stirs the noodles in the pan.",
        "adds sauce to the noodles.",
        "The person cuts the cabbage.",
    ]


def test_a_length_asked_in_words_no_list_holds_is_the_found_act_s_stretch(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # "fussing" is no act the quantity parser knows; the moment found by meaning gives the act
    said = _ask(stream, tmp_path, "how long was I fussing with the egg in the skillet?", capsys)
    assert said.startswith("About 10 seconds, from 5:20 to 5:30"), said


def test_the_found_act_is_its_clause_and_its_things_not_the_narrator() -> None:
    from edge_assist.answers import run_length
    from edge_assist.answers.quantity_question import which_time

    said = "The person cleans fish, then mixes fish in garlic sauce."
    assert (
        run_length.chosen_clause(said, "working the fish into the garlic sauce")
        == "mixes fish in garlic sauce."
    )
    clips = [
        CaptionRecord("s", i, 10.0 * i, 10.0 * i + 10.0, text)
        for i, text in enumerate(
            [
                "The person cleans fish.",
                said,
                "The person mixes fish in garlic sauce.",
                "The person mixes rice.",
            ]
        )
    ]
    act = run_length.act_of("The person mixes fish in garlic sauce.")
    found = stretches(clips, lambda clause: run_length.alike(run_length.act_of(clause), act))
    assert [(s.t0, s.t1) for s in found] == [(10.0, 30.0)]
    assert run_length.asks_length("how long was I at it?") and not run_length.asks_length(
        "how long ago was that?"
    )
    assert which_time("how long did I spend pressing the dough flat near the end?") == "last"
    assert which_time("how long was I kneading near the beginning?") == "first"
    assert which_time("when did I start the onion?") == "first"  # anything done to it, the earliest
    assert question_focus("did I microwave it on full power at the end?") == "microwave it on full power"


def test_a_yes_is_told_with_the_first_time_of_the_act(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # stirred at 0:30 and again from 3:30: a person recalls the first time, whichever ranks higher
    said = _ask(stream, tmp_path, "did I stir the potatoes?", capsys)
    assert said.startswith("Yes. At 0:30 you added diced potato to pan, then stirred diced potato"), said


def test_and_after_that_is_past_the_stretch_of_the_act_told(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _ask(stream, tmp_path, "when did I heat the meat?", capsys)
    assert "heated meat" in said, said
    # eleven clips heat the meat: the next act is the hand washing at the stretch's end
    said = _ask(stream, tmp_path, "and after that?", capsys, "--continue")
    assert said.startswith("Right after that: at 3:10 you heated meat on a skillet, then washed hands"), said


def test_a_pronoun_after_a_what_next_answer_is_that_answer_s_thing() -> None:
    from edge_assist.answers.conversation import FollowUp, Turn
    from edge_assist.answers.follow_ups import _pointed
    from edge_assist.retrieval.api import Moment

    juice = Moment("s", 10, 2510.0, 2520.0, "The person presses out juice from lime.", 0.8)
    q = "what did I do right after cutting up the carrot?"
    after = Turn(q, q, "Right after that: ...", 0.0, "s", None, juice)
    asked = _pointed("and did I salt it?", FollowUp("pointer", "did I salt it?"), after)
    assert asked.question == "did I salt the lime?"
    # an answer to "when" tells the question's own act: "it" is still the question's thing
    cut = Moment("s", 8, 2490.0, 2500.0, "The person cuts carrot.", 0.8)
    when = Turn("when did I cut the carrot?", "when did I cut the carrot?", "At ...", 0.0, "s", None, cut)
    assert (
        _pointed("did I salt it?", FollowUp("pointer", "did I salt it?"), when).question
        == "did I salt the carrot?"
    )


def test_what_was_done_with_a_thing_is_every_act_on_it_in_time_order(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _ask(stream, tmp_path, "what did I do with the meat?", capsys)
    acts = ("heated meat", "adjusted the meat", "flipped the meat")
    heated, adjusted, flipped = (said.find(w) for w in acts)
    assert said.startswith("At 1:20 you heated meat") and 0 < adjusted < flipped, said
    assert heated == said.rfind("heated meat"), said  # eleven clips of one heating: told once
    # asked by a pronoun after a question about the meat: the same answer
    _ask(stream, tmp_path, "did I flip the meat?", capsys)
    again = _ask(stream, tmp_path, "what did I do with it?", capsys, "--continue")
    assert again.startswith("At 1:20 you heated meat"), again
