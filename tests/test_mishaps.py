"""A question about a spill or a burn is answered from the captions that tell one, in their words."""

from __future__ import annotations

from edge_assist.answers import mishaps
from edge_assist.retrieval.api import CaptionRecord
from tests.moments import clips as _clips

DAY = _clips(
    "To a microwave-safe dish, I'm pulling out and tipping in contents of an egg.",
    "I'm nuking for one and a half mins.",
    "In the dish, but some of them splash outside, I'm scattering oregano.",
    "Now I am frying the mushrooms, stirring often, careful not to burn them.",
)


def test_the_questions_people_ask_after_a_mishap_are_read() -> None:
    for q in (
        "did I spill anything?",
        "did anything spill?",
        "did the milk boil over?",
        "did some of the dried herb end up outside the bowl?",
        "did I make a mess?",
        "did I knock the glass over?",
    ):
        asked = mishaps.parse(q)
        assert asked is not None and asked.family == "spill", q
    assert mishaps.parse("did anything catch and burn on the hob?") == mishaps.Asked("burn", ())
    assert mishaps.parse("did some of the dried herb end up outside the bowl?") == mishaps.Asked(
        "spill", ("herb",)
    )
    # putting in or over is no mishap, nor is a question that does not ask whether
    for q in (
        "did i splash any water in",
        "did I tip it over the pasta?",
        "was the burner on?",
        "how much did I spill?",
    ):
        assert mishaps.parse(q) is None, q


def test_a_mishap_avoided_or_asked_for_is_none() -> None:
    assert mishaps.tells("spill", "The milk boils over onto the hob.")
    assert mishaps.tells("spill", "some rice falls on the counter")
    assert mishaps.tells("burn", "The toast is burnt.")
    assert not mishaps.tells("spill", "Pour the batter without spilling.")
    assert not mishaps.tells("burn", "Heat until golden, careful not to burn it.")
    assert not mishaps.tells("burn", "Sprinkle smoked paprika over the burner.")
    assert not mishaps.tells("spill", "tipping the sauce over the pasta")


def test_yes_with_the_moment_no_only_when_nothing_of_the_kind_was_told() -> None:
    said = mishaps.answer(mishaps.Asked("spill", ("herb",)), DAY, before_t=200.0)
    assert said is not None and said[0].startswith("Yes. At 1:00") and said[1] is DAY[2]
    # nothing burnt: the frying said it was kept from burning, and memory covers the session
    assert mishaps.answer(mishaps.Asked("burn", ()), DAY, before_t=200.0) == (
        "No, I didn't see anything burn.",
        None,
    )
    # a spill of something else is told: whether the milk spilled is left to the answer gate
    assert mishaps.answer(mishaps.Asked("spill", ("milk",)), DAY, before_t=200.0) is None
    # memory that does not cover the session says nothing was seen, not that nothing happened
    gap = [DAY[0], CaptionRecord("s", 9, 600.0, 620.0, "Frying the mushrooms.")]
    assert mishaps.answer(mishaps.Asked("burn", ()), gap, before_t=630.0) is None
