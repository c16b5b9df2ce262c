"""The question benchmark: questions generated from the bundled CaptainCook4D annotations,
and how an answer is scored."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from edge_assist.evaluation.qa_quantities import how_much_question, says_number
from edge_assist.evaluation.qa_questions import Question, generate, load_streams, short_step
from edge_assist.evaluation.qa_scoring import confident_wrong_no, said_yes, score

DATASET = Path(__file__).resolve().parents[1] / "edge_assist" / "data" / "captaincook4d"


@pytest.fixture(scope="module")
def val() -> list[Question]:
    return generate(load_streams(DATASET, "val"), seed=0)


def test_every_template_is_generated_asked_after_its_event(val: list[Question]) -> None:
    streams = {s.recording: s for s in load_streams(DATASET, "val")}
    kinds = Counter(q.template for q in val)
    assert set(kinds) == {"when", "after", "did-yes", "did-no", "with", "howmuch", "unanswerable"}
    assert {q.form for q in val} == {"free", "mc", "yesno"}
    assert generate(load_streams(DATASET, "val"), seed=0) == val  # seeded: a fixed question set
    for q in val:
        caps = streams[q.recording].captions
        if q.template == "when":
            assert q.window is not None and q.ask_t >= q.window[1]  # asked after the event
        if q.template == "after":
            nxt = next(
                i for i, c in enumerate(caps) if c[2] == q.correct_choice and i and caps[i - 1][2] == q.other
            )
            assert (
                q.ask_t >= caps[nxt][1]
                and q.correct_choice in q.choices
                and len(set(q.choices)) == len(q.choices)
            )
        if q.form == "mc":
            assert q.correct_choice in q.choices and len(q.choices) >= 2


def test_skipped_steps_are_asked_with_the_answer_no(val: list[Question]) -> None:
    streams = {s.recording: s for s in load_streams(DATASET, "val")}
    no = [q for q in val if q.template == "did-no"]
    assert no and all(q.expect_yes is False and q.answerable for q in no)
    for q in no:
        assert q.reference in streams[q.recording].skipped  # from the Missing Step labels
        assert all(q.reference != c[2] for c in streams[q.recording].captions)


def test_unanswerable_questions_cannot_be_answered_from_memory_at_their_time(val: list[Question]) -> None:
    streams = {s.recording: s for s in load_streams(DATASET, "val")}
    un = [q for q in val if not q.answerable]
    assert {q.why for q in un} == {"future", "other-recipe", "empty-memory"}
    for q in un:
        caps = streams[q.recording].captions
        held = [c[2] for c in caps if c[1] <= q.ask_t]
        if q.why == "empty-memory":
            assert held == []
        else:
            assert q.reference not in held


def test_question_wording() -> None:
    assert (
        short_step("Once the water has boiled, check the temperature of the water. (The water should be)")
        == "once the water has boiled, check the temperature of the water"
    )
    assert how_much_question("Add 2 tbsp flour to the mixing bowl") == ("How much flour did I add?", "2")
    assert how_much_question("Microwave the ramekin cup uncovered on high for 20 seconds") == (
        "How long did I microwave the ramekin cup uncovered on high?",
        "20",
    )
    assert how_much_question("Stir the cup") is None
    assert says_number("you added two tablespoons", "2") and says_number("you added 2 tbsp", "2")
    assert not says_number("you added 12 tbsp", "2") and not says_number("you added 1/2 tbsp", "2")
    assert says_number("for about thirty secs", "30") and says_number(
        "tossing in a quarter tbsp of salt", "1/4"
    )
    assert says_number("an eighth of a tbsp", "1/8") and not says_number("a quarter tbsp", "1/8")
    assert not says_number("thirty seconds", "3") and not says_number("half an hour", "1/4")
    assert not says_number("until tender", "10") and says_number("you added 2.", "2")


def _q(**kw: object) -> Question:
    base = dict(
        qid="r:0",
        recording="r",
        session_id="s",
        template="when",
        form="free",
        text="When did I x?",
        ask_t=100.0,
        answerable=True,
    )
    base.update(kw)
    return Question(**base)  # type: ignore[arg-type]


def test_scoring_rules() -> None:
    when = _q(window=(40.0, 83.0), reference="Cut the English muffin")
    assert score(when, "At 0:41 you cut the English muffin.", None, 0.9)
    assert not score(when, "At 2:41 you cut the English muffin.", None, 0.9)
    assert not score(when, "I don't remember you doing that.", None, 0.1)
    yes, no = (
        _q(template="did-yes", form="yesno", expect_yes=True),
        _q(template="did-no", form="yesno", expect_yes=False),
    )
    assert score(yes, "Yes. At 0:41 you cut it.", None, 0.0) and not score(
        no, "Yes. At 0:41 you cut it.", None, 0.0
    )
    assert score(no, "No, I don't remember you doing that.", None, 0.0) and said_yes("The muffin was cut.")
    mc = _q(template="after", form="mc", choices=("a", "b"), correct_choice="b")
    assert score(mc, "At 1:00 you did b.", "b", 0.0) and not score(
        mc, "I don't remember you doing that.", None, 0.0
    )
    tool = _q(template="with", key="knife", reference="Cut the muffin with a knife")
    assert score(tool, "At 0:41 you cut the muffin with a knife.", None, 0.8)
    assert not score(tool, "At 0:41 you cut the muffin with a fork.", None, 0.8)  # the tool must be said
    assert not score(tool, "At 0:41 you cut the muffin with a knife.", None, 0.3)  # and the content match
    un = _q(template="unanswerable", answerable=False, why="future")
    assert score(un, "I don't remember you doing that.", None, 0.0) and not score(
        un, "At 0:10 you did it.", None, 0.0
    )


def test_a_no_to_what_happened_is_counted_as_a_confident_wrong_no() -> None:
    def rec(template: str, answer: str) -> dict[str, object]:
        return {"template": template, "form": "yesno", "answer": answer}

    assert confident_wrong_no(rec("did-yes", "No, I don't remember you doing that."))
    earned = "No: at 3:39 you topped the cup, but I didn't see you add salt."
    assert confident_wrong_no(rec("did-yes", earned)) and not confident_wrong_no(rec("did-no", earned))
    assert not confident_wrong_no(rec("did-yes", "I don't remember you doing that."))  # wrong, not a "No"
    # a question set that says its truth itself
    assert confident_wrong_no({"template": "x", "form": "yesno", "answer": "No.", "expect_yes": True})


def test_results_file_is_one_json_document(tmp_path: Path) -> None:
    import json

    from edge_assist.evaluation.qa_bench import write_results

    path = tmp_path / "results.json"
    write_results(
        path, {"split": "val", "records": [{"qid": "a:0", "correct": True}, {"qid": "a:1", "correct": False}]}
    )
    assert json.loads(path.read_text()) == {
        "split": "val",
        "records": [{"qid": "a:0", "correct": True}, {"qid": "a:1", "correct": False}],
    }
    assert len(path.read_text().splitlines()) == 7  # one line per record
