"""A yes/no question asking for more of a thing than memory's moments tell earns a "No"."""

from __future__ import annotations

from edge_assist.answers import counted_no
from tests.moments import at as _at
from tests.moments import clips as _clips

SHALLOT = _clips(
    "Now I am cutting up one shallot.",
    "I tossed in diced shallot to the skillet.",
    "To a serving dish, I'm shifting the contents of the skillet (shallot, garlic).",
)


def test_fewer_than_asked_is_a_no_said_with_the_moment() -> None:
    said = counted_no.count_no("chop up two shallots", _at(SHALLOT, 0), SHALLOT)
    assert said == "No: at 0:00 you were cutting up one shallot (one, not two)."
    # as many as asked, or no count asked: the "Yes" stands
    assert counted_no.count_no("chop up one shallot", _at(SHALLOT, 0), SHALLOT) is None
    assert counted_no.count_no("chop up the shallot", _at(SHALLOT, 0), SHALLOT) is None


def test_counts_add_up_over_the_moments_of_the_act() -> None:
    eggs = _clips("I'm cracking one egg into the bowl.", "Now I crack one egg into the bowl.")
    assert counted_no.count_no("crack two eggs", _at(eggs, 0), eggs) is None
    assert counted_no.count_no("crack three eggs", _at(eggs, 0), eggs) == (
        "No: at 0:00 you were cracking one egg into the bowl. At 0:30 you cracked one egg into the"
        " bowl (two, not three)."
    )


def test_more_of_the_thing_without_a_number_keeps_the_no_unsaid() -> None:
    for more in (
        "I'm cracking the other egg into the bowl.",
        "Now I crack eggs into the bowl.",  # the act asked, the thing in the plural
    ):
        eggs = _clips("I'm cracking one egg into the bowl.", more)
        assert counted_no.count_no("crack two eggs", _at(eggs, 0), eggs) is None, more
    # the plural said by another act is not more of the act asked ("slices of tomatoes")
    tomato = _clips(
        "Into chunky slices, I'm carving one tomato.",
        "On a platter, I'm setting the chunky slices of tomatoes.",
    )
    said = counted_no.count_no("slice two tomatoes up", _at(tomato, 0), tomato)
    assert said is not None and said.startswith("No: at 0:00") and "(one, not two)" in said
    # for "use", every act on the thing is the act asked
    eggs = _clips("In the basin, I'm opening one egg.", "Slowly, I'm emptying the whisked eggs in the pan.")
    assert counted_no.count_no("use two eggs", _at(eggs, 0), eggs) is None


def test_the_no_rests_on_the_moment_the_yes_did() -> None:
    # the moment the grounded answer chose tells no count of the thing
    assert counted_no.count_no("chop up two shallots", _at(SHALLOT, 1), SHALLOT) is None
