"""How small a thing was cut: a size asked otherwise than seen is a "No" with what was seen."""

from __future__ import annotations

from edge_assist.answers import contradicted
from edge_assist.answers.cut_size import says_size, size_difference, without_size

LARGE = "Now I am dicing a quarter red bell pepper in large bits."


def test_a_size_of_the_pieces_asked_otherwise_than_seen_differs() -> None:
    got = size_difference("cut the bell pepper into tiny pieces", LARGE)
    assert got is not None and (got.expected, got.observed) == ("tiny", "large")
    got = size_difference("cut the tomato in half", "I chopped tomato into some small bits.")
    assert got is not None and (got.expected, got.observed) == ("half", "small")


def test_a_size_not_of_the_pieces_or_said_alike_is_no_difference() -> None:
    assert size_difference("cut the tomato in half", "I cut the tomato in half.") is None
    assert size_difference("cut the pepper into small pieces", "Dicing the pepper finely.") is None
    # a large onion is the onion's size, not the cut's
    assert size_difference("chop the onion finely", "Chopping a large onion.") is None
    assert says_size("Dicing the pepper finely.", "tiny")


def test_the_act_is_looked_up_without_its_size() -> None:
    assert without_size("cut the bell pepper into tiny pieces") == "cut the bell pepper"
    assert without_size("chop the onion finely") == "chop the onion"
    assert contradicted.without_setting("cut the tomato in half") == "cut the tomato"
