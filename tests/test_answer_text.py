"""The words of grounded answers: question kinds, second-person past, paging, grammar cuts."""

from __future__ import annotations

import pytest

from edge_assist.outputs.paging import pages
from edge_assist.reasoning import answer_text as at


@pytest.mark.parametrize(
    ("caption", "said"),
    [
        (
            "Cut the English muffin into two pieces with a knife",
            "At 1:40 you cut the English muffin into two pieces with a knife.",
        ),
        ("Stirred ramekin cup with knife", "At 1:40 you stirred ramekin cup with knife."),
        ("I'm rinsing a tomato.", "At 1:40 you were rinsing a tomato."),
        ("Now I am placing aside the lined mug.", "At 1:40 you were placing aside the lined mug."),
        (
            "To the cup, I'm adding two pieces of chocolate.",
            "At 1:40, to the cup, you were adding two pieces of chocolate.",
        ),
        ("I take my knife", "At 1:40 you took your knife."),
        (
            "Measure and add 2 tbsp flour to the mixing bowl",
            "At 1:40 you measured and added 2 tbsp flour to the mixing bowl.",
        ),
        ("The wearer chops an onion on the board", "At 1:40 you chopped an onion on the board."),
        ("A person is washing a pan", "At 1:40 you were washing a pan."),
        ("Pepper to taste", "At 1:40 I saw: pepper to taste."),  # no rule applies: quoted, not guessed
    ],
)
def test_captions_are_told_in_the_second_person_past(caption: str, said: str) -> None:
    assert at.tell(caption, 100.0) == said


def test_times_past_the_first_hour_read_as_hours() -> None:
    # A day of wear runs for hours: an hour and five minutes in is "1:04:50", not "64:50".
    assert at.tell("Put the keys in the blue bowl", 3890.0) == "At 1:04:50 you put the keys in the blue bowl."
    assert at.tell("Put the keys in the blue bowl", 3599.6) == "At 1:00:00 you put the keys in the blue bowl."
    assert at.clip_label(3590.0, 3610.0) == "59:50-1:00:10"
    # and the QA scorer reads them back as the same seconds
    from edge_assist.answers.answer_record import times_in

    assert times_in("At 1:04:50 you put the keys in the blue bowl.") == [3890]
    assert times_in("At 1:40 you cut it (seen at 1:40-1:50).") == [100, 100, 110]


def test_earlier_sessions_say_how_long_ago() -> None:
    assert (
        at.tell("Put the keys in the blue bowl", 12.0, "yesterday")
        == "Yesterday you put the keys in the blue bowl."
    )


@pytest.mark.parametrize(
    ("question", "kind", "focus"),
    [
        ("what did I do with the English muffin?", "what", "do with the English muffin"),
        ("When did I stir the ramekin cup?", "when", "stir the ramekin cup"),
        ("What did I do right after I poured the egg?", "after", "poured the egg"),
        ("did I wash the dishes?", "yesno", "wash the dishes"),
        ("What did I cut the English muffin with?", "with", "cut the English muffin"),
        ("How much salsa did I add?", "howmuch", "salsa add"),
        # a helping verb first asks yes or no of any subject
        ("was the pan hot when the mushrooms went in?", "yesno", "the pan hot when the mushrooms went in"),
        ("Has it been plated up?", "yesno", "it been plated up"),
        ("is the oven on?", "yesno", "the oven on"),
    ],
)
def test_question_kind_and_focus(question: str, kind: str, focus: str) -> None:
    assert at.question_kind(question) == kind
    assert at.question_focus(question) == focus


def test_compose_and_abstain_per_kind() -> None:
    assert at.compose("yesno", "Pour 1 egg into the ramekin cup", 1.4).startswith("Yes. At 0:01 you poured")
    assert (
        at.compose("after", "Stirred ramekin cup with knife", 150.0)
        == "Right after that: at 2:30 you stirred ramekin cup with knife."
    )
    # Not remembering is never a "No": that must be earned (answers/earned_no.py).
    assert at.abstention("yesno") == at.DONT_REMEMBER and at.is_abstention(at.abstention("when"))
    assert not at.is_abstention("At 0:41 you cut the English muffin.")


def test_pages_cut_between_sentences_then_words_never_inside_a_word() -> None:
    text = (
        "At 1:40 you cut the English muffin into two pieces with a knife. Then you stirred the ramekin cup "
        "with a knife and microwaved it for thirty seconds on high power."
    )
    for limit in (20, 35, 60, 110):
        got = pages(text, limit)
        assert all(len(p) <= limit for p in got)
        assert " ".join(got).split() == text.split()  # every word whole, in order
    # Sentences that fit stay whole on their page.
    assert pages("One two. Three four.", 11) == ["One two.", "Three four."]
    assert pages("short", 110) == ["short"] and pages("", 10) == []
    # Only a single word longer than a page is split (hyphenated).
    assert pages("a " + "x" * 25, 10)[1:] == ["xxxxxxxxx-", "xxxxxxxxx-", "xxxxxxx"]


def test_a_field_cut_by_its_grammar_loses_the_cut_word() -> None:
    cut = "The English muffin was stirred with a sh"
    assert at.grammar_cut(cut, len(cut)) == "The English muffin was stirred with a…"
    assert (
        at.grammar_cut("Done. The English muffin was stirred with a sh", 46)
        == "Done. The English muffin was stirred with a…"
    )
    assert at.grammar_cut("Short and whole.", 110) == "Short and whole."
    # A sentence end early in the text is not worth losing the rest for.
    assert (
        at.grammar_cut("Cut the muffin. Then stir the cup with a kn", 43)
        == "Cut the muffin. Then stir the cup with a…"
    )


def test_new_content_words_are_found() -> None:
    composed = "At 0:41 you cut the English muffin into two pieces with a knife."
    assert (
        at.new_content("You cut the English muffin in two pieces with a knife at 0:41.", [composed]) == set()
    )
    assert at.new_content("At 0:41 you buttered the English muffin.", [composed]) == {"butter"}


def test_trace_shows_what_a_grounded_answer_rested_on() -> None:
    from edge_assist.outputs.trace_format import render

    rec = {
        "decision": {
            "decision": "speak",
            "clip_index": 4,
            "t0": 164.0,
            "t1": 194.0,
            "trigger": "query",
            "text": "At 0:41 you cut the English muffin into two pieces with a knife.",
            "latency_s": 0.3,
        },
        "query": "what did I do with the English muffin?",
        "caption": "Continue to Microwave",
        "answer": {
            "answerer": "grounded",
            "kind": "what",
            "focus": "do with the English muffin",
            "outcome": "chosen (the only moment close enough)",
            "candidates": [
                ["s", 1, 40.8, 83.39, 0.79, "Cut the English muffin into two pieces with a knife", 0.87]
            ],
        },
    }
    text = render(rec)
    assert "grounded answer (what; looked up 'do with the English muffin'): chosen" in text
    assert "clip 1 [0:41] cosine 0.79, support 0.87: Cut the English muffin" in text and "pass 2" not in text


def test_a_with_question_over_a_moment_that_names_no_tool_says_the_tool_is_not_known() -> None:
    from edge_assist.reasoning.answer_text import compose, is_abstention

    said = compose("with", "I am unsealing a can of tuna.", 239.0)
    assert said.startswith("At 3:59") and is_abstention(said)
    assert not is_abstention(compose("with", "Cut the muffin with a knife", 20.0))
