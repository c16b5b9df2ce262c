"""A variety of a thing asked otherwise than memory tells it: "whole milk" over "skimmed milk"."""

from __future__ import annotations

from edge_assist.answers import contradicted, varieties


def test_a_variety_told_otherwise_is_a_difference() -> None:
    d = contradicted.difference("use whole milk", "Pouring one mug of skimmed milk into a pan.")
    assert d is not None and (d.kind, d.expected, d.observed) == ("variety", "whole", "skimmed")
    d = contradicted.difference("add the red pepper", "slicing a green bell pepper")
    assert d is not None and (d.expected, d.observed) == ("red", "green")
    d = contradicted.difference("use semi skimmed milk", "adding skimmed milk")
    assert d is not None and (d.expected, d.observed) == ("semi-skimmed", "skimmed")


def test_no_difference_without_a_variety_said_otherwise() -> None:
    assert contradicted.difference("use brown sugar", "Adding 2 tsp sugar to the mug") is None  # plain
    assert contradicted.difference("add the sugar", "adding white sugar") is None  # none asked
    assert contradicted.difference("use white sugar", "adding granulated sugar") is None  # one variety
    assert contradicted.difference("add the red pepper", "adding red pepper flakes") is None
    assert contradicted.difference("use whole milk", "adding organic milk") is None  # a word of its own
    assert not varieties.differ("skim", "fat-free")
    assert varieties.differ("brown", "white")


def test_the_act_is_looked_up_without_the_variety() -> None:
    assert contradicted.without_setting("use whole milk") == "use milk"
    assert contradicted.without_setting("use semi-skimmed milk") == "use milk"


def test_a_captioner_s_moderate_heat_is_medium() -> None:
    d = contradicted.difference("heat the pan on high", "warming the oil in the skillet on moderate heat")
    assert d is not None and (d.kind, d.expected, d.observed) == ("setting", "high", "medium")


def test_what_a_pan_is_made_of_is_a_variety() -> None:
    steel = "In a steel frying skillet on top of low-medium heat, I am melting butter"
    got = varieties.variety_difference("use non-stick pan", "pan", steel)
    assert got is not None and (got.expected, got.observed) == ("non-stick", "steel")
    assert varieties.variety_difference("use a stainless steel pan", "pan", steel) is None


def test_was_it_a_thing_asks_whether_it_was_used() -> None:
    from edge_assist.text.question_voice import as_wearers

    assert as_wearers("was it full-fat milk in the hot chocolate?") == "did I use full-fat milk?"
    assert as_wearers("was that a non-stick pan I used?") == "did I use non-stick pan?"
    assert as_wearers("was it hot?") == "was it hot?"


def test_another_member_of_the_asked_things_kind_is_a_difference() -> None:
    from edge_assist.answers import varieties

    said = varieties.sibling_difference("cheddar", "scattering one tbsp of mozzarella cheese on top")
    assert said is not None and (said.expected, said.observed) == ("cheddar", "mozzarella")
    assert varieties.sibling_difference("cheddar", "sprinkle cheddar cheese") is None  # named as asked
    assert varieties.sibling_difference("cheese", "sprinkle mozzarella") is None  # the kind itself
    assert varieties.sibling_difference("pepper", "add cumin") is None  # spices are not told apart
