"""A thing asked about is named by a caption in other words: a vessel by another of its names, a
plate by the verb that serves on it, an appliance by the verb only it does."""

from __future__ import annotations

from edge_assist.answers import anchored, meaning, thing_naming
from edge_assist.tasks.word_kinds import OTHER


def test_a_vessel_asked_by_another_of_its_names_and_an_appliance_its_verb_tells() -> None:
    zapped = "For two minutes, I'm microwaving the dish, covered."
    assert thing_naming.thing_in("bowl", zapped) == "dish"
    assert thing_naming.thing_in("bowl", "Now I am putting the mug in the microwave.") is None
    assert meaning.restate("cover the bowl in the microwave", zapped) == "cover the dish"
    assert meaning.restate("cover the bowl on the hob", zapped) is None  # another appliance
    assert meaning.restate("cook the egg in the microwave", zapped) is None  # no egg there


def test_a_plate_is_named_by_plating_up_and_a_ramekin_is_a_little_dish() -> None:
    plated = "I plated up the pancakes with diced strawberries."
    assert thing_naming.thing_in("plate", plated) == "plated"
    assert thing_naming.thing_in("bowl", plated) is None
    assert (
        meaning.restate("put the strawberries on the plate", plated) == "plated the strawberries on the plate"
    )
    sprayed = "With cooking spray, I'm covering a six - oz. ramekin mug."
    assert meaning.restate("spray the little dish", sprayed) is not None


def test_a_vessel_of_the_question_is_said_by_the_captions_name_for_it() -> None:
    salted = "To the basin, I'm tossing in a third of a teaspoon salt."
    assert meaning.restate("salt the eggs in the bowl", salted) == "tossing salt in the basin"
    assert meaning.restate("add salt to the mug", salted) is None  # a mug is no basin


def test_a_vessel_alone_anchors_no_question_whose_thing_the_caption_does_not_name() -> None:
    salt = "To the dish, I'm adding a quarter tsp salt."
    # "red" and "bits" read as the asker's own words: what is left, the bowl, is where anything went
    assert (
        anchored.anchor(
            "add the little red bits into the bowl", salt, act_needed=False, kind_of=lambda w: OTHER
        )
        is None
    )
    assert (
        anchored.anchor("add the salt into the bowl", salt, act_needed=False, kind_of=lambda w: OTHER)
        is not None
    )
