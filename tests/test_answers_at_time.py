"""A question that names a time instead of an act is answered by the moment at that time."""

from __future__ import annotations

import math

import pytest

from edge_assist.answers.at_time import Named, covering, named_time
from edge_assist.memory.api import CaptionRecord


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("what was I doing three minutes in?", Named(at=180.0)),
        ("at the ten-minute mark, what was going on?", Named(at=600.0)),
        ("what was I up to at around 90 seconds?", Named(at=90.0)),
        ("what was I doing at 12:05?", Named(at=725.0)),
        ("what did I do at the very beginning?", Named(part="start")),
        ("what was happening near the end?", Named(part="end")),
        ("what was I doing half an hour ago?", Named(ago=1800.0)),
        ("what was I doing halfway through?", Named(part="middle")),
    ],
)
def test_the_time_a_question_names(question: str, named: Named) -> None:
    assert named_time(question) == named


@pytest.mark.parametrize(
    "question",
    [
        "what did I do right after cracking the egg?",  # an act, not a time
        "what did I do for two minutes?",  # a time an act took
        "how long did I stir it?",
        "when did I add the salt?",
    ],
)
def test_a_question_about_an_act_names_no_time(question: str) -> None:
    assert named_time(question) is None


CLIPS = [
    CaptionRecord("s", 0, 0.0, 40.0, "Crack one egg into a bowl"),
    CaptionRecord("s", 1, 40.0, 100.0, "Whisk the egg"),
    CaptionRecord("s", 2, 130.0, 200.0, "Pour the egg into the pan"),
]


def test_the_moment_that_covers_the_time_and_nothing_past_memory() -> None:
    assert covering(CLIPS, Named(at=60.0), math.inf) == CLIPS[1]
    assert covering(CLIPS, Named(at=110.0), math.inf) == CLIPS[1]  # between clips: the one before
    assert covering(CLIPS, Named(at=500.0), math.inf) is None  # past what memory holds
    assert covering(CLIPS, Named(at=150.0), 120.0) is None  # asked before that clip had ended
    assert covering(CLIPS, Named(part="start"), math.inf) == CLIPS[0]
    assert covering(CLIPS, Named(part="end"), math.inf) == CLIPS[2]
    assert covering(CLIPS, Named(ago=100.0), 200.0) == CLIPS[1]  # at 100 s
    assert covering(CLIPS, Named(part="middle"), math.inf) == CLIPS[1]
