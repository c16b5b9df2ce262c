"""The answer gate's word features read by what a question names (answers/gate_words.py), and
template questions said as people speak (evaluation/qa_restyle.py)."""

from __future__ import annotations

import pytest

from edge_assist.answers.gate_words import features, parts
from edge_assist.answers.support import WORD_FEATURES
from edge_assist.evaluation.qa_restyle import restyle
from edge_assist.inference.base import TextEncoder

VANILLA = "I tossed in one tsp vanilla extract to the cup."


def _named(focus: str) -> tuple[list[str], list[str], list[str]]:
    words = [w.lower() for w in focus.replace(",", " ").split()]
    return tuple([words[i] for i in at] for at in parts(focus, words))  # type: ignore[return-value]


def test_a_question_is_split_into_its_things_its_act_and_its_amounts() -> None:
    assert _named("vanilla, how much") == (["vanilla"], [], [])
    things, act, amounts = _named("add 1 tablespoon of salsa")
    assert things == ["salsa"] and act == ["add"] and amounts == ["1", "tablespoon"]
    # the asker's own words are none of them
    assert _named("sorry, chop the onion back then") == (["onion"], ["chop"], [])


def test_the_askers_own_words_move_the_recall_not_the_anchor(text_encoder: TextEncoder) -> None:
    texts = ["vanilla", "vanilla, how much", VANILLA]
    plain_q, wordy_q, cap = text_encoder.encode_words(texts)  # type: ignore[attr-defined]
    v = text_encoder.encode(texts)
    plain = features(float(v[0] @ v[2]), "vanilla", VANILLA, plain_q, cap)
    wordy = features(float(v[1] @ v[2]), "vanilla, how much", VANILLA, wordy_q, cap)
    assert wordy["recall_mean"] < plain["recall_mean"] - 0.1
    assert wordy["anchor_mean"] == pytest.approx(plain["anchor_mean"], abs=0.1)
    assert wordy["anchor_mean"] > wordy["recall_mean"] + 0.1


def test_a_thing_the_caption_does_not_name_is_the_worst_covered(text_encoder: TextEncoder) -> None:
    q = "sprinkle 1 tablespoon of cheese on cup"
    texts = [q, "Top cup with 1 tablespoon of salsa", "On cup, I'm dusting one tbsp of cheese."]
    qw, sib, para = text_encoder.encode_words(texts)  # type: ignore[attr-defined]
    f_sib = features(0.7, q, texts[1], qw, sib)
    f_para = features(0.7, q, texts[2], qw, para)
    assert f_para["thing_min"] > f_sib["thing_min"] + 0.1


def test_without_word_vectors_the_share_stands_in_for_every_part() -> None:
    f = features(0.7, "cut the muffin", "Cut the English muffin", None, None)
    assert all(f[n] == 1.0 for n in WORD_FEATURES)


def test_a_restyled_question_keeps_what_it_asks_and_is_repeatable() -> None:
    q = "When did I add 1 tablespoon of salsa to the cup?"
    said = {restyle(q, f"q{i}") for i in range(40)}
    assert len(said) > 10 and q not in said
    assert all("salsa to the cup" in s and s.endswith("?") for s in said)
    assert restyle(q, "q1") == restyle(q, "q1")


def test_free_form_rows_are_taken_only_where_the_expected_answer_names_the_moment() -> None:
    from edge_assist.evaluation.qa_freeform_score import Expect, FreeQuestion
    from edge_assist.evaluation.qa_tune_freeform import at_time, label

    def q(kind: str, expect: Expect, conversation: str | None = None) -> FreeQuestion:
        return FreeQuestion("x", "1_34", None, "did I add cheese?", kind, expect, conversation)

    assert label(q("yesno", Expect(yes=True, times=(255.9,)))) is True
    assert label(q("yesno", Expect(yes=False))) is False
    assert label(q("never", Expect(abstain=True))) is False
    assert label(q("amount", Expect(number="2", units=("tbsp",)))) is None  # no time: no moment named
    assert label(q("procedure", Expect(says=("done",)))) is None
    assert label(q("yesno", Expect(yes=True, times=(1.0,)), conversation="c")) is None
    assert at_time(255.0, 260.0, (255.9,)) and at_time(254.5, 256.0, (255.0,))
    assert not at_time(200.0, 210.0, (255.9,))


def test_the_threshold_keeps_val_at_its_floors_first_then_answers_most_free_form_questions() -> None:
    import numpy as np

    from edge_assist.evaluation import qa_tune

    free = [
        ("f", "a", True, np.asarray([[0.6], [0.2]]), np.asarray([True, False])),
        ("f", "b", True, np.asarray([[0.4]]), np.asarray([True])),
        ("f", "c", False, np.asarray([[0.5]]), np.asarray([False])),
    ]
    score = lambda F: F[:, 0]  # noqa: E731
    assert qa_tune._free_right(free, score, 0.3) == 2  # a and b answered from their moment, c too
    assert qa_tune._free_right(free, score, 0.55) == 2  # a answered, b and c not
    assert qa_tune._floors("96.4,91.4,81.1,96.8", {}, []) == [95.4, 90.4, 80.1, 95.8]
    ok = [{"answerable": 96.0, "abstain": 91.0}, {"answerable": 81.0, "abstain": 96.0}]
    low = [{"answerable": 96.0, "abstain": 89.0}, {"answerable": 81.0, "abstain": 96.0}]
    floors = [95.4, 90.4, 80.1, 95.8]
    assert qa_tune._choice(0.3, ok, floors, free, score) > qa_tune._choice(0.3, low, floors, free, score)


def test_the_shipped_gate_reads_none_of_the_parts() -> None:
    from edge_assist.answers.support import load_gate

    assert not load_gate("").reads_parts
    assert features(0.7, "cut the muffin", "Cut the English muffin", None, None, parts_too=False).keys() == {
        "cosine",
        "share",
        "recall_mean",
        "recall_min",
    }
