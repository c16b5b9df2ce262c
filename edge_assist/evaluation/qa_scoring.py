"""How an answer of `eval qa` is scored against its question (qa_questions.py).

Scoring (per question; `abstained` = the answer says it does not remember):
- when: a time said in the answer lies in the step's window (±2 s);
- after, with (mc): the option returned is the right one;
- did-yes / did-no: yes = an answer that neither abstains nor starts with "no";
- with (free), howmuch: content match, the MiniLM cosine between the answer and the
  annotated caption >= 0.5 (the eval's measure), and the tool / the quantity is said;
- unanswerable: right when abstained; over an empty memory any other answer is invented.

Apart from the score, a confident wrong "No" is counted: an answer that starts with "No" (or
"you did not") to a yes/no question whose truth is yes. Saying "I don't remember" there is
wrong; saying "No" is worse, since the wearer believes it. The target is zero.
"""

from __future__ import annotations

from typing import Any

from edge_assist.evaluation.qa_quantities import says_number
from edge_assist.evaluation.qa_questions import Question
from edge_assist.reasoning.answer_text import content_words, is_abstention

CONTENT_THRESHOLD = 0.5
WINDOW_SLACK_S = 2.0


_NO = ("no", "i did not", "you did not", "you didn't")


def said_yes(text: str) -> bool:
    t = text.strip().lower()
    return not is_abstention(t) and not t.startswith(_NO)


def said_no(text: str) -> bool:
    """The answer says "No", whatever follows it ("No, I don't remember ..." too)."""
    return text.strip().lower().startswith(_NO)


def confident_wrong_no(record: dict[str, Any]) -> bool:
    """A "No" said to a yes/no question whose truth is yes."""
    expect_yes = record.get("expect_yes", record["template"] == "did-yes")
    return record["form"] == "yesno" and bool(expect_yes) and said_no(record["answer"])


def score(q: Question, text: str, choice: str | None, cosine: float) -> bool:
    from edge_assist.answers.answer_record import times_in

    abstained = is_abstention(text)
    if not q.answerable:
        return abstained
    if q.form == "yesno":
        return said_yes(text) == bool(q.expect_yes)
    if abstained:
        return False
    if q.form == "mc":
        return choice == q.correct_choice
    if q.template == "when":
        assert q.window is not None
        lo, hi = q.window
        return any(lo - WINDOW_SLACK_S <= t <= hi + WINDOW_SLACK_S for t in times_in(text))
    if cosine < CONTENT_THRESHOLD:
        return False
    if q.template == "howmuch":
        return says_number(text, q.key)
    if q.template == "with":
        return bool(content_words(q.key) & content_words(text))
    return True
