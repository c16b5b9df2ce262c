"""Questions about a vessel filled, a thing left open, general words and "once": a piping bag is
refilled by collecting dough in it, "cut open a bag" is cutting it, "some stuff" is the items a
captioner saw, and "what did I do once X?" asks for what came after X."""

from __future__ import annotations

from edge_assist.answers import meaning
from edge_assist.reasoning.answer_text import question_focus, question_kind
from edge_assist.text.verb_forms import base_of_third_person

COLLECTS = "The person collects jalebi dough in the piping bag."
MOLDS = "The person molds the jalebi dough into desired shape with a piping bag."


def test_a_vessel_is_refilled_by_putting_something_in_it() -> None:
    for focus in ("top up the piping bag", "refill the piping bag", "filling the bag"):
        reading = meaning.read(focus, COLLECTS)
        assert reading.restated is not None and "collects" in reading.restated
        assert not reading.as_place
    # shaping dough with the bag puts nothing in it
    assert meaning.read("refill the piping bag", MOLDS).restated is None
    assert meaning.tells_asked_act("load the dishwasher", "I put the plates in the dishwasher")
    # the bag named as a place is no filling of the bowl the dough came from
    assert meaning.read("refill the bowl", COLLECTS).restated is None


def test_what_an_act_leaves_its_thing_as_need_not_be_said() -> None:
    assert meaning.read("cut open a plastic bag", "The person cuts nylon bag.").restated == "cut a bag"
    said = meaning.read("cut open the bag", "The person cuts the bag open.")
    assert said.restated is None or "open" in said.restated


def test_general_words_for_things_and_people() -> None:
    reading = meaning.read("sort some stuff out", "The person organizes items.")
    assert reading.restated is not None and "items" in reading.restated
    assert meaning.read("hand the plate to the guy", "The person gives plate to man.").restated is not None
    # another thing is still another thing
    assert meaning.read("sort the spoons", "The person organizes items.").restated is None


def test_a_verb_in_z_keeps_its_e() -> None:
    words = ["organizes", "freezes", "squeezes", "buzzes", "mixes", "fixes"]
    assert [base_of_third_person(w) for w in words] == ["organize", "freeze", "squeeze", "buzz", "mix", "fix"]
    assert meaning.tells("squeeze", "The person squeezes lemon into the bowl.")


def test_once_and_as_soon_as_ask_for_what_came_after() -> None:
    q = "What did I do once the veggie dish was on the table?"
    assert question_kind(q) == "after" and question_focus(q) == "the veggie dish was on the table"
    assert question_kind("What did I do as soon as I got home?") == "after"
    # "once" alone is one time, not a moment after
    assert question_kind("What did I only add once?") == "what"


def test_which_time_words_are_not_part_of_the_act() -> None:
    assert question_focus("When did I last refill the piping bag?") == "refill the piping bag"
    assert question_focus("When did I first add salt?") == "add salt"
    assert question_focus("When was the last time I stirred the soup?") == "stirred the soup"


def test_a_thing_carried_somewhere_is_put_there() -> None:
    placed = "The person places dished tofu on dining table."
    reading = meaning.read("take the tofu over to the table", placed)
    assert reading.restated is not None and reading.restated.startswith("places the tofu")
    # taking it, with no place to take it to, is another act
    assert meaning.read("take the tofu", placed).restated is None


def test_a_length_bounded_by_a_refill_ends_where_the_vessel_is_filled() -> None:
    from edge_assist.answers.quantity_question import bounded, parse
    from edge_assist.memory.api import CaptionRecord

    q = parse("How long was I piping before I first had to refill the bag?")
    assert q is not None and q.bound == ("before", "refill") and q.bound_words == "refill the bag"
    texts = ["The person pipes pastry mix into a pattern."] * 3 + [COLLECTS] + [MOLDS]
    clips = [CaptionRecord("s", i, 10.0 * i, 10.0 * i + 10.0, t) for i, t in enumerate(texts)]
    assert [c.clip_index for c in bounded(q, clips)] == [0, 1, 2]


def test_a_kitchen_surface_is_the_counter() -> None:
    reading = meaning.read("brush down the counter", "The person brushes kitchen surface.")
    assert reading.restated is not None and "surface" in reading.restated
    assert meaning.read("brush down the counter", "The person brushes the pan surface.").restated is None


def test_how_long_i_was_at_it_with_a_thing_is_its_stretch() -> None:
    from edge_assist.answers import quantities
    from edge_assist.answers.quantity_question import parse
    from edge_assist.memory.api import CaptionRecord

    q = parse("How long was I at it with the jalebi altogether?")
    clips = [CaptionRecord("s", i, 10.0 * i, 10.0 * i + 10.0, MOLDS) for i in range(5)]
    span = quantities._span(q, clips) if q is not None else None
    assert span is not None and span[0].startswith("About 50 seconds, from 0:00 to 0:50")


def test_follow_ups_that_ask_another_time_or_point_to_a_place() -> None:
    from edge_assist.answers.conversation import FollowUp, Turn, follow_up
    from edge_assist.answers.follow_up_kinds import from_kind
    from edge_assist.answers.follow_ups import _of_time, _pointed
    from edge_assist.answers.run_length import chosen_clause
    from edge_assist.retrieval.api import Moment

    assert follow_up("When was the last time?") == FollowUp("occurrence", "last")
    hands = Turn("Did I wash my hands?", "Did I wash my hands?", "Yes. ...", 0.0, "s")
    assert (
        _of_time(FollowUp("occurrence", "last"), hands, when=True).question
        == "when did I wash my hands the last time?"
    )
    # the model's "after" stands only when the words say a time next to the last one
    assert from_kind("after", "and then?", "") == FollowUp("after")
    assert from_kind("after", "what did I sort out in there?", "") is None
    fridge = Moment("s", 1, 2600.0, 2610.0, "The person organizes a bowl in the fridge.", 0.5)
    at = Turn("When was I at the fridge?", "When was I at the fridge?", "At ...", 0.0, "s", None, fridge)
    asked = _pointed(
        "what did I sort out in there?", FollowUp("pointer", "what did I sort out in there?"), at
    )
    assert asked.question == "what did I sort out in the fridge?"
    # the clause that tells the asked act is the one measured, not the one with most words
    both = "The person washes the chopping board with water, then dries the chopping board with towel."
    assert chosen_clause(both, "dry the chopping board after") == "dries the chopping board with towel."
