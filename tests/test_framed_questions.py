"""A question said inside a frame (a hedge, a doubt, a chance, a witness, "we") is read as the
plain question it asks: the kind of question, and the act and thing to look up."""

from __future__ import annotations

import pytest

from edge_assist.answers import forgot
from edge_assist.reasoning.answer_text import question_kind
from edge_assist.text.framed_questions import unframed
from edge_assist.text.question_voice import as_wearers
from edge_assist.text.spoken_questions import plain


def read(said: str) -> str:
    """As the answerer reads a question: speech taken away, the wearer as subject, "forgot" turned."""
    q = as_wearers(plain(said))
    return forgot.inner(q) or q


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("i think i washed the tomatoes, did i?", "did I wash the tomatoes?"),
        ("I'm pretty sure I took the pan off the heat, am I right?", "did I take the pan off the heat?"),
        ("would I have added sugar to the tea?", "did I add sugar to the tea?"),
        ("remind me, did I turn the burner off", "did I turn the burner off"),
        ("yes or no, did I use the whisk", "did I use the whisk"),
        ("any chance I left the fridge open?", "did I leave the fridge open?"),
        ("honestly did I stir it at all", "did I stir it"),
        ("have we added the milk yet", "did I add the milk yet"),
        ("didn't I already cut the bread?", "did I already cut the bread?"),
        ("is it true that I microwaved it twice?", "did I microwave it twice?"),
        ("you saw me put the spinach in, right?", "did I put the spinach in?"),
        ("did I or did I not add the vanilla", "did I add the vanilla"),
        ("wait, the butter, did that go in the pan?", "did I add the butter in the pan?"),
        ("cheese on the muffin or not?", "did I add the cheese on the muffin?"),
        # eating and drinking said as having, and a thing made for oneself
        ("did I have something to drink?", "did I drink something?"),
        ("have I had a bite to eat yet?", "did I eat something yet?"),
        ("did I make myself a coffee?", "did I make a coffee?"),
        # "once I'd done it" is after it
        ("did I add salt once I'd drained the pasta?", "did I add salt after I drained the pasta?"),
        # what one had to do was done
        ("did I have to top up the piping bag?", "did I top up the piping bag?"),
    ],
)
def test_a_framed_yes_no_question_asks_whether_it_was_done(said: str, asked: str) -> None:
    assert read(said) == asked
    assert question_kind(read(said)) == "yesno"


def test_could_i_have_forgotten_asks_whether_it_was_done() -> None:
    said = read("could I have forgotten the baking powder?")
    assert question_kind(said) == "yesno"
    assert "baking powder" in said and "forgot" not in said


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("roughly when did the onions go in?", "when did I add the onions?"),
        ("at what point did I flip the pancake?", "when did I flip the pancake?"),
        ("how long ago did I turn the oven on?", "when did I turn the oven on?"),
        ("what time was it when I put the kettle on?", "when did I put the kettle on?"),
        ("when exactly did I start chopping the carrots", "when did I start chopping the carrots"),
        ("remind me, when did I crack the eggs?", "when did I crack the eggs?"),
        ("when would I have put the butter in?", "when did I put the butter in?"),
        ("I forgot when I took the chicken out, when was it?", "when did I take the chicken out?"),
        ("after adding the salt, what did I do next?", "what did I do after adding the salt?"),
        ("once the butter melted, what did I do?", "what did I do after the butter melted?"),
        # done with an act: after its last time
        ("what did I do once I was done stir-frying?", "what did I do after I finally stir-frying?"),
        ("what did I do after I'd finished with the dough?", "what did I do after I finally the dough?"),
    ],
)
def test_a_time_asked_in_a_frame_is_asked_plainly(said: str, asked: str) -> None:
    assert read(said) == asked


@pytest.mark.parametrize(
    "question",
    [
        "did I add the salt?",
        "should I have added salt?",  # advice, not memory
        "is the oven still on?",
        "after that, what did I do?",  # leans on the last answer
        "remind me when I first put it in the microwave",  # a frame the spoken reader turns itself
        "what did I do right after I chopped the onion?",
    ],
)
def test_what_has_no_frame_is_left_to_the_other_readers(question: str) -> None:
    assert unframed(question) is None
