"""Typed details: amounts, durations, settings and temperatures compared by value."""

from __future__ import annotations

import pytest

from edge_assist.tasks.details import parse_details, parse_number, value_differences


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1/2", 0.5),
        ("1 1/2", 1.5),
        ("½", 0.5),
        ("two", 2),
        ("a half", 0.5),
        ("thirty", 30),
        ("2.5", 2.5),
        ("one and a half", 1.5),
        ("one and half", 1.5),
        ("one-half", 0.5),
        ("banana", None),
    ],
)
def test_numbers(text: str, value: float | None) -> None:
    assert parse_number(text) == (pytest.approx(value) if value is not None else None)


def _diff(step: str, caption: str) -> list[str]:
    return [d.kind for d in value_differences(parse_details(step), parse_details(caption))]


def test_same_amount_written_differently_is_not_a_deviation() -> None:
    assert _diff("Add 1 tablespoon of water", "I add one tbsp of water") == []
    assert _diff("Microwave for 1 minute", "microwave it for sixty seconds") == []
    assert _diff("Continue to microwave for 15-30 more seconds", "microwave for 20 more seconds") == []


def test_a_different_amount_duration_setting_or_temperature_is() -> None:
    assert _diff("Add 1 tablespoon of water", "Add 2 tablespoons of water") == ["quantity"]
    assert _diff("Top with 1 tablespoon of salsa", "Top with 1 teaspoon of salsa") == ["quantity"]
    assert _diff("Microwave on high for 30 seconds", "Microwave on high for 60 seconds") == ["duration"]
    assert _diff("Heat the oil on medium heat", "Heat the oil on high heat") == ["setting"]
    assert _diff("Rinse the mushrooms under cold water", "rinse the mushrooms under hot water") == [
        "temperature"
    ]
    assert _diff("Chop 1/4 tomato", "Chop 1/2 tomato") == ["quantity"]


def test_tools_are_the_phrases_after_with_or_using() -> None:
    assert parse_details("Cut the muffin into two pieces with a knife").tools == ("knife",)
    assert parse_details("I'm spreading it using the back of a spoon").tools == ("back of a spoon",)


def test_an_ordinal_fraction_is_the_amount_not_its_article() -> None:
    # "an eighth of a tsp" is 1/8 tsp; reading "a tsp" out of it made a false "A tsp instead of
    # 1/8 teaspoon?" on error-free paraphrased recordings.
    assert _diff("Measure 1/8 teaspoon of salt", "I'm weighing out an eighth of a tsp of salt") == []
    assert _diff("Cut 1/8 garlic clove", "Now I am chopping an eighth of a garlic clove.") == []
    assert _diff("Measure 1/16 teaspoon of baking soda", "I portioned out a sixteenth of a tsp") == []
    assert _diff("Measure 1/8 teaspoon of salt", "I measure a teaspoon of salt") == ["quantity"]
    # Full power is the top setting, as high is.
    assert _diff("Microwave on high for 1 1/2 minutes", "On full power for one and a half mins") == []


def test_a_steps_details_name_tools_and_amounts_once_and_only_as_what_they_are() -> None:
    from edge_assist.tasks.model import make_step

    lever = make_step("lever", "Lever one side of the tyre off the rim with two tyre levers")
    assert lever.details.tools == ("tyre levers",)
    assert "two tyre" not in lever.details.to_json().get("amounts", [])
    pump = make_step("pump", "Pump the tyre to 4 bar", amounts=["4 bar"])
    assert pump.details.to_json()["amounts"] == ["4 bar"]
    assert make_step("rinse", "Rinse the cup with a little hot water").details.tools == ()
    assert make_step("toss", "Toss the chicken with lettuce").details.tools == ()
    assert make_step("spread", "Spread jam with a butter knife").details.tools == ("butter knife",)
    ranged = make_step("cook", "Cook for 15-30 more seconds")
    assert ranged.details.to_json()["amounts"] == ["15-30 more seconds"]
    assert len(ranged.details.amounts) == 2  # still both ends of the range, for comparing


def test_an_amount_said_in_words_and_a_hand_that_holds() -> None:
    assert [a.value for a in parse_details("Now I am nuking for one and half min.").amounts] == [90.0]
    assert [a.value for a in parse_details("one-half cup of sugar").amounts] == [120.0]
    # "with one hand" is how something is held, no count of the step's things.
    assert parse_details("I'm cutting the muffin, holding it with one hand").amounts == ()


def test_a_step_of_several_amounts_compares_each_with_its_own_thing() -> None:
    step = "Mix 1/4 cup sweet-and-sour sauce and 1/2 tsp soy sauce in a small bowl"
    # Half a tablespoon lies between the two amounts, but it is of the soy sauce.
    said = "I blended a quarter cup sweet-and-sour sauce plus half a tbsp soy sauce in a little basin."
    assert [
        (d.expected, d.observed) for d in value_differences(parse_details(step), parse_details(said))
    ] == [("1/2 tsp", "half a tbsp")]
    assert _diff(step, "mixes 1/4 cup sweet-and-sour sauce and 1/2 tsp soy sauce") == []
    # Things the caption does not pair with one of the step's are read against all of them.
    assert _diff(step, "adds 2 tsp of vinegar") == []


def test_things_counted_are_counted_exactly_and_ranges_said_in_words() -> None:
    assert _diff("Take 5 in number broccoli florets", "grabs four in number broccoli florets") == ["quantity"]
    assert _diff("Place 5 meatballs on a plate", "places five meatballs on a plate") == []
    assert _diff("Microwave for 10 seconds", "microwaves for twelve seconds") == []  # a measure is about
    two_three = parse_details("heats it through two to three mins")
    assert [a.value for a in two_three.amounts] == [120.0, 180.0]
    assert _diff("Cook 5 to 6 minutes until the tofu browns", "cooks two to three mins") == ["duration"]
    assert _diff("Return to low heat", "puts it back to moderate heat") == ["setting"]
    assert _diff("Cook over medium heat", "cooks over moderate heat") == []


def test_a_cup_named_as_where_something_is_is_no_amount() -> None:
    assert [a.text for a in parse_details("In a big cup, I softened one tbsp of butter").amounts] == [
        "one tbsp"
    ]
    assert [a.text for a in parse_details("pours a cup of milk into a big cup").amounts] == ["a cup"]
