"""Follow-up questions: recognised by their form, answered from the last answer within the
conversation's window, and carried across two `edge-assist ask --continue` calls."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, cast

import pytest

from edge_assist.answers.conversation import ABOUT_WHAT, Conversation, FollowUp, Turn, follow_up
from edge_assist.answers.follow_ups import points_to_nothing_said, resolve, with_object
from edge_assist.answers.places import place_in
from edge_assist.cli import main
from edge_assist.clock import RealClock
from edge_assist.retrieval.api import Moment
from edge_assist.text.spoken_questions import plain
from tests.clip_level import CLIP_LEVEL_ARGS, DEMO


@pytest.mark.parametrize(
    ("question", "kind", "obj"),
    [
        ("and after that?", "after", ""),
        ("After that?", "after", ""),
        ("and then?", "after", ""),
        ("what did I do right after that?", "after", ""),
        ("and before that?", "before", ""),
        ("where was that?", "where", ""),
        ("And where?", "where", ""),
        ("how much?", "amount", "much"),
        ("for how long?", "amount", "long"),
        ("what did I do right after?", "after", ""),
        ("how long ago?", "ago", ""),
        ("how long ago was that?", "ago", ""),
        ("when was that?", "ago", ""),
        ("and the salt?", "object", "the salt"),
        ("what about the cheese?", "object", "the cheese"),
        ("And how about the English muffin?", "object", "the english muffin"),
        ("what for?", "purpose", ""),
        ("for what?", "purpose", ""),
        ("and when did they go in the pan?", "pointer", "when did they go in the pan"),
        ("and the last one", "occurrence", "last"),
        ("what about the second time?", "occurrence", "second"),
        ("and the most recent one?", "occurrence", "last"),
        ("what about on the second go", "occurrence", "second"),
        ("and the other time", "occurrence", "other"),
        ("how much of it did I use?", "amount", "much"),
        ("where did they go", "where", "went"),
        ("wait what about the other one", "vague", ""),
        ("with what?", "tool", ""),
        ("and what with?", "tool", ""),
        ("what did I use to flip them?", "tool", "flip"),
        ("what did I do it with?", "tool", ""),
        # an act named as the anchor is a question of its own
        ("And just before the cumin?", "named", "what did I do just before the cumin?"),
        ("and after adding the salt?", "named", "what did I do after adding the salt?"),
    ],
)
def test_a_follow_up_is_known_by_its_form(question: str, kind: str, obj: str) -> None:
    f = follow_up(question)
    assert f is not None and (f.kind, f.obj) == (kind, obj)


@pytest.mark.parametrize(
    "question",
    [
        "what did I do after cutting the muffin?",
        "what's next?",
        "where did I put the salt?",
        "how long did I microwave the egg?",
        "when did I add the salsa?",
        "and did I add the salt?",
        "did I skip anything?",
        "how many eggs did I use?",
        "how long did I cook?",
        "what was I doing before I left?",
        "what did I garnish it with?",
    ],
)
def test_an_ordinary_question_is_never_a_follow_up(question: str) -> None:
    assert follow_up(question) is None


def test_where_things_went_is_where_they_were_put_not_where_they_came_from() -> None:
    said = "From the skillet, I'm scooping the tomatoes."
    assert place_in(said) == "from the skillet"
    assert place_in(said, went=True) is None
    assert place_in("On a serving dish, I'm placing tomatoes.", went=True) == "on the serving dish"


def test_a_pointer_to_nothing_named_and_a_thing_named_then_asked_about() -> None:
    assert follow_up("what about that one?") == FollowUp("vague")
    assert follow_up("what about it?") == FollowUp("vague")
    assert follow_up("and the egg, is that in yet?") == FollowUp("named", "is the egg in yet?")
    assert follow_up("how much did I use?") == FollowUp("amount", "much")


@pytest.mark.parametrize(
    ("question", "points"),
    [
        ("when did I do that?", True),
        ("where did I put it?", True),
        ("how long did it take?", True),
        ("did I do it again?", True),
        ("which one?", True),
        ("and what was it in?", True),
        # It names its act or its thing: about the task's things, answered as it is.
        ("when did I flip them?", False),
        ("did I sweeten it?", False),
        ("is it done?", False),
        ("was that a non-stick pan I used?", False),
        ("how many times did I stir it?", False),
        # No pointing word: a question of its own.
        ("what did I do?", False),
        ("how many times?", False),
        # What is told before it names what it points to.
        ("I think I forgot one step, which one?", False),
    ],
)
def test_a_question_that_only_points_leans_on_something_said_before(question: str, points: bool) -> None:
    assert points_to_nothing_said(question) is points


async def test_a_question_is_read_as_spoken_before_it_is_called_one_that_only_points() -> None:
    async def read(said: str) -> str | None:
        res = await resolve(
            None,
            plain(said),
            at=None,
            recall=cast(Any, None),
            clock=RealClock(),
            before_t=math.inf,
            said=said,
        )
        return res.reply

    # Said plain, the told part goes ("which one?"); it named the missed step.
    assert plain("I think I forgot one step, which one?") == "which one?"
    assert await read("I think I forgot one step, which one?") is None
    assert await read("um when did I do that?") == ABOUT_WHAT


def test_the_last_question_is_asked_again_about_the_new_thing() -> None:
    assert with_object("when did I add the salsa?", "the salt") == "when did I add the salt?"
    assert with_object("how many eggs did I use?", "tomatoes") == "how many tomatoes did I use?"
    assert with_object("did I put the salsa on the cup?", "the cheese") == "did I put the cheese on the cup?"
    # the last question asked with the thing as subject is asked of the wearer's act
    assert with_object("How much mayo went in the bowl?", "the hot sauce") == (
        "how much hot sauce did I add in the bowl?"
    )


async def test_another_time_of_the_act_asks_the_last_question_of_that_time() -> None:
    from edge_assist.answers.follow_ups import resolve

    asked = "how long did the egg go in for the first time"
    talk = Conversation()
    talk.add(Turn(asked, asked, "30 seconds.", 10.0))
    none: Any = None  # nothing is looked up: the question is only said again
    res = await resolve(talk, "and the last one", at=11.0, recall=none, clock=none, before_t=math.inf)
    assert res.reply is None and res.question == "how long did the egg go in the last time?"
    # "the other time" is the time the last question did not ask about
    res = await resolve(talk, "and the other time?", at=11.0, recall=none, clock=none, before_t=math.inf)
    assert res.reply is None and res.question == "how long did the egg go in the last time?"


def test_the_last_answer_counts_only_within_the_window(tmp_path: Path) -> None:
    m = Moment("s", 6, 219.0, 245.2, "Top cup with 1 tablespoon of salsa", 0.9)
    conv = Conversation(window_s=120.0, path=tmp_path / "conversation.json")
    conv.add(
        Turn("when did I add the salsa?", "when did I add the salsa?", "At 3:39 ...", 1000.0, "s", None, m)
    )
    assert conv.last(1119.0) is not None and conv.last(1121.0) is None
    conv.save()
    back = Conversation.load(tmp_path / "conversation.json")
    assert back.turns == conv.turns
    assert (tmp_path / "conversation.json").stat().st_mode & 0o077 == 0  # the wearer's only


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("demo")
    assert main(["memory", "ingest", str(DEMO), "--set", f"general.data_dir={data}", *CLIP_LEVEL_ARGS]) == 0
    return data


def _ask(data: Path, capsys: pytest.CaptureFixture[str], question: str, *more: str) -> dict:
    capsys.readouterr()
    assert (
        main(["ask", question, "--json", "--set", f"general.data_dir={data}", *CLIP_LEVEL_ARGS, *more]) == 0
    )
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow  # memory and answers use the offline text encoder and SmolLM2
@pytest.mark.timeout(300)
def test_a_follow_up_leans_on_the_last_answer_across_two_ask_calls(
    demo_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Nothing before it: about what?
    assert _ask(demo_dir, capsys, "and after that?")["answer"] == ABOUT_WHAT
    first = _ask(demo_dir, capsys, "when did I top the cup with salsa?")
    assert "3:39" in first["answer"] and first["asked_at"]
    after = _ask(demo_dir, capsys, "and after that?", "--continue")
    assert after["answer"].startswith("Right after that: at 4:16 you sprinkled")
    # And again, from the moment the follow-up told.
    again = _ask(demo_dir, capsys, "and after that?", "--continue")
    assert "4:47" in again["answer"] and "microwave" in again["answer"].lower()
    ago = _ask(demo_dir, capsys, "how long ago?", "--continue")
    assert ago["answer"].startswith("About ") and "4:47" in ago["answer"]
    # Without --continue a question starts a new conversation.
    assert _ask(demo_dir, capsys, "and after that?")["answer"] == ABOUT_WHAT
    # A question that only points, in any form, has nothing to point to either.
    assert _ask(demo_dir, capsys, "when did I do that?")["answer"] == ABOUT_WHAT


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_and_the_cheese_asks_the_last_question_again(
    demo_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _ask(demo_dir, capsys, "how much salsa did I add?")["answer"].startswith("1 tablespoon. At 3:39")
    again = _ask(demo_dir, capsys, "and the cheese?", "--continue")
    assert again["answer"].startswith("1 tablespoon. At 4:16 you sprinkled")
    assert again["trace"]["follow_up"] == {"kind": "object", "asked_as": "how much cheese did I add?"}
    assert "3:39" in _ask(demo_dir, capsys, "when did I top the cup with salsa?")["answer"]
    much = _ask(demo_dir, capsys, "how much?", "--continue")
    assert much["answer"] == "1 tablespoon. At 3:39 you topped cup with 1 tablespoon of salsa."
    assert "0:41" in _ask(demo_dir, capsys, "when did I cut the muffin?")["answer"]
    tool = _ask(demo_dir, capsys, "with what?", "--continue")
    assert tool["answer"].startswith("With a knife. At 0:41"), tool
    # an act the last moment does not tell asks its own question
    other = _ask(demo_dir, capsys, "what did I use to flip it?", "--continue")
    assert other["trace"].get("follow_up") is None, other
    assert "3:39" in _ask(demo_dir, capsys, "when did I top the cup with salsa?")["answer"]
    purpose = _ask(demo_dir, capsys, "what for?", "--continue")
    assert purpose["answer"] == "At 3:39 you topped cup with 1 tablespoon of salsa."
    # a whole question about the last question's thing, by a pronoun
    assert _ask(demo_dir, capsys, "how much salsa did I add?")["answer"].startswith("1 tablespoon")
    when = _ask(demo_dir, capsys, "and when did I add it?", "--continue")
    assert (
        "3:39" in when["answer"] and when["trace"]["follow_up"]["asked_as"] == "when did I add the salsa"
    ), when


@pytest.mark.slow  # the replay loads the offline text encoder
@pytest.mark.timeout(300)
def test_a_follow_up_asked_live(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asks = ["--ask", "290:and after that?", "--ask", "300:when did I top the cup with salsa?"]
    asks += ["--ask", "310:and after that?", "--ask", "320:how long ago?"]
    args = ["replay", str(DEMO), "--no-progress", "--set", f"general.data_dir={tmp_path}", *CLIP_LEVEL_ARGS]
    assert main([*args, *asks]) == 0
    out = capsys.readouterr().out
    assert f"[00:04:50] ANSWER: {ABOUT_WHAT}" in out
    assert "[00:05:00] ANSWER: At 3:39 you topped cup with 1 tablespoon of salsa." in out
    assert "[00:05:10] ANSWER: Right after that: at 4:16 you sprinkled 1 tablespoon of cheese on cup." in out
    assert "[00:05:20] ANSWER: About 1 minute ago, at 4:16." in out


def test_a_place_is_read_from_a_caption() -> None:
    assert place_in("On a serving dish, I'm setting tomatoes.") == "on the serving dish"
    assert (
        place_in("Heat 1 tbsp olive oil in a large skillet over medium-high heat") == "in the large skillet"
    )
    assert place_in("I cooked the tomatoes until soft") is None


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_where_was_that_tells_the_place_the_memory_holds(
    demo_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "0:01" in _ask(demo_dir, capsys, "when did I pour the egg?")["answer"]
    where = _ask(demo_dir, capsys, "where was that?", "--continue")
    assert where["answer"].startswith("Into the ramekin cup: at 0:01 you poured 1 egg")
    assert where["trace"]["outcome"] == "where the last moment was"
