"""Questions said tersely, the thing first, are said as the plain questions they ask; anything
else is left as said."""

from __future__ import annotations

import pytest

from edge_assist.text.question_voice import as_wearers
from edge_assist.text.spoken_questions import plain
from edge_assist.text.terse_questions import is_tag


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("sugar, how much?", "how much sugar did I use?"),
        ("the sweet chilli, how much of that?", "how much sweet chilli did I use?"),
        ("onions: how many did I dice?", "how many onions did i dice?"),
        ("eggs - how many?", "how many eggs did I use?"),
        ("the butter - when?", "when did the butter go in?"),
        ("basil on top: when?", "when did the basil go on top?"),
        ("the pasta: did I drain it before frying?", "did i drain the pasta before frying?"),
        ("kettle - how long did I boil it?", "how long did i boil it in the kettle?"),
        ("pot greased with butter?", "did I grease the pot with butter?"),
        ("chopped nuts sprinkled over?", "did I sprinkle the chopped nuts over?"),
        ("whisked. now what?", "what's next?"),
        ("sauce is thick - what now?", "what's next?"),
        ("soup: did I skip anything?", "did I skip anything?"),
        ("the curry - what did I leave out?", "did I skip anything?"),
        ("potatoes in the oven, how long?", "how long did I bake the potatoes in the oven?"),
        ("stirred it when?", "when did I stir it?"),
        ("don't remember when the garlic went in", "when did the garlic go in"),
        # a setting an act had, the act said by a noun or a bare verb
        ("was the first zap on full power?", "did I zap it on full power the first time?"),
        ("microwave on full power at the end?", "did I microwave it on full power at the end?"),
    ],
)
def test_a_terse_question_is_said_plain(said: str, asked: str) -> None:
    assert plain(said) == asked


@pytest.mark.parametrize(
    "said",
    [
        "salsa or oregano, which went in first?",  # a whole question after the things
        "at the five-minute mark, what was I doing?",  # a time said first, not a thing
        "did I add the salt?",
        "the salt went in first, right?",  # a statement asked back
        "no pepper went in, did it?",
        "when did I add the salt, before or after the pepper?",
        "keys on the table?",  # where a thing is, not a food that went in
        "the oil in the pan hot?",  # more is said than where it went
        "any fruit on the plate?",  # asked of every fruit (text/question_voice.py)
        "was the oven on high?",  # a thing's setting, not an act's
    ],
)
def test_what_is_not_terse_is_left_as_said(said: str) -> None:
    assert plain(said) == said


def test_a_statement_asked_back_keeps_its_statement() -> None:
    assert is_tag("did I") and is_tag("right?") and is_tag("wasn't it") and not is_tag("how much")
    assert as_wearers(plain("I didn't put the paprika in, did I?")) == "did I put the paprika in?"
    assert as_wearers(plain("no pepper went in, did it?")) == "did I add the pepper?"
    assert as_wearers("how long were the carrots boiled?") == "how long did I boil the carrots?"


def test_how_long_a_thing_went_in_is_how_long_it_cooked() -> None:
    assert as_wearers("how long did the pie go in for?") == "how long did I cook the pie?"
    assert as_wearers("how long was the bread in?") == "how long did I cook the bread?"
    assert as_wearers("did I toast the bread first thing?") == "did I toast the bread?"


def test_two_things_in_order_with_no_verb_ask_the_order() -> None:
    assert plain("Salt, then the black pepper?") == "did I add the salt before the black pepper?"
    assert plain("tomatoes after the mozzarella?") == "did I add the tomatoes after the mozzarella?"
    assert plain("the pan, then what?") == "the pan, then what?"
    assert plain("butter then sugar then eggs") == "butter then sugar then eggs"
    # a statement asked back, not a thing and its participle (question_voice.py)
    assert plain("The eggs are whisked?") == "The eggs are whisked?"
