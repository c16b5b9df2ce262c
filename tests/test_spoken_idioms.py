"""Ways of speaking a question that put its act or its time out of the usual place, said plainly,
and the readings that lean on them: the next act of a kind, a product made of a thing, a part of
a thing, a vessel pointed at by what it holds. Rules only, no model."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

import pytest

from edge_assist.answers import meaning, next_act, thing_history, thing_naming
from edge_assist.answers.contradicted import side_difference
from edge_assist.answers.quantity_question import parse, which_time
from edge_assist.answers.skipped_step import names_step
from edge_assist.memory.api import CaptionRecord
from edge_assist.reasoning.answer_text import question_focus
from edge_assist.tasks.findings import TrackerState
from edge_assist.tasks.guidance import guidance
from edge_assist.tasks.listed import list_task
from edge_assist.tasks.tracker import StepTracker
from edge_assist.text.question_voice import as_wearers


@pytest.mark.parametrize(
    ("asked", "said_as"),
    [
        # a time said first is said where the time of an act is read, or dropped from an order
        ("At the end, did I stir it?", "did I stir it at the end?"),
        (
            "At the end there, did I shake in the pepper before the salt?",
            "did I shake the pepper in before the salt?",
        ),
        ("earlier on, when did I add the salt?", "when did I add the salt?"),
        ("a minute ago, what did I chop?", "what did I chop?"),
        # the particle after the food it puts in; a vessel after "in" is where
        ("did I stir in the cream?", "did I stir the cream in?"),
        ("did I stir in the pan?", "did I stir in the pan?"),
        # a word that names nothing points
        ("Did I roll the thing up at the end?", "Did I roll it up at the end?"),
        ("did I use the whole lot of cheese?", "did I use the whole lot of cheese?"),
        # idioms of the kitchen
        ("did I get some oil going in the pan?", "did I heat some oil in the pan?"),
        ("did I get the rice going?", "did I cook the rice?"),
        ("did I get going on the onions?", "did I get going on the onions?"),
        (
            "Did the chilli hit the pan before the garlic?",
            "did I add the chilli to the pan before the garlic?",
        ),
        ("did the news hit the headlines?", "did the news hit the headlines?"),
        ("what came right after the tomatoes went in", "what did I do right after I added the tomatoes"),
        ("Did the mango get some sugar?", "did I add sugar to the mango?"),
        ("did the pan get hot?", "did the pan get hot?"),
        ("When did the toast come out?", "when did I take the toast out?"),
        ("When did I put the pan on to heat?", "When did I heat the pan?"),
        ("Did I end up mashing it?", "Did I mash it?"),
        ("when did I tip it all out onto the plate?", "when did I put it onto the plate?"),
        ("How long did the washing-up take me?", "How long was I washing the dishes?"),
        ("have I done the dishes yet?", "did I wash the dishes yet?"),
    ],
)
def test_a_question_said_plainly(asked: str, said_as: str) -> None:
    assert as_wearers(asked) == said_as


def test_already_and_yet_are_any_time_of_the_act() -> None:
    assert question_focus("did I beat the eggs already?") == "beat the eggs"
    assert question_focus("did I add the cinnamon by now") == "add the cinnamon"
    assert which_time("how long was I doing the dishes at the very start?") == "first"
    assert which_time("did I stir it at the very end?") == "last"


def test_the_next_act_of_the_kind_asked() -> None:
    assert next_act.asked_act("And what did I add after that?") == "add"
    assert next_act.asked_act("what else did I chop after the onion?") == "chop"
    assert next_act.asked_act("what did I do after that?") is None  # whatever came next
    assert next_act.asked_act("what did I do straight after draining the pasta?") is None


def test_a_product_made_of_a_thing_does_not_name_it() -> None:
    assert thing_naming.thing_in("fish", "The person serves fish soup into a plate.") is None
    assert thing_naming.thing_in("fish", "The person adds fish to soup.") == "fish"
    assert thing_naming.thing_in("peanut", "I spread peanut butter on the bread.") is None
    assert thing_naming.thing_in("vegetable", "I heat the vegetable oil.") is None
    # a sauce is the thing in another form, and a kind of a product names it
    assert thing_naming.thing_in("tomato", "I poured tomato sauce on the pizza.") == "tomato"
    assert thing_naming.thing_in("hot-sauce", "I am putting in one teaspoon sriracha sauce.") == "sriracha"


def test_a_caption_that_says_a_thing_was_added_tells_any_way_of_adding_it() -> None:
    assert meaning.read("splash some water in", "The person adds water.").restated is not None
    assert (
        meaning.read("salt the soup", "The person adds salt to the soup.").restated == "add salt to the soup"
    )
    assert meaning.read("salt the soup", "The person stirs the soup.").restated is None


def test_the_whole_thing_asked_over_a_part_of_it() -> None:
    d = side_difference("dry the whole tomato off with the towel", "I'm drying half tomato with a tea towel.")
    assert d is not None and (d.expected, d.observed) == ("whole", "half")
    # half a spoon of salt is no part of the tomato; halves of a whole tomato are the whole
    assert side_difference("add the whole tomato", "adding the tomato and half a tsp salt") is None
    assert side_difference("cut the whole tomato in half", "slicing the whole tomato into halves") is None


def test_a_vessel_pointed_at_by_what_it_holds_names_the_step() -> None:
    step = "Microwave the bowl, covered, for 2 minutes"
    assert names_step("nuke the bowl of peppers, covered, for a couple of minutes", step)
    assert not names_step("add a cup of milk", "Add sugar to the cup")  # an amount, no vessel


def test_a_vague_object_of_a_verb_is_no_act() -> None:
    q = parse("how many times did I salt stuff?")
    assert q is not None and "stuff" not in q.action and "stuf" not in q.action


def test_did_i_skip_anything_with_nothing_skipped() -> None:
    task = list_task(
        "tea", "Make tea", ("Fill the kettle", "Boil the water", "Pour the water on the tea bag")
    )
    tracker = cast(StepTracker, SimpleNamespace(task=task))
    ids = [s.id for s in task.steps]

    def state(done: list[str]) -> TrackerState:
        texts = {s.id: s.text for s in task.steps}
        return TrackerState(
            "tea", "Make tea", done[-1], texts[done[-1]], 1.0, 1.0, 0.5, tuple(done), (), 3, step_texts=texts
        )

    # every step done: a "No"
    assert guidance("missed", state(ids), tracker) == "No, nothing: every step of Make tea is done."
    # a last step never done is said, with no "No": asked when the wearer stopped, it was forgotten
    said = guidance("missed", state(ids[:2]), tracker)
    assert said.split()[0] != "No" and said.endswith("Still to do: Pour the water on the tea bag.")


def test_a_thing_of_several_words_is_named_as_said_and_a_word_only_as_a_whole_word() -> None:
    clips = [
        CaptionRecord("s", 0, 0.0, 10.0, "The person gets peanut butter from the fridge."),
        CaptionRecord("s", 1, 10.0, 20.0, "The person flips the pancakes."),
        CaptionRecord("s", 2, 20.0, 30.0, "The person washes the pan."),
    ]
    assert [t.clip.clip_index for t in thing_history.history("peanut butter", clips)] == [0]
    assert [t.clip.clip_index for t in thing_history.history("pan", clips)] == [2]  # no "pan"cakes
