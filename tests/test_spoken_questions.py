"""A question as speech-to-text writes it, said as the plain question it asks."""

from __future__ import annotations

import pytest

from edge_assist.text.spoken_questions import plain


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("uh did i put the uh the garlic in yet", "did i put the garlic in yet"),
        ("um, when did I add the cheese?", "when did I add the cheese?"),
        ("did i did i add salt", "did i add salt"),
        ("did I put the, did I add the garlic?", "did I add the garlic?"),
        ("did I put the - did I add the garlic", "did I add the garlic"),
        ("erm so like, did I add sugar", "did I add sugar"),
        ("remind me when I put the oven on", "when did I put the oven on"),
        ("I can't remember if I salted this", "did I salt this"),
        ("tell me how much milk I poured", "how much milk did I pour"),
        ("can you remind me how long I microwaved it?", "how long did I microwave it?"),
        ("do you know whether the oven is still on?", "is the oven still on?"),
        ("I forgot whether I added the vanilla", "did I add the vanilla"),
        ("remind me what I did after cracking the eggs", "what did I do after cracking the eggs"),
        ("any idea where I put the lid", "where did I put the lid"),
        ("remind me when i first put it in the microwave", "when did I first put it in the microwave"),
        ("the fruit i cut up did it go on the plate", "did the fruit go on the plate"),
        ("the eggs, when did they go in?", "when did the eggs go in?"),
        ("my keys where did I put them", "where did I put my keys"),
    ],
)
def test_what_speech_adds_is_taken_away(said: str, asked: str) -> None:
    assert plain(said) == asked


@pytest.mark.parametrize(
    "question",
    ["did I add the cheese?", "umbrella in the hall?", "what did I add after the eggs?", "Ahmed's bowl"],
)
def test_a_plain_question_is_left_as_asked(question: str) -> None:
    assert plain(question) == question


async def test_the_first_or_the_last_time_asked_is_the_earliest_or_the_latest_moment() -> None:
    from edge_assist.answers import choice
    from edge_assist.retrieval.api import Moment

    early = Moment("s", 1, 60.0, 90.0, "Microwaving the mug for one minute.", 0.8)
    late = Moment("s", 4, 300.0, 330.0, "Microwaving the mug for thirty more seconds.", 0.8)
    none: object = None  # no model is asked when the question names the time
    for question, expected in (
        ("when did I first put it in the microwave?", early),
        ("when did I microwave it the last time?", late),
    ):
        trace: dict[str, object] = {}
        got = await choice.choose(none, none, question, [late, early], [late, early], 0.0, {}, trace)  # type: ignore[arg-type]
        assert got is expected, trace


def test_what_kind_of_a_thing_asks_which_one_was_used() -> None:
    from edge_assist.text.question_voice import as_wearers

    assert as_wearers("what kind of cheese was it") == "what cheese did I use"
    assert as_wearers("what type of oil did I use?") == "what oil did I use?"


def test_what_the_wearer_tells_before_asking_is_left_out() -> None:
    assert plain("I'm lactose intolerant, was there milk in the eggs?") == "was there milk in the eggs?"
    assert plain("thinking back to the pizza, did I add cheese?") == "did I add cheese?"
    # a bare "any" asks about the thing told first
    assert (
        plain("my friend doesn't eat fish, was there any in the wraps?") == "was there any fish in the wraps?"
    )
    # a time told first stays with the question
    assert plain("the first time, did I stir it?") == "did I stir it the first time?"
    # a thing named first is what is asked about
    assert plain("salsa or oregano, which went in first?") == "salsa or oregano, which went in first?"
    assert plain("and the egg, is that in yet?") == "and the egg, is that in yet?"
    # a question in two parts is left as said
    assert plain("did I add salt, pepper or both?") == "did I add salt, pepper or both?"


def test_a_procedure_question_may_name_its_task_or_tell_something_first() -> None:
    from edge_assist.tasks.session import _asked_parts

    assert "did i skip anything" in _asked_parts("did I skip anything on the mug pizza?")
    assert "what's next" in _asked_parts("egg's beaten, what's next?")
    assert _asked_parts("what's next") == ["what's next"]
    assert _asked_parts("what did I do with the English muffin?") == [
        "what did i do with the english muffin?"
    ]


def test_contractions_written_without_the_apostrophe_are_read_as_said() -> None:
    assert plain("whats left to do") == "what's left to do"
    assert plain("i didnt add the salt did i") == "i didn't add the salt did i"
    assert plain("what is next?") == "what is next?"


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        # of several sentences, the one that opens and ends as a question
        (
            "I'm not sure I measured it right. How much cheddar did I start with?",
            "How much cheddar did I start with?",
        ),
        (
            "Could you tell me how many mushrooms I rinsed? I meant to do three.",
            "how many mushrooms did I rinse?",
        ),
        ("how much milk did I pour in? three spoons?", "how much milk did I pour in?"),
        (
            "Could you tell me the following step? I'm not sure where I left off.",
            "Could you tell me the following step?",
        ),
        (
            "Sorry, I had to step away. What am I supposed to be doing next?",
            "What am I supposed to be doing next?",
        ),
        (
            "I'm keeping a note for my doctor: how much of the balsamic did I splash in?",
            "how much balsamic did I splash in?",
        ),
        # a question that points back asks about what was told before it
        (
            "I can't remember if I've ever replaced the filter. Have I done that at any point?",
            "did I replace the filter.",
        ),
        # a thing named first, then the asking, is one question
        ("eggs: how many did I whisk?", "how many eggs did i whisk?"),
        ("baking powder: how much", "how much baking powder did I use"),
        # a short form's full stop ends no sentence
        ("What did I coat a 6-oz. ramekin cup with?", "What did I coat a 6-oz. ramekin cup with?"),
        # how the wearer addresses the assistant is left out
        (
            "Did the butter go into the mug before the vanilla, dear?",
            "Did the butter go into the mug before the vanilla?",
        ),
        ("Dear, did I add salt?", "did I add salt?"),
        ("did I add the honey?", "did I add the honey?"),
        ("Read me back what I did right after the microwave.", "what did I do right after the microwave."),
    ],
)
def test_the_question_is_read_out_of_what_was_said(asked: str, said: str) -> None:
    assert plain(asked) == said
