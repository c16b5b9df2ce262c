"""What kind of question the wearer asked, read from its meaning: a procedure question (what's
next, what was missed, how far along, which task), a follow-up that leans on the last answer
(what came after or before it, where, how long ago, how much, the same about another thing or
another time, a whole question about "it"), or a question for memory.

The reading is a softmax model over the text encoder's vector of the question and a few
marks of its form (does a conversation go on, how short is it, does it point with "it" or
"that", does it open with "and"), with weights in a JSON file (`edge_assist/data/
question_kinds.json`, fitted with numpy by `benchmarks/question_kinds_fit.py` on questions
people wrote in their own words). Numpy only at run time. It reads what the fixed forms
(answers/conversation.py) and the tracker's intent phrasings miss: they are exact, and people
word these questions in many ways.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.errors import ConfigError
from edge_assist.tasks.vector_cache import VectorCache

MODEL = Path(__file__).resolve().parents[1] / "data" / "question_kinds.json"
FORMAT = "edge-assist-question-kinds/1"
MEMORY = "memory"
PROCEDURE = ("next", "missed", "progress", "task")
FOLLOW_UPS = ("after", "before", "where", "ago", "amount", "object", "occurrence", "pointer")
KINDS = (MEMORY, *PROCEDURE, *FOLLOW_UPS)

_POINTING = frozenset("it that this them they those these there then".split())
_OPENERS = frozenset("and then so okay ok what how same".split())
_ASKS = frozenset("what when where which who how why".split())
_DOES = frozenset("did do does have has had was were is are am can could".split())
_YOU_I = frozenset("i i'm i've me my".split())
# Procedure questions ask about the task as a whole ("any step", "the recipe"); memory questions
# name their own thing or day ("the flux", "yesterday").
_ANY = frozenset("anything something everything nothing any anywhere".split())
_TASK_WORDS = frozenset(
    "step steps recipe recipes instructions instruction protocol task job manual list routine".split()
)
_DAYS = frozenset(
    "yesterday today tonight morning afternoon evening night week weekend monday tuesday wednesday "
    "thursday friday saturday sunday ago".split()
)


def words_of(question: str) -> list[str]:
    return re.sub(r"[^\w' ]+", " ", question.lower()).split()


def form_marks(question: str, in_conversation: bool) -> np.ndarray:
    """The marks of a question's form the encoder's vector does not keep well."""
    w = words_of(question)
    n = len(w)
    return np.array(
        [
            float(in_conversation),
            float(n <= 3),
            float(n <= 6),
            float(bool(_POINTING.intersection(w))),
            float(bool(w) and w[0] in _OPENERS),
            float(bool(w) and w[0] in _ASKS),
            float(bool(_DOES.intersection(w[:3]))),
            float(bool(_YOU_I.intersection(w))),
            float(bool(_ANY.intersection(w))),
            float(bool(_TASK_WORDS.intersection(w))),
            float(bool(_DAYS.intersection(w))),
        ],
        dtype=np.float32,
    )


def features(vector: np.ndarray, question: str, in_conversation: bool) -> np.ndarray:
    return np.concatenate([np.asarray(vector, dtype=np.float32), form_marks(question, in_conversation)])


@dataclass(frozen=True)
class Reading:
    kind: str  # one of KINDS
    p: float  # the model's probability of that kind


@dataclass(frozen=True)
class KindModel:
    kinds: tuple[str, ...]
    weights: np.ndarray  # (features, kinds)
    bias: np.ndarray  # (kinds,)
    min_p: float  # a kind other than memory is read only at this probability or more

    @classmethod
    def load(cls, path: Path | None = None) -> KindModel:
        return _load(path or MODEL)

    @classmethod
    def read_file(cls, path: Path) -> KindModel:
        try:
            d: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise ConfigError(
                f"cannot read the question-kind model {path} ({e}); reinstall edge-assist or refit it "
                "with `python -m benchmarks.question_kinds_fit --write`"
            ) from e
        if d.get("format") != FORMAT:
            raise ConfigError(
                f"{path} is not a {FORMAT} file; refit it with benchmarks/question_kinds_fit.py"
            )
        return cls(
            tuple(d["kinds"]),
            np.asarray(d["weights"], dtype=np.float32),
            np.asarray(d["bias"], dtype=np.float32),
            float(d["min_p"]),
        )

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        if x.shape[-1] != self.weights.shape[0]:
            raise ConfigError(
                f"the question-kind model reads {self.weights.shape[0]} features but the encoder and "
                f"the form marks give {x.shape[-1]}; refit it with "
                "`python -m benchmarks.question_kinds_fit --write` after changing the text encoder"
            )
        z = x @ self.weights + self.bias
        z = np.exp(z - z.max(axis=-1, keepdims=True))
        return np.asarray(z / z.sum(axis=-1, keepdims=True))


@functools.lru_cache(maxsize=4)
def _load(path: Path) -> KindModel:
    return KindModel.read_file(path)


class QuestionKinds:
    """Reads a question's kind; vectors come from the tracker's cache (one encoding per text)."""

    def __init__(self, vectors: VectorCache, model: KindModel | None = None) -> None:
        self.vectors = vectors
        self.model = model or KindModel.load()

    def read(self, question: str, *, in_conversation: bool, among: tuple[str, ...] = KINDS) -> Reading:
        """The most likely kind among `among` (and memory), or memory when it is below the
        model's bar. A follow-up is read only in a conversation: alone it leans on nothing.
        Blocking (encodes the question once)."""
        text = " ".join(question.strip().lower().split())
        if not text:
            return Reading(MEMORY, 1.0)
        x = features(self.vectors.get([text])[0], text, in_conversation)
        p = self.model.probabilities(x[None, :])[0]
        allowed = set(among) - (set() if in_conversation else set(FOLLOW_UPS))
        best = max(
            (i for i, k in enumerate(self.model.kinds) if k in allowed and k != MEMORY),
            key=lambda i: p[i],
            default=None,
        )
        memory = p[self.model.kinds.index(MEMORY)]
        if best is None or p[best] < self.model.min_p or p[best] < memory:
            return Reading(MEMORY, float(memory))
        return Reading(self.model.kinds[best], float(p[best]))
