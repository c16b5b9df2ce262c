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
