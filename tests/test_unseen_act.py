"""An act never told on a thing memory shows earns a "No" only when no caption could have told it
in words we miss: every clip naming the thing tells other acts we know, no word of them is a
form of the act, and the act told elsewhere is on other things, never on "it" or a bowl's
contents."""

from __future__ import annotations

import numpy as np

from edge_assist.answers import unseen_act
from edge_assist.answers.order import Ordered
from edge_assist.answers.order_from_clips import first_unseen
from edge_assist.memory.api import CaptionRecord


def _clips(*texts: str) -> list[CaptionRecord]:
    return [CaptionRecord("s", i, 30.0 * i, 30.0 * i + 25.0, t) for i, t in enumerate(texts)]


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


def test_the_asked_verb_near_a_word_where_the_thing_is_shown_keeps_the_no_unsaid() -> None:
    words = ["peel", "the", "avocado"]
    focus = (words, np.eye(3, 8, dtype=np.float32))
    far = (["slicing", "avocado"], np.eye(2, 8, k=4, dtype=np.float32))
    assert unseen_act.near_verb("peel", "avocado", focus, [far]) == 0.0
    near = (["skinning", "avocado"], np.eye(2, 8, dtype=np.float32))
    assert unseen_act.near_verb("peel", "avocado", focus, [near]) == 1.0
    assert unseen_act.near_verb("peel", "avocado", None, [far]) == 1.0  # no word vectors: not shown absent


def test_an_order_whose_first_act_never_happened_is_a_no() -> None:
    asked = Ordered("peel the avocado", "before", "add the mayonnaise")
    told = first_unseen(asked, AVOCADO, 120.0)
    assert told is not None
    text, moments = told
    assert (
        text.startswith("No: at 1:30 you laid avocado slices") and "didn't see you peel the avocado" in text
    )
    assert [m.clip_index for m in moments] == [3]
    # which came first has no yes or no; memory with a gap covers nothing
    assert first_unseen(Ordered("peel the avocado", "first", "add the mayonnaise"), AVOCADO, 120.0) is None
    gap = [*AVOCADO[:2], CaptionRecord("s", 9, 600.0, 620.0, "I laid avocado slices on each leaf.")]
    assert first_unseen(asked, gap, 620.0) is None
