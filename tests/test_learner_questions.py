"""Questions in a learner's English, or with the helping verb speech-to-text dropped, said plain."""

from __future__ import annotations

import pytest

from edge_assist.answers.order import parse as order_parse
from edge_assist.text.spoken_questions import plain


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("how many spoon of sugar I used?", "how much sugar did I use?"),
        ("how many egg I broke for the omelette?", "how many egg did I break for the omelette?"),
        ("how thick i cut the tomato?", "how thick did I cut the tomato?"),
        ("when I added the salt?", "when did I add the salt?"),
        ("what I did after the salt?", "what did I do after the salt?"),
        ("the cup, I have oiled it before the egg?", "did I oil the cup before the egg?"),
        ("the strawberry, I have washed it before cutting?", "did I wash the strawberry before cutting?"),
        ("the capsicum, how long it was zapped?", "how long was the capsicum zapped?"),
        ("did i give it a stir before the last heat", "did i stir it before the last heat"),
        ("I gave the eggs a quick whisk, right?", "I whisked the eggs, right?"),
        ("I gave the dough a bit of a massage, right?", "I massaged the dough, right?"),
        ("any hot sauce go on the plate", "did any hot sauce go on the plate"),
        ("baking powder how much did i bung in?", "how much baking powder did i bung in?"),
        ("how much of the capsicum did i use", "how much capsicum did i use"),
        ("the first go in the microwave how long was it", "how long was the first go in the microwave"),
    ],
)
def test_a_learners_question_is_said_plain(said: str, asked: str) -> None:
    assert plain(said) == asked


@pytest.mark.parametrize(
    "question",
    [
        "how much sugar did I use?",
        "when did I add the salt?",
        "how many pancakes did I make?",
        "what did I do after the salt?",
        "how much of it did I use?",
        "did I give the dog a bone?",
    ],
)
def test_a_plain_question_is_left_as_it_is(question: str) -> None:
    assert plain(question) == question


def test_an_act_named_as_a_noun_is_the_second_act_of_an_order_question() -> None:
    first_zap = order_parse("did i stir it before the first zap")
    assert first_zap is not None and (first_zap.second, first_zap.second_which) == ("zap", "first")
    last = order_parse("did I stir it before the last go in the microwave")
    assert last is not None and (last.second, last.second_which) == ("microwave", "last")
    # a thing is not an act: "the first egg" is what was added
    egg = order_parse("did I add the salt before the first egg")
    assert egg is not None and egg.second_which == ""


def test_a_time_of_an_act_told_by_its_noun_never_earns_a_no() -> None:
    import asyncio

    from edge_assist.answers.order import Found, answer
    from edge_assist.retrieval.api import Moment

    stir = Moment("s", 4, 286.0, 315.0, "Mix the contents of the mug", 0.6)
    heat = Moment("s", 1, 47.0, 170.0, "Microwave the contents of the mug for 2 minutes", 0.6)

    async def find(focus: str) -> Found:
        # the later heating was not found: the one found is not shown to be the last
        return Found([stir], [stir]) if focus.startswith("stir") else Found([heat], [heat])

    asked = order_parse("did i stir it before the last heat")
    assert asked is not None
    assert asyncio.run(answer(asked, find)) is None
    after = order_parse("did i stir it after the last heat")
    assert after is not None
    said = asyncio.run(answer(after, find))
    assert said is not None and said[0].startswith("Yes")
