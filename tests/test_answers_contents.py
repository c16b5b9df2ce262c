"""A vessel's contents named without naming them ("the contents of the mug") are read with the
things seen going into that vessel before, and only those."""

from __future__ import annotations

from edge_assist.answers import contents, meaning

STREAM = [
    "Fill a microwave-safe cup with milk",
    "Microwave the contents of the cup for 1 minute",
    "Add 1 teaspoon of sugar to the cup",
    "Crack one egg into a bowl",
    "Whisk the contents of the bowl",
    "Pour the mixture from the bowl into the pan",
    "Stir the contents of the pan",
    "Stir the contents of the cup",
]


def test_a_vessels_contents_are_what_went_in_before_and_no_later() -> None:
    read = contents.readings(STREAM)
    assert read[0] is None and read[2] is None and read[3] is None  # no vessel's contents named
    assert read[1] == "Microwave the contents of the cup for 1 minute (milk)."  # the sugar came later
    assert read[4] == "Whisk the contents of the bowl (egg)."
    assert read[6] == "Stir the contents of the pan (egg)."  # poured in from the bowl
    assert read[7] == "Stir the contents of the cup (milk, sugar)."


def test_the_contents_of_a_food_are_the_food_and_an_empty_vessel_reads_as_told() -> None:
    assert contents.vessels_referred("Pour the contents of an egg into the bowl") == []
    assert contents.vessels_referred("whipping the stuff of the dish") == ["dish"]
    assert contents.readings(["Microwave the contents of the mug"]) == [None]


def test_the_reading_lets_a_question_naming_the_thing_meet_the_moment() -> None:
    read = contents.readings(STREAM)[1]
    assert read is not None
    assert meaning.restate("heat the milk", STREAM[1]) is None  # the caption alone names no milk
    assert meaning.restate("heat the milk", read) is not None


def test_what_was_in_the_vessel_already_was_not_put_in_by_the_act_on_it() -> None:
    read = contents.readings(STREAM)[7]
    assert read is not None and contents.as_told(read) == "Stir the contents of the cup"
    added = meaning.read("add the sugar", read)
    assert added.restated is None and added.other_act
    assert meaning.restate("whisk the sugar", read) is not None


def test_describing_words_stop_at_an_amount() -> None:
    assert meaning.restate("add 1/4 tsp salt to bowl", "Add 1 teaspoon salt to the bowl") is None


RINSED = [
    "I rinsed a tomato.",
    "Gently dry it with a paper / tea towel.",
    "Slice it in half.",
    "Rinse the lettuce.",
]


def test_what_it_stands_for_is_the_thing_the_clip_before_named() -> None:
    read = contents.readings(RINSED)
    assert read[0] is None and read[3] is None  # each names its own thing
    assert read[1] == "Gently dry it with a paper / tea towel (tomato)."  # a tea towel is no tea
    assert read[2] == "Slice it in half (tomato)."  # "it" of an "it" is what that one stood for
    assert contents.as_told(read[1]) == RINSED[1].rstrip(".")
    assert meaning.read("add the tomato", read[2]).other_act  # it was there already: not put in now
    # a pronoun whose thing is named in the same caption, or that stands for nothing, reads as told
    assert contents.readings(["Rinse a tomato.", "Put it on the plate with the basil."]) == [None, None]
    assert contents.readings(["Rinse a tomato.", "Make it quick."]) == [None, None]


def test_an_act_that_names_nothing_is_read_as_told() -> None:
    # "nuking for three mins" may heat anything in the microwave: it is not read as the egg
    assert contents.readings(["I beat the egg.", "In between, I'm nuking for three mins, stirring."]) == [
        None,
        None,
    ]
