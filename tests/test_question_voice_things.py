"""Questions that ask which thing, or which of a kind, was used, and a thing asked about in a
vessel: "was the cheese parmesan?" asks whether parmesan was used, "any fruit on the plate?"
whether fruit was put there. Rules only, no model."""

from __future__ import annotations

from edge_assist.text.question_voice import as_wearers


def test_any_thing_in_a_vessel_keeps_the_vessel_in_a_food_it_does_not() -> None:
    assert as_wearers("any fruit on the plate with them?") == "did I add fruit on the plate?"
    assert as_wearers("any milk in the big mug?") == "did I add milk in the big mug?"
    # the tuna is in a dish under whatever name: asked as adding the sauce
    assert as_wearers("is there any hot sauce in the tuna?") == "did I add hot sauce?"
    # in an appliance that acts on what is in it, the thing was put there: "fish in the oven" bakes it
    assert as_wearers("was there fish in the oven at some point?") == "did I put fish in the oven?"
    assert as_wearers("any sugar in it?") == "did I add sugar?"


def test_which_thing_or_which_of_a_kind_is_asked_as_using_it() -> None:
    assert as_wearers("was the cheese parmesan?") == "did I use parmesan cheese?"
    assert as_wearers("was it whole milk?") == "did I use whole milk?"
    assert as_wearers("were the onions red?") == "did I use red onions?"
    # no food, or no kind of the thing: left as said
    assert as_wearers("was it hot?") == "was it hot?"
    assert as_wearers("was the pan hot?") == "was the pan hot?"
