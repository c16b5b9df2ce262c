"""How well a remembered moment supports an answer to a question: the scores behind
"answer from this moment" vs "I don't remember".

Sentence cosine and word share (answer_text.support) rate a sibling step close: "sprinkle
1 tablespoon of cheese on cup" against the remembered "Top cup with 1 tablespoon of salsa"
shares the container, the quantity and most of the wording. What tells them apart is that
one of the question's content words (cheese) is not covered by any word of the caption.
So each content word of the question is matched to its closest caption word by the text
encoder's contextual word vectors (a BERTScore-style recall, which also matches "tbsp" to
"tablespoon" or "dusting" near "sprinkle", unlike exact words); the mean says how much of
the question the moment covers, the minimum whether something it names is missing.

A small logistic model over these scores (edge_assist/data/answer_gate.json, trained on
CaptainCook4D train questions, its threshold chosen on val: `edge_assist.evaluation.qa_tune`)
gives the probability that a moment answers the question; moments are ranked by it and
the answer is abstained when the best is below the threshold.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from edge_assist.errors import ModelError
from edge_assist.reasoning.answer_text import content_words
from edge_assist.reasoning.gate import ServiceModel
from edge_assist.text.stop_words import ANSWER_STOP_WORDS

FORMAT = "edge-assist-answer-gate/1"
SHIPPED = Path(__file__).resolve().parents[1] / "data" / "answer_gate.json"
FEATURES = ("cosine", "share", "recall_mean", "recall_min")
# The same recall read by the parts of the question the lexicons know (answers/gate_words.py).
WORD_FEATURES = ("anchor_mean", "thing_min", "act", "precision")
_WORD = re.compile(r"^(?:[a-z]+|\d+(?:[./]\d+)*)$")

Words = tuple[list[str], np.ndarray]  # words and their contextual vectors (n, dim)


@runtime_checkable
class WordEncoder(Protocol):
    def encode_words(self, texts: Sequence[str]) -> list[Words]: ...


def is_word(token: str) -> bool:
    """A word or a number of the encoder's tokens, not punctuation."""
    return bool(_WORD.match(token))


def is_content(word: str) -> bool:
    w = word.lower()
    return bool(_WORD.match(w)) and w not in ANSWER_STOP_WORDS and (len(w) > 1 or w.isdigit())


def closest_word(
    asked: Words | None, picked: Callable[[str], bool], others: Sequence[Words], kept: Callable[[str], bool]
) -> float:
    """The best cosine between the asked words `picked` chooses and the words of `others` that
    `kept` keeps; 1.0 when there are no word vectors or no word is picked (then nothing is shown
    to be absent)."""
    if asked is None:
        return 1.0
    words, vecs = asked
    at = [i for i, w in enumerate(words) if picked(w)]
    if not at:
        return 1.0
    best = 0.0
    for cw, cv in others:
        keep = [j for j, w in enumerate(cw) if kept(w)]
        if keep:
            best = max(best, float((vecs[at] @ cv[keep].T).max()))
    return best


def word_recall(question: Words, caption: Words) -> tuple[float, float]:
    """(mean, min) over the question's content words of the best cosine to a caption word
    (punctuation left out on both sides). (0, 0) when either side has nothing to match."""
    qw, qv = question
    cw, cv = caption
    qi = [i for i, w in enumerate(qw) if is_content(w)]
    ci = [i for i, w in enumerate(cw) if is_word(w)]
    if not qi or not ci:
        return 0.0, 0.0
    best = (qv[qi] @ cv[ci].T).max(axis=1)
    return float(best.mean()), float(best.min())


def features(
    cosine: float, focus: str, caption: str, focus_words: Words | None, caption_words: Words | None
) -> dict[str, float]:
    words = content_words(focus)
    share = len(words & content_words(caption)) / len(words) if words else 0.0
    if focus_words is not None and caption_words is not None:
        mean, low = word_recall(focus_words, caption_words)
    else:  # an encoder without word vectors: the word share stands in for the recall
        mean, low = share, share
    return {"cosine": cosine, "share": share, "recall_mean": mean, "recall_min": low}


@dataclass
class AnswerGate:
    """P(moment answers the question) from `FEATURES`; `threshold`: answer at or above it."""

    model: ServiceModel
    threshold: float
    training: dict[str, Any] = field(default_factory=dict)
    path: str = ""

    def probability(self, feats: dict[str, float]) -> float:
        return self.model.probability(feats)

    @property
    def reads_parts(self) -> bool:
        """Whether the model reads any of the `WORD_FEATURES` (answers/gate_words.py)."""
        return any(f in WORD_FEATURES for f in self.model.features)

    @classmethod
    def load(cls, path: str | Path = SHIPPED) -> AnswerGate:
        p = Path(path)
        try:
            o = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ModelError(
                f"{p}: the answer gate is missing or unreadable ({e}); set reasoner.answer_gate_file "
                "or retrain it with `python -m edge_assist.evaluation.qa_tune`"
            ) from None
        if not isinstance(o, dict) or o.get("format") != FORMAT:
            raise ModelError(f"{p}: not an edge-assist answer gate (format {FORMAT})")
        model = ServiceModel.from_json(o.get("model", {}), str(p))
        missing = [f for f in model.features if f not in FEATURES + WORD_FEATURES]
        thr = o.get("threshold")
        if missing or not isinstance(thr, (int, float)) or not math.isfinite(thr):
            raise ModelError(f"{p}: answer gate with unknown features {missing} or no threshold")
        return cls(model, float(thr), dict(o.get("training", {})), str(p))

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        doc = {
            "format": FORMAT,
            "model": self.model.to_json(),
            "threshold": round(self.threshold, 6),
            "training": self.training,
        }
        p.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        return p


@functools.lru_cache(maxsize=4)
def load_gate(path: str = "") -> AnswerGate:
    """The gate at `path`, or the one that ships (empty); read once per path."""
    return AnswerGate.load(path or SHIPPED)
