"""English words, once: verb forms, number words and the stop-word sets built on one base."""

from __future__ import annotations

import pytest

from edge_assist.answers.periods import NUMBERS
from edge_assist.reasoning.answer_text import content_words as answer_words
from edge_assist.retrieval.paths import query_terms
from edge_assist.tasks.details import parse_number
from edge_assist.tasks.tracker import content_words as step_words
from edge_assist.text import numbers, stop_words
from edge_assist.text.verb_forms import IRREGULAR_PAST, base_of_third_person, is_verb, past_tense


@pytest.mark.parametrize(
    ("verb", "past"),
    [
        ("stop", "stopped"),
        ("open", "opened"),
        ("fry", "fried"),
        ("place", "placed"),
        ("take", "took"),
        ("mix", "mixed"),
        ("cut", "cut"),
        ("transfer", "transferred"),
    ],
)
def test_past_tense(verb: str, past: str) -> None:
    assert past_tense(verb) == past


def test_third_person_and_caption_verbs() -> None:
    assert [base_of_third_person(w) for w in ("cuts", "fries", "washes", "whisks", "press")] == [
        "cut",
        "fry",
        "wash",
        "whisk",
        "press",
    ]
    assert is_verb("Whisk") and is_verb("take") and not is_verb("muffin")
    assert IRREGULAR_PAST["take"] == "took"


def test_number_words_are_read_by_value_everywhere() -> None:
    assert numbers.spelled(45) == "forty-five" and numbers.spelled(3) == "three"
    with pytest.raises(KeyError):
        numbers.spelled(13)
    # The step details read every number word; a question's days ago only up to a week.
    assert parse_number("two") == 2 and parse_number("ninety") == 90 and parse_number("zero") == 0
    assert parse_number("dozen") == 12 and parse_number("one and a half") == 1.5
    assert NUMBERS == {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def test_every_stop_word_set_leaves_out_the_function_words() -> None:
    for named in (stop_words.STEP_STOP_WORDS, stop_words.QUERY_STOP_WORDS, stop_words.ANSWER_STOP_WORDS):
        assert stop_words.FUNCTION_WORDS <= named
    text = "Where did I put the knife after the English muffin?"
    assert query_terms(text) == ["knife english", "english muffin", "knife", "english", "muffin"]
    assert step_words(text) == ["knife", "english", "muffin"]
    assert answer_words(text) == {"put", "knif", "english", "muffin"}  # "put" is a fact here


def test_each_filter_keeps_its_own_extra_words() -> None:
    # A recipe's generic verbs say nothing of which step it is; a question's "tell me" names no
    # thing; an answer may say "yesterday" without it being a fact the evidence must hold.
    assert step_words("Take the pan and place it on the stove") == ["pan", "stove"]
    assert query_terms("please tell me where the pan is") == ["pan"]
    assert answer_words("Yesterday you saw the pan") == {"pan"}
