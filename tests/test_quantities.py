"""Quantities and counts from the numbers and units in captions: "how many eggs did I use?",
"how long did I microwave the egg at first?" (the earliest moment), totals over several
moments, and "I don't remember" when no caption names the thing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.answers.quantities import matches
from edge_assist.answers.quantity_question import bounded, parse
from edge_assist.cli import main
from edge_assist.memory.api import CaptionRecord
from edge_assist.reasoning.answer_text import content_words
from tests.clip_level import CLIP_LEVEL_ARGS, DEMO


def test_a_quantity_question_is_read_for_its_dimension_thing_and_moment() -> None:
    q = parse("How many eggs did I use?")
    assert q is not None and (q.dims, q.thing, q.action, q.which) == (("count",), {"egg"}, frozenset(), "all")
    q = parse("how long did I microwave the egg at first?")
    microwave = content_words("microwave")  # words are compared by their stems
    assert q is not None and (q.dims, q.thing, q.action, q.which) == (("time",), {"egg"}, microwave, "first")
    q = parse("how many cups of water did I pour?")
    assert q is not None and (q.dims, q.thing) == (("volume",), {"water"})
    q = parse("how many times did I stir it the last time?")
    assert q is not None and q.times and q.which == "last"
    q = parse("how much flour went in?")
    assert q is not None and (q.thing, q.action) == ({"flour"}, frozenset())
    q = parse("how much balsamic?")  # said short: the thing's use
    assert q is not None and (q.thing, q.action) == ({"balsamic"}, frozenset())
    assert parse("how much of it?") is None and parse("how many times?") is None  # follow-ups
    q = parse("how long was the bowl in the microwave the first time?")
    assert q is not None and (q.thing, q.action, q.which) == ({"bowl"}, microwave, "first")
    q = parse("how long did the pancakes cook before I flipped them?")  # not the flipping
    assert q is not None and q.action == content_words("cook") and q.bound == ("before", "flip")
    clips = [
        CaptionRecord("s", 0, 0.0, 10.0, "Cook for 2 minutes"),
        CaptionRecord("s", 1, 10.0, 20.0, "Flip the pancakes with a fork"),
        CaptionRecord("s", 2, 20.0, 30.0, "Cook for 20-30 seconds more"),
    ]
    assert [c.clip_index for c in bounded(q, clips)] == [0]  # the cooking after the flip is not counted
    # a thing's going in bounds it too: "once they were in the pan" is after the eggs went in
    q = parse("how long did I keep stirring the eggs once they were in the pan?")
    assert q is not None and (q.bound, q.bound_thing) == (("after", "add"), "egg")
    clips = [
        CaptionRecord("s", 0, 0.0, 10.0, "Frying for one min, mixing everything."),
        CaptionRecord("s", 1, 10.0, 20.0, "Slowly, I'm emptying the whisked eggs in the pan."),
        CaptionRecord("s", 2, 20.0, 30.0, "Now I am mixing with a turner for three mins."),
    ]
    assert [c.clip_index for c in bounded(q, clips)] == [2]
    q = parse("how long did I cook it after the shallot went in?")  # the cooking it got then
    assert q is not None and (q.bound_thing, q.which) == ("shallot", "first")
    # The act by its meaning: another verb of the same act, or the appliance it was in.
    q = parse("how long did I nuke the egg the second time?")
    assert q is not None and (q.verbs, q.which) == (("nuke",), "second")
    q = parse("how long was the first round in the microwave?")
    assert q is not None and (q.verbs, q.thing, q.which) == (("microwave",), frozenset(), "first")
    assert parse("how long ago was that?") is None
    assert parse("when did I add the salt?") is None


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("demo")
    assert main(["memory", "ingest", str(DEMO), "--set", f"general.data_dir={data}", *CLIP_LEVEL_ARGS]) == 0
    return data


@pytest.mark.slow  # memory and answers use the offline text encoder
@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("question", "said", "stage"),
    [
        # "Pour 1 egg into the ramekin cup" at 0:01
        ("how many eggs did I use?", "1 egg. At 0:01 you poured 1 egg into the ramekin cup.", "quantities"),
        # The first of three times in the microwave, not the 2:44 "15-30 more seconds"
        (
            "how long did I microwave the egg at first?",
            "30 seconds. At 1:27 you microwaved the ramekin cup uncovered on high for 30 seconds.",
            "quantities",
        ),
        (
            "how long did I microwave it?",
            "55-70 seconds in all. At 1:27 you microwaved the ramekin cup uncovered on high for 30 seconds. "
            "At 2:44",
            "quantities",
        ),
        ("how much cheese did I sprinkle?", "1 tablespoon. At 4:16 you sprinkled", "quantities"),
        ("how many times did I microwave it?", "3 times: at 1:27, 2:44, 4:47.", "quantities"),
        # Other words for the act ("zap", "heat up"), and the appliance named instead of the act
        ("how long did I zap the egg at first?", "30 seconds. At 1:27", "quantities"),
        ("how long did I heat it up the second time?", "15-30 more seconds. At 2:44", "quantities"),
        ("how long was it in the microwave the first time?", "30 seconds. At 1:27", "quantities"),
        # Nothing names salt: no number is made up.
        ("how much salt did I add?", "I don't remember you doing that.", "quantities"),
    ],
)
def test_quantities_over_the_demo_memory(
    demo_dir: Path, capsys: pytest.CaptureFixture[str], question: str, said: str, stage: str
) -> None:
    capsys.readouterr()
    assert main(["ask", question, "--json", "--set", f"general.data_dir={demo_dir}", *CLIP_LEVEL_ARGS]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["answer"].startswith(said) and out["stage"] == stage


# Cheese melted in a mug, then the pepper in a basin microwaved as "the dish".
MICROWAVED = [
    CaptionRecord(
        "s", 0, 40.0, 76.0, "To a microwave-safe cup, I'm tipping in a third of a mug cheddar cheese."
    ),
    CaptionRecord("s", 1, 260.0, 314.0, "I liquefied the cheese by microwaving mug for thirty sec."),
    CaptionRecord("s", 2, 321.0, 339.0, "I put the diced pepper in the microwave-safe basin."),
    CaptionRecord("s", 3, 350.0, 520.0, "I zapped the dish, covered, for two mins."),
]


def test_a_dish_safe_for_the_microwave_is_no_use_of_it() -> None:
    from edge_assist.answers.quantities import matches

    q = parse("how many times did I use the microwave?")
    assert q is not None
    found, _ = matches(q, MICROWAVED)
    assert [f.moment.t0 for f in found] == [260.0, 350.0]


def test_an_amount_asked_of_one_vessel_and_a_thing_said_with_a_or_an() -> None:
    from edge_assist.answers.quantities import matches
    from edge_assist.retrieval.api import CaptionRecord

    clips = [
        CaptionRecord("s", 0, 2.0, 36.0, "To a microwave-safe basin, I'm tossing in stuff of an egg."),
        CaptionRecord("s", 1, 215.0, 230.0, "To the dish, I'm tipping in a third of a teaspoon salt."),
        CaptionRecord("s", 2, 753.0, 770.0, "To the skillet, I'm tipping in a third of a teaspoon salt."),
    ]
    q = parse("how much salt did I put in the pan?")
    assert q is not None and q.place == "pan"
    assert [f.moment.t0 for f in matches(q, clips)[0]] == [753.0]  # a skillet is a pan
    q = parse("how many eggs went in?")
    assert q is not None
    found, _ = matches(q, clips)
    assert [(f.moment.t0, f.amounts[0].value) for f in found] == [(2.0, 1.0)]


def test_times_of_an_act_are_counted_by_its_verbs_not_by_names_of_things() -> None:
    from edge_assist.answers.quantities import tells_act

    q = parse("how many times did I microwave it?")
    assert q is not None
    assert not tells_act(q, "Now I am covering a ramekin mug with cooking spray.")  # a spray, no cooking
    assert tells_act(q, "Now I am continuing to microwave for thirty more secs.")
    q = parse("how many times did I stir it?")
    assert q is not None
    assert not tells_act(q, "To the cup, I'm tossing in one tbsp of olive oil.")  # tossing in adds
    assert tells_act(q, "In the cup thoroughly, I'm swirling the stuff.")
    q = parse("how long did I melt the cheese for?")
    assert q is not None
    assert tells_act(q, "For ten sec, I'm softening the cheese by microwaving mug.")  # a mug microwaved


def test_times_in_an_appliance_are_its_acts_however_told() -> None:
    q = parse("how many times did it go in the microwave altogether?")
    assert q is not None and q.times and q.place == ""
    clips = [
        CaptionRecord("s", 0, 0.0, 10.0, "I kept on to microwave for thirty more seconds."),
        CaptionRecord("s", 1, 10.0, 20.0, "Till cheese melts, around ten secs, I'm nuking the cup."),
    ]
    found, _ = matches(q, clips)
    assert [f.moment.clip_index for f in found] == [0, 1]
    q = parse("how much salt did I put in the pan?")
    assert q is not None and q.place == "pan"  # a pan is where it went, not only an act


def test_a_count_of_an_act_counts_the_moments_that_tell_it() -> None:
    from edge_assist.answers.quantities import matches

    clips = [
        CaptionRecord("s", 0, 10.0, 40.0, "Wash a tomato"),
        CaptionRecord("s", 1, 60.0, 160.0, "Slice one tomato into thin slices"),
    ]
    asked = parse("how many tomatoes did I slice?")
    assert asked is not None
    assert [f.moment.clip_index for f in matches(asked, clips)[0]] == [1]  # not the washing
    used = parse("how many tomatoes did I use?")
    assert used is not None and len(matches(used, clips)[0]) == 2  # "use" names no act


def test_how_long_a_thing_was_heated_is_how_long_its_vessel_was() -> None:
    from edge_assist.answers.quantities import _with_contents, compose, matches

    q = parse("how long did I zap the red pepper bits?")
    assert q is not None
    # the dish is the basin the pepper went into under another name; the cheese's mug is not it
    found, _ = matches(q, _with_contents(MICROWAVED))
    assert [f.moment.clip_index for f in found] == [3]
    assert compose(q, found)[0].startswith("two mins.")
    # read as told, every microwaving adds up
    assert len(matches(q, MICROWAVED)[0]) == 2


def test_a_moment_that_goes_on_with_the_act_and_names_nothing_adds_to_the_thing_s_time() -> None:
    from edge_assist.answers.quantities import compose

    clips = [
        CaptionRecord(
            "s", 0, 95.0, 180.0, "Now I am nuking the ramekin mug uncovered on full power for twenty secs."
        ),
        CaptionRecord("s", 1, 393.0, 430.0, "For ten more secs, I'm continuing to microwave."),
        CaptionRecord(
            "s", 2, 481.0, 580.0, "Till cheese plus egg cooked melts, around thirty secs, I'm microwaving."
        ),
        CaptionRecord("s", 3, 600.0, 620.0, "I microwave the bacon on a plate for 45 seconds."),
    ]
    q = parse("how long was the mug in the microwave in total?")
    assert q is not None
    found, _ = matches(q, clips)
    assert [f.moment.clip_index for f in found] == [0, 1]  # the bacon's plate is another thing
    assert compose(q, found)[0].startswith("30 secs in all.")
    # before the thing was first named, a moment naming nothing is no part of it
    q = parse("how long did I microwave the bacon?")
    assert q is not None and [f.moment.clip_index for f in matches(q, clips)[0]] == [3]


def test_how_long_an_act_was_done_in_a_pan_times_that_act_not_the_cooking() -> None:
    clips = [
        CaptionRecord(
            "s",
            0,
            1233.0,
            1265.0,
            "For one and a half min or till the tomatoes soften, I'm heating through covered.",
        ),
        CaptionRecord(
            "s", 1, 1265.0, 1300.0, "For one and a half min or till the tomatoes soften, I'm cooking covered."
        ),
        CaptionRecord(
            "s",
            2,
            1385.0,
            1554.0,
            "I'm keeping mixing with a spatula for less than three mins or till the eggs are almost cooked.",
        ),
    ]
    q = parse("how long did I stir the eggs around in the pan?")
    assert q is not None and q.verbs == ("stir",)
    assert [f.moment.clip_index for f in matches(q, clips)[0]] == [2]
    # with no act said, the pan's act is the one timed
    q = parse("how long were the tomatoes in the pan?")
    assert q is not None and "cook" in q.verbs
