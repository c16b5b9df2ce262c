"""Where a thing was cooked: an appliance asked otherwise than seen is a "No" with what was seen."""

from __future__ import annotations

from edge_assist.answers import contradicted
from edge_assist.answers.appliances import appliance_difference, told, without_appliance


def test_an_appliance_asked_otherwise_than_told_differs() -> None:
    got = appliance_difference("cook the egg on the hob", "Now I am zapping the egg for thirty secs.")
    assert got is not None and (got.expected, got.observed) == ("hob", "microwave")
    got = contradicted.difference("bake it in the oven", "Now I am nuking the mug for one min.")
    assert got is not None and got.kind == "appliance"


def test_a_pan_is_on_the_hob_and_a_safe_dish_is_no_use_of_the_microwave() -> None:
    assert appliance_difference("cook the egg on the hob", "Frying the egg in the pan.") is None
    assert told("To a microwave-safe dish, I am tossing in an egg.") == []
    assert told("I portioned out baking soda to the cup.") == []
    # a caption that tells no appliance says nothing of where
    assert appliance_difference("cook the egg on the hob", "I beat the egg.") is None


def test_the_act_is_looked_up_without_its_appliance() -> None:
    assert without_appliance("cook the egg on the hob") == "cook the egg"
    assert contradicted.without_setting("heat the milk in the microwave") == "heat the milk"
