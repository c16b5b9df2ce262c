"""A yes/no question naming an amount memory tells otherwise earns a "No"; an amount that is one
moment's or their sum, a range, or a moment with no amount keeps it unsaid."""

from __future__ import annotations

from edge_assist.answers.measured_no import amount_no, asked_amount
from edge_assist.retrieval.api import CaptionRecord
from tests.moments import at as _at
from tests.moments import clips


def _clips(*texts: str) -> list[CaptionRecord]:
    return clips(*texts, every=60.0)


MUG = _clips(
    "I poured one egg in the ramekin mug.",
    "Now I am nuking the ramekin mug uncovered on full power for twenty secs.",
    "I topped mug with two tbsp of salsa.",
    "For ten more secs, I'm continuing to microwave.",
    "Till cheese plus egg cooked melts, around thirty secs, I'm microwaving the mug.",
)


def _no(focus: str, at: int) -> str | None:
    asked = asked_amount(focus)
    assert asked is not None, focus
    told = amount_no(asked, _at(MUG, at), MUG)
    return None if told is None else told[0]


def test_another_amount_than_the_moment_told_is_a_no_said_with_it() -> None:
    assert _no("add three tablespoons of salsa", 2) == (
        "No: at 2:00 you topped mug with two tbsp of salsa (two tbsp, not three tablespoons)."
    )
    # the first time is the earliest moment, whichever the "Yes" rested on
    asked = asked_amount("microwave it for a minute the first time")
    assert asked is not None
    said = amount_no(asked, _at(MUG, 4), MUG)
    assert said is not None and said[0].endswith("(twenty secs, not a minute).") and said[1].clip_index == 1


def test_the_amount_of_one_moment_or_of_all_of_them_keeps_the_yes() -> None:
    assert _no("add 2 tablespoons of salsa", 2) is None  # "two tbsp", in other words
    assert _no("microwave the mug for thirty seconds", 4) is None  # one round of three
    assert _no("microwave the mug for a minute", 4) is None  # twenty, ten and thirty seconds


def test_no_amount_or_another_act_is_no_no() -> None:
    assert asked_amount("crack two eggs") is None  # a count: answers/counted_no.py
    assert asked_amount("add the salsa") is None
    ranged = _clips("I microwave the mug for 15-30 seconds.")
    asked = asked_amount("microwave the mug for a minute")
    assert asked is not None and amount_no(asked, _at(ranged, 0), ranged) is None
