"""Questions worded in people's own ways are read for what they ask: a procedure question, a
follow-up of the last answer, or a question for memory (the question-kind model with the real
text encoder), and a follow-up read by meaning is answered from the last answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.answers.conversation import FollowUp
from edge_assist.answers.follow_up_kinds import by_meaning, from_kind
from edge_assist.answers.procedure import ProcedureQuestions, asks_task_now
from edge_assist.clock import RealClock
from edge_assist.errors import ConfigError
from edge_assist.inference.base import TextEncoder
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.question_kinds import KindModel, QuestionKinds
from edge_assist.tasks.session import TaskSession
from edge_assist.tasks.vector_cache import VectorCache
from tests.test_conversation import _ask, demo_dir  # noqa: F401  (the fixture is used by name)


@pytest.fixture(scope="module")
def kinds(text_encoder: TextEncoder) -> QuestionKinds:
    return QuestionKinds(VectorCache(text_encoder.encode))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("prior to that?", "before"),
        ("how much time since that?", "ago"),
        ("same for the stovetop?", "object"),
        ("greased them yet?", "pointer"),
        ("where'd it go?", "where"),
    ],
)
def test_a_follow_up_in_other_words_is_read_in_a_conversation(
    kinds: QuestionKinds, question: str, kind: str
) -> None:
    assert kinds.read(question, in_conversation=True).kind == kind
    # alone, it leans on nothing: no follow-up is read
    assert kinds.read(question, in_conversation=False).kind not in (
        "before",
        "ago",
        "object",
        "pointer",
        "where",
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("remind me what I'm baking?", "task"),
        ("i think i forgot a step which one was it", "missed"),
        ("am I halfway through yet?", "progress"),
        ("done with the glue. next thing?", "next"),
        ("which drink was i making here", "task"),
        ("what dish are we cooking?", "task"),
        # "now" asks what is under way, not the next step, unless the next step is what is asked
        ("which soup am I making right now?", "task"),
        ("so what am i fixing on the bike now", "task"),
        ("ok what am I supposed to do now?", "next"),
    ],
)
def test_a_procedure_question_in_other_words(text_encoder: TextEncoder, question: str, kind: str) -> None:
    questions = ProcedureQuestions(TaskSession(TaskLibrary.load(), text_encoder, RealClock()))
    assert questions.asks(question) == kind


def test_what_is_under_way_now_is_the_task_and_the_next_step_or_a_thing_in_use_is_not() -> None:
    assert asks_task_now("Which pattern I am knitting now?") and asks_task_now(
        "remind me what job I'm on right now"
    )
    assert not asks_task_now("which step am I on now?") and not asks_task_now("what am I meant to do now?")
    assert not asks_task_now("which knife am I using right now?") and not asks_task_now("what did I do now?")


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    [
        "did I add salt?",
        "when did I crack the egg?",
        "how many eggs did I use?",
        "where did I leave my keys?",
        "what was I doing a minute in?",  # a time named: memory's, never the task's
        "what was I doing two minutes ago?",
    ],
)
def test_a_memory_question_stays_one(text_encoder: TextEncoder, kinds: QuestionKinds, question: str) -> None:
    questions = ProcedureQuestions(TaskSession(TaskLibrary.load(), text_encoder, RealClock()))
    assert questions.asks(question) is None
    if "doing" not in question:  # the model alone reads "what was I doing" as the task
        assert kinds.read(question, in_conversation=True).kind == "memory"


@pytest.mark.parametrize(
    ("kind", "question", "follow"),
    [
        ("object", "Same for the stovetop?", FollowUp("object", "the stovetop")),
        ("object", "okay and the rear right", FollowUp("object", "the rear right")),
        ("object", "would you check it for me", None),  # names no thing
        ("amount", "How many of them I put?", FollowUp("amount", "many")),
        ("amount", "roughly how long did I leave it for", FollowUp("amount", "long")),
        ("amount", "what volume?", FollowUp("amount", "much")),
        ("occurrence", "And the most recent time?", FollowUp("occurrence", "last")),
        ("occurrence", "and the other time", FollowUp("occurrence", "last")),
        ("occurrence", "and the time before that?", None),  # which time is not said
        ("amount", "how much sriracha did I add?", None),  # it names its own thing
        ("amount", "and how long?", FollowUp("amount", "long")),
        ("where", "where'd it go?", FollowUp("where", "went")),
        ("pointer", "did i beat them first", FollowUp("pointer", "did i beat them first?")),
        ("pointer", "did I wipe those down", None),  # no it/they/them to put the thing in
        ("pointer", "did I wash the rice before cooking it?", None),  # "it" is the rice
        ("pointer", "I put them in the pan already?", FollowUp("pointer", "i put them in the pan already?")),
    ],
)
def test_what_a_kind_needs_is_read_from_the_words(kind: str, question: str, follow: FollowUp | None) -> None:
    assert from_kind(kind, question, "how long did I rinse the column the first time?") == follow


@pytest.mark.slow
def test_by_meaning_reads_no_follow_up_for_a_whole_question(kinds: QuestionKinds) -> None:
    assert by_meaning("did I wash the rice before cooking it?", kinds, "when did I add the salt?") is None


def test_a_few_words_whose_only_thing_is_a_pronoun_lean_on_the_last_question(kinds: QuestionKinds) -> None:
    # whatever kind the model reads them as, they name nothing of their own
    for question in ("patched it?", "watered it since?", "boxed them up?"):
        assert by_meaning(question, kinds, "where did I put the tyre?") == FollowUp("pointer", question)
    assert by_meaning("was there any egg on it?", kinds, "did I take out the frame?") is None


def test_a_broken_model_file_says_how_to_refit(tmp_path: Path) -> None:
    bad = tmp_path / "question_kinds.json"
    bad.write_text(json.dumps({"format": "something else"}), encoding="utf-8")
    with pytest.raises(ConfigError, match="refit"):
        KindModel.read_file(bad)
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(ConfigError, match="question_kinds_fit"):
        KindModel.read_file(bad)


@pytest.mark.slow  # memory and answers use the offline text encoder and SmolLM2
@pytest.mark.timeout(300)
def test_a_follow_up_in_other_words_is_answered_from_the_last_answer(
    demo_dir: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _ask(demo_dir, capsys, "when did I top the cup with salsa?")
    assert "3:39" in first["answer"]
    before = _ask(demo_dir, capsys, "prior to that?", "--continue")
    assert before["trace"]["follow_up"]["kind"] == "before", before
    assert before["answer"].startswith("Just before that:"), before
