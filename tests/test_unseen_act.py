"""An act never told on a thing memory shows earns a "No" only when no caption could have told it
in words we miss: every clip naming the thing tells other acts we know, no word of them is a
form of the act, and the act told elsewhere is on other things, never on "it" or a bowl's
contents."""

from __future__ import annotations

import pytest

from edge_assist.answers import unseen_act
from edge_assist.answers.order import Found, Ordered
from edge_assist.answers.order_from_clips import first_unseen
from edge_assist.clock import RealClock
from edge_assist.inference.base import TextEncoder
from edge_assist.memory.api import CaptionRecord
from edge_assist.retrieval.api import Moment
from tests.moments import clips as _clips

AVOCADO = _clips(
    "I'm grabbing one ripe avocado.",
    "Into fine slices, I'm slicing avocado.",
    "To the basin, I'm putting in a quarter mug mayonnaise.",
    "I laid avocado slices on each leaf.",
)


def test_an_act_no_clip_tells_on_a_thing_shown_is_unseen() -> None:
    act = unseen_act.unseen_act("peel the avocado", AVOCADO)
    assert act is not None and (act.verb, act.thing) == ("peel", "avocado")
    assert [c.clip_index for c in act.showing] == [0, 1, 3]
    # told in the same words or in another word of the act: seen
    assert unseen_act.unseen_act("slice the avocado", AVOCADO) is None
    assert unseen_act.unseen_act("chop the avocado", AVOCADO) is None
    # a thing no clip names is the other earned No's (answers/earned_no.py), not this one's
    assert unseen_act.unseen_act("peel the banana", AVOCADO) is None


def test_general_verbs_and_tools_are_never_shown_unseen() -> None:
    assert unseen_act.unseen_act("add the avocado", AVOCADO) is None
    assert unseen_act.unseen_act("use the avocado", AVOCADO) is None
    assert unseen_act.unseen_act("make the avocado", AVOCADO) is None
    knife = _clips("I'm slicing the bread with a knife.")
    assert unseen_act.unseen_act("wash the knife", knife) is None


def test_a_caption_that_may_tell_the_act_in_other_words_keeps_the_no_unsaid() -> None:
    # a verb no family knows may be the act in words the families lack
    assert unseen_act.unseen_act("peel the avocado", [*AVOCADO, *_clips("I'm frobbing the avocado.")]) is None
    # the act as a state of the thing: "mashed avocado" was mashed
    mashed = _clips("I'm grabbing one ripe avocado.", "I'm spooning the mashed avocado onto the toast.")
    assert unseen_act.unseen_act("mash the avocado", mashed) is None
    # the act on a bowl's contents, which may hold the thing
    blended = [*AVOCADO, *_clips("I'm blending the stuff of the basin.")]
    assert unseen_act.unseen_act("mash the avocado", blended) is None
    # the act on another thing it names is that thing's
    other = [*AVOCADO, *_clips("I'm peeling the onion.")]
    assert unseen_act.unseen_act("peel the avocado", other) is not None


@pytest.mark.slow
async def test_the_no_is_earned_only_when_no_word_where_the_thing_is_shown_is_near_the_verb(
    text_encoder: TextEncoder,
) -> None:
    act, why = await unseen_act.earned(RealClock(), text_encoder, "peel the avocado", AVOCADO)
    assert act is not None and act.said == "peel" and why.startswith("earned"), why
    # a peeler where the avocado is shown may tell the peeling in words no act family holds
    peeler = _clips(*(c.text for c in AVOCADO[:3]), "With a peeler, I'm slicing the avocado.")
    act, why = await unseen_act.earned(RealClock(), text_encoder, "peel the avocado", peeler)
    assert act is None and "near" in why, why


@pytest.mark.slow
async def test_an_order_whose_first_act_never_happened_is_a_no(text_encoder: TextEncoder) -> None:
    clock, asked = RealClock(), Ordered("peel the avocado", "before", "add the mayonnaise")
    nothing = Found([], [], [])
    told = await first_unseen(asked, nothing, AVOCADO, 120.0, clock, text_encoder)
    assert told is not None
    text, moments = told
    assert text.startswith("No: at 1:30 you laid avocado slices"), text
    assert "didn't see you peel the avocado" in text
    assert [m.clip_index for m in moments] == [3]
    # which came first has no yes or no; memory with a gap covers nothing
    first = Ordered("peel the avocado", "first", "add the mayonnaise")
    assert await first_unseen(first, nothing, AVOCADO, 120.0, clock, text_encoder) is None
    gap = [*AVOCADO[:2], CaptionRecord("s", 9, 600.0, 620.0, "I laid avocado slices on each leaf.")]
    assert await first_unseen(asked, nothing, gap, 620.0, clock, text_encoder) is None


@pytest.mark.slow
async def test_an_order_whose_first_thing_memory_never_shows_is_a_no(text_encoder: TextEncoder) -> None:
    clock = RealClock()
    ranked = Found([], [], [Moment.of_clip(c) for c in reversed(AVOCADO)])
    asked = Ordered("add the basil", "before", "add the mayonnaise")
    told = await first_unseen(asked, ranked, AVOCADO, 120.0, clock, text_encoder)
    assert told is not None
    text, moments = told
    assert text.endswith("but I didn't see you add the basil."), text
    assert len(moments) == 1 and moments[0].clip_index in {c.clip_index for c in AVOCADO}
    after = Ordered("add the basil", "after", "add the mayonnaise")
    assert await first_unseen(after, ranked, AVOCADO, 120.0, clock, text_encoder) is not None
    # the thing shown, in its own words or in others, earns nothing of its own
    shown = Ordered("add the avocado", "before", "add the mayonnaise")
    assert await first_unseen(shown, ranked, AVOCADO, 120.0, clock, text_encoder) is None
    coriander = _clips("I'm chopping fresh coriander.", "To the basin, I'm putting in some mayonnaise.")
    other_words = Ordered("add the cilantro", "before", "add the mayonnaise")
    near = Found([], [], [Moment.of_clip(c) for c in coriander])
    assert await first_unseen(other_words, near, coriander, 60.0, clock, text_encoder) is None
