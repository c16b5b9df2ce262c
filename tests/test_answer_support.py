"""The answer gate: word-level coverage of a question by a remembered moment (real MiniLM),
the shipped gate file, and the threshold rule of its training."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from edge_assist.answers.support import (
    FEATURES,
    SHIPPED,
    AnswerGate,
    features,
    is_content,
    load_gate,
    word_recall,
)
from edge_assist.errors import ModelError
from edge_assist.evaluation import qa_tune
from edge_assist.inference.base import TextEncoder

QUESTION = "sprinkle 1 tablespoon of cheese on cup"
SIBLING = "Top cup with 1 tablespoon of salsa"  # the same recipe's other step: shares most words
PARAPHRASE = "On cup, I'm dusting one tbsp of cheese."  # the same step in other words


def test_words_come_with_one_vector_each(text_encoder: TextEncoder) -> None:
    (words, vecs), (empty_words, _) = text_encoder.encode_words([PARAPHRASE, ""])  # type: ignore[attr-defined]
    assert words[:2] == ["on", "cup"] and "dusting" in words and "tbsp" in words
    assert vecs.shape == (len(words), text_encoder.dim)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert empty_words == []
    assert [w for w in words if is_content(w)] == ["cup", "dusting", "tbsp", "cheese"]


def test_a_missing_object_lowers_the_recall_a_paraphrase_keeps(text_encoder: TextEncoder) -> None:
    q, sib, para = text_encoder.encode_words([QUESTION, SIBLING, PARAPHRASE])  # type: ignore[attr-defined]
    sib_mean, sib_min = word_recall(q, sib)
    para_mean, para_min = word_recall(q, para)
    # cheese has no counterpart in the sibling step
    assert para_mean > sib_mean + 0.05 and para_min > sib_min
    # while the sentence cosine alone does not separate them as far
    v = text_encoder.encode([QUESTION, SIBLING, PARAPHRASE])
    assert float(v[0] @ v[1]) > 0.5


def test_the_shipped_gate_answers_the_paraphrase_and_not_the_sibling(text_encoder: TextEncoder) -> None:
    gate = load_gate("")
    assert gate.path == str(SHIPPED) and tuple(gate.model.features) == FEATURES
    assert "qa_tune" in gate.training["command"]
    q, sib, para = text_encoder.encode_words([QUESTION, SIBLING, PARAPHRASE])  # type: ignore[attr-defined]
    v = text_encoder.encode([QUESTION, SIBLING, PARAPHRASE])
    p_sib = gate.probability(features(float(v[0] @ v[1]), QUESTION, SIBLING, q, sib))
    p_para = gate.probability(features(float(v[0] @ v[2]), QUESTION, PARAPHRASE, q, para))
    assert p_para >= gate.threshold > p_sib


def test_without_word_vectors_the_word_share_stands_in() -> None:
    f = features(0.7, "cut the muffin", "Cut the English muffin", None, None)
    assert f == {"cosine": 0.7, "share": 1.0, "recall_mean": 1.0, "recall_min": 1.0}


def test_a_gate_file_round_trips_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    gate = load_gate("")
    path = gate.save(tmp_path / "g.json")
    again = AnswerGate.load(path)
    assert again.threshold == pytest.approx(gate.threshold, abs=1e-6)
    feats = {"cosine": 0.6, "share": 0.5, "recall_mean": 0.6, "recall_min": 0.4}
    assert again.probability(feats) == pytest.approx(gate.probability(feats), abs=1e-6)
    doc = json.loads(path.read_text())
    doc["threshold"] = None
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(ModelError, match="threshold"):
        AnswerGate.load(tmp_path / "bad.json")
    with pytest.raises(ModelError, match="missing or unreadable"):
        AnswerGate.load(tmp_path / "none.json")


def _row(template: str, answer: bool, probs: list[float], right: list[bool], why: str = "") -> qa_tune.Row:
    f = np.asarray([[p] for p in probs], dtype=np.float64).reshape(-1, 1)
    return qa_tune.Row("q", template, why, answer, f, np.asarray(right, bool), np.asarray(right, bool))


def test_the_tuning_outcome_counts_what_eval_qa_counts() -> None:
    rows = [
        _row("when", True, [0.9, 0.3], [True, False]),  # answered from the right moment
        _row("when", True, [0.2, 0.9], [True, False]),  # answered from the wrong one
        _row("did-no", False, [0.4], [False]),  # did-no: right when abstained, counted as answerable
        _row("unanswerable", False, [0.6], [False], "future"),
        _row("unanswerable", False, [], [], "empty-memory"),
    ]
    out = qa_tune.outcome(rows, qa_tune.decide(rows, lambda X: X[:, 0]), 0.5)
    assert out["answerable"] == pytest.approx(100 * 2 / 3, abs=0.1)  # right, wrong, did-no abstained
    assert out["abstain"] == 50.0  # the future step is answered, the empty memory is not
    assert out["per_template"]["unanswerable/future"] == 0.0
