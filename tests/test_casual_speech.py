"""Casual speech said in full before a question is read: run-together words, a thought said
aloud first, a reason after, a thing named before a dash, terse "X in?" questions."""

from __future__ import annotations

import pytest

from edge_assist.answers import appliances, cooking_method, forgot, substituted
from edge_assist.answers.earned_no import another_of_its_kind
from edge_assist.answers.follow_up_kinds import from_kind
from edge_assist.answers.run_length import chosen_clause
from edge_assist.retrieval.api import Moment
from edge_assist.tasks.session import _asked_parts
from edge_assist.text.casual_speech import said_in_full
from edge_assist.text.question_voice import as_wearers
from edge_assist.text.spoken_questions import plain


def heard(question: str) -> str:
    return as_wearers(plain(question))


@pytest.mark.parametrize(
    "said, meant",
    [
        ("d'ya know how much baking powder I put in", "how much baking powder did I add"),
        (
            "which'd I do first, chop the onion or open the tuna?",
            "which did I do first, chop the onion or open the tuna?",
        ),
        ("how long'd that take me?", "how long did that take me?"),
        ("lemme think... how long was I chopping the onion", "how long was I chopping the onion"),
        (
            "how many lil pancakes did I pour out, gonna need to know if there's enough for everyone",
            "how many little pancakes did I pour out",
        ),
        ("have I got the noodles going yet or nah?", "did I cook the noodles yet?"),
        ("did I turn the extractor on, I can never remember", "did I turn the extractor on"),
        ("the egg -- it went on top of the lettuce, right?", "did I add the egg on top of the lettuce?"),
        ("the eggs -- I boiled 'em, yeah?", "did I boil the eggs?"),
        ("did I -- the garlic, did that go in?", "did I add the garlic?"),
        ("broccoli in?", "did I add the broccoli?"),
        ("the gas off?", "did I turn the gas off?"),
        (
            "squirted some ketchup on top at the end, didn't I?",
            "did I squirt some ketchup on top at the end?",
        ),
        (
            "so after I'd served the soup up, what was the next thing I did?",
            "what did I do after I'd served the soup up?",
        ),
        (
            "once the noodles were done boiling what'd I do with 'em straight after?",
            "what did I do after the noodles were done boiling?",
        ),
        (
            "ok so remind me when the noodles actually went in the pot",
            "when did I add the noodles in the pot",
        ),
    ],
)
def test_casual_questions_are_read_as_said_plainly(said: str, meant: str) -> None:
    assert heard(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "did I add salt?",
        "how much milk did I pour",
        "when did I chop the onion, and why?",
        "what is in the bowl?",
    ],
)
def test_plain_questions_pass_through(said: str) -> None:
    assert said_in_full(said) == said


@pytest.mark.parametrize(
    "said, meant",
    [
        ("uh did I get the tuna open yet", "did I open the tuna yet"),
        (
            "I chopped the onion before I got the skillet heating, right?",
            "did I chop the onion before i first heated the skillet?",
        ),
        (
            "did I put a lid on it when the tomatoes were going?",
            "did I cover it when the tomatoes were going?",
        ),
        (
            "how long was I pushing the onions round the pan?",
            "how long was I stirring the onions in the pan?",
        ),
        ("was I on my phone while I was cooking?", "was I on my phone?"),
        ("how long did it take me to dish it all up", "how long was I dishing it all up"),
        (
            "chilli or garlic, which one went in the pan first?",
            "chilli or garlic, which one went in the pan first?",
        ),
    ],
)
def test_everyday_idioms_are_said_as_captions_tell_them(said: str, meant: str) -> None:
    assert heard(said) == meant


def test_a_time_said_is_not_what_now() -> None:
    # "now" after "just" says when; it does not ask "what now?"
    assert _asked_parts("how many mushrooms did I wash just now") == [
        "how many mushrooms did i wash just now"
    ]
    assert len(_asked_parts("ok the egg's out of the microwave, now what")) > 1


def test_the_unit_of_the_last_answer_asks_its_amount() -> None:
    follow = from_kind("amount", "how many cloves was that", "when did I add the garlic?")
    assert follow is not None and follow.kind == "amount"
    assert from_kind("amount", "how much sriracha did I add?", "when did I add the garlic?") is None


def test_another_of_a_kind_is_not_the_thing_said_otherwise() -> None:
    assert another_of_its_kind("blueberry", "strawberry")
    assert not another_of_its_kind("berry", "strawberry")  # a kind covering it
    assert not another_of_its_kind("mayo", "mayonnaise")  # another name of it
    assert not another_of_its_kind("blueberry", "pancake")  # no kind holds both


def test_a_medium_named_as_a_thing_tells_no_method() -> None:
    assert cooking_method.told("The person stir-fries beef, then checks boiling water.") == {"fried": "fried"}
    assert cooking_method.told("adds noodles to boiling water") == {"boiled": "in boiling water"}
    assert cooking_method.told("The person turns egg into frying pan.") == {"fried": "in frying pan"}
    assert cooking_method.cooked("boil the egg") == "cook the egg"


def test_a_substitution_told_answers_for_the_replaced_thing() -> None:
    told = [
        Moment(
            "s",
            0,
            2.0,
            52.0,
            "With cooking spray, I'm coating a big microwavable mug instead of ramekin cup.",
            1.0,
        ),
        Moment("s", 1, 53.0, 145.0, "Into the ramekin mug, I'm tipping two eggs.", 1.0),
    ]
    assert substituted.substitution("use the little ramekin for the egg", told) is told[0]
    assert substituted.substitution("use a big mug", told) is None  # the thing used instead
    assert substituted.substitution("spray the cup first", told) is None  # "cup" alone is the mug too
    assert substituted.substitution("use cooking spray", told) is None


def test_leaving_it_out_said_as_the_other_choice_turns_the_answer() -> None:
    assert forgot.inner("did I salt the cucumber or did i forget?") == "did I salt the cucumber?"
    assert forgot.inner("did I add salt or not") is None


def test_a_cooker_of_its_own_is_no_pot_on_the_hob() -> None:
    said = "The person scoops rice into a bowl from the rice cooker, then seasons cooked rice."
    d = appliances.appliance_difference("cook the rice in a pot on the stove", said)
    assert d is not None and (d.expected, d.observed) == ("pot", "rice cooker")
    assert appliances.appliance_difference("cook the rice in the rice cooker", said) is None


def test_the_clause_that_names_the_thing_asked_is_the_one_answered() -> None:
    said = "The person serves sliced carrot on plate, then garnishes dish with cherries."
    assert chosen_clause(said, "add the cherries on the plate") == "garnishes dish with cherries."


@pytest.mark.parametrize(
    "said, meant",
    [
        ("when did I chuck the noodles in the water", "when did I add the noodles to the water"),
        ("did I pop it in the microwave", "did I pop it in the microwave"),
        (
            "what'd I do right after the onions came out the pan?",
            "what did I do right after the onions came out of the pan?",
        ),
    ],
)
def test_things_chucked_in_are_added(said: str, meant: str) -> None:
    assert heard(said) == meant
