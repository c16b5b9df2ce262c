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
        ("erm so like, did I add sugar", "so did I add sugar"),
        ("remind me when I put the oven on", "when did I put the oven on"),
        ("I can't remember if I salted this", "did I salt this"),
        ("tell me how much milk I poured", "how much milk did I pour"),
        ("can you remind me how long I microwaved it?", "how long did I microwave it?"),
        ("do you know whether the oven is still on?", "is the oven still on?"),
        ("I forgot whether I added the vanilla", "did I add the vanilla"),
        ("remind me what I did after cracking the eggs", "what did I do after cracking the eggs"),
        ("any idea where I put the lid", "where did I put the lid"),
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
