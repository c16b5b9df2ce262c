"""Hazard alerts (Instant, Safety): is this clip something a person standing next to the wearer
would call out now?

A hazard is a combination: a blade and a hand in its path, a heat source and no one there,
two chemicals mixed, a wet floor and hurrying, a road and no lights. The detector reads each
caption into hazard sources, exposures and guards (`hazard_reading.py`, lexicon
`data/hazard_lexicon.toml`), builds compositional features from that reading plus two
text-encoder similarities to written examples (`hazard_model.py`), and weighs them with a
logistic model fitted on hazard_captions/train*.jsonl and ordinary_cc4d.jsonl, chosen on val
(`data/hazard_model.json`, `benchmarks/hazard_fit.py`). Numpy and the text encoder only.

The score also feeds the gate's "hazard" feature group. A `Hazard` carries a severity (how
many exposures and signs of worsening the caption shows), so that the same hazard getting
worse is a new alert for the intervention policy, not a repeat.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edge_assist.errors import ConfigError
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.hazard_model import MODEL, HazardModel, feature_vector, similarity_features
from edge_assist.reasoning.hazard_reading import LEXICON, RELATIONS, Lexicon, Reading
from edge_assist.tasks.vector_file import VectorFile, Wanted, digest

CAPTIONS = Path(__file__).resolve().parents[1] / "data" / "hazard_captions"
# The examples the similarity features compare with: the written train captions and ordinary
# CaptainCook4D train captions.
EXAMPLES = (
    "train.jsonl",
    "train2.jsonl",
    "train3.jsonl",
    "train4.jsonl",
    "train5.jsonl",
    "ordinary_cc4d.jsonl",
    "ordinary_goalstep.jsonl",
)
MODEL_PATH = MODEL

# Which kind a reading is, the most specific combination first (lexicon source names).
KIND_RULES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    # (kind, any of these sources, together with any of these exposures)
    ("fire", ("fire",), ()),
    ("tool_misuse", ("blade", "tool"), ("misuse",)),
    ("sharp", ("blade",), ("body", "contact")),
    ("child", ("child",), ()),
    ("lifting", ("heavy",), ("strain", "unattended")),
    ("unattended_heat", ("heat", "machine", "electric"), ("unattended",)),
    ("machine", ("machine",), ("active", "body", "contact")),
    ("chemical", ("chemical",), ()),
    ("biohazard", ("raw",), ()),
    ("pressure", ("pressure",), ()),
    ("electric", ("electric",), ()),
    ("traffic", ("traffic",), ()),
    ("ladder", ("height",), ("unstable", "unprotected")),
    ("fall", ("floor",), ("hurry", "unstable", "unprotected")),
    ("lifting", ("heavy",), ()),
    ("pinch", ("pinch_point",), ("body", "contact")),
    ("spill", ("water", "floor"), ()),
    ("hot", ("heat",), ()),
    ("sharp", ("blade",), ()),
)


@dataclass(frozen=True)
class Hazard:
    kind: str
    score: float  # the detector's probability
    say: str
    severity: int  # exposures plus signs of worsening: a higher one is a new alert
    reading: str  # what the caption was read as, for the trace ("heat, fire + unattended")

    @property
    def phrase(self) -> str:
        return self.reading

    @property
    def cosine(self) -> float:
        return self.score

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "score": round(self.score, 3),
            "severity": self.severity,
            "reading": self.reading,
        }


def severity(r: Reading) -> int:
    """The stage of worsening first (smoke, thick smoke, flames), then how many exposures."""
    return 3 * r.intensity + sum(e in r.exposures for e in RELATIONS)


def describe(r: Reading) -> str:
    what = ", ".join(sorted(r.sources)) or "no source"
    how = ", ".join(sorted(r.exposures)) or "no exposure"
    guards = f" (guards: {', '.join(sorted(r.guards))})" if r.guards else ""
    return f"{what} + {how}{guards}"


def kind_of(r: Reading) -> str:
    for kind, sources, exposures in KIND_RULES:
        if any(s in r.sources for s in sources) and (
            not exposures or any(e in r.exposures for e in exposures)
        ):
            return kind
    return "hazard"


class HazardDetector:
    def __init__(
        self,
        lexicon: Lexicon,
        model: HazardModel,
        encoder: TextEncoder,
        hazards: np.ndarray,
        others: np.ndarray,
    ) -> None:
        self.lexicon = lexicon
        self.model = model
        self.threshold = model.threshold
        self._encoder = encoder
        self._hazards = hazards  # vectors of written hazards and of the rest
        self._others = others

    @classmethod
    def load(
        cls,
        encoder: TextEncoder,
        *,
        lexicon: str | Path = LEXICON,
        model: str | Path = MODEL,
        examples: tuple[str | Path, ...] = tuple(CAPTIONS / e for e in EXAMPLES),
        vector_file: VectorFile | None = None,
    ) -> HazardDetector:
        lex, m = Lexicon.load(lexicon), HazardModel.load(model)
        p = Path(examples[0])
        try:
            raw = ""
            for p in map(Path, examples):
                raw += p.read_text(encoding="utf-8").rstrip("\n") + "\n"
            rows = [json.loads(x) for x in raw.splitlines() if x.strip()]
            texts = [str(r["text"]) for r in rows]
            is_h = np.array([r["label"] == "hazard" for r in rows])
        except FileNotFoundError:
            raise ConfigError(f"{p}: the hazard examples are missing; reinstall edge-assist") from None
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as e:
            raise ConfigError(f"{p}: not valid hazard examples ({e!r})") from None
        if not is_h.any() or is_h.all():
            raise ConfigError(f"{p}: the hazard examples need both hazards and others")
        if vector_file is None:
            vecs = np.asarray(encoder.encode(texts), dtype=np.float32)
        else:
            vecs = vector_file.vectors(
                [Wanted("hazards:examples", digest(raw), tuple(texts))], encoder.encode
            )[0]
        return cls(lex, m, encoder, vecs[is_h], vecs[~is_h])

    def assess(self, text: str, vec: np.ndarray) -> tuple[float, Reading]:
        """The probability that the caption is a hazard, and how it was read."""
        reading = self.lexicon.read(text)
        v = np.asarray(vec, dtype=np.float32)
        x = feature_vector(reading, similarity_features(v, self._hazards, self._others))
        return self.model.probability(x), reading

    def score(self, text: str, vec: np.ndarray) -> float:
        """The gate's hazard feature."""
        return self.assess(text, vec)[0]

    def detect(self, text: str, vec: np.ndarray) -> Hazard | None:
        return self.detect_and_score(text, vec)[0]

    def detect_and_score(self, text: str, vec: np.ndarray) -> tuple[Hazard | None, float]:
        """The hazard when the caption is one, and the score either way (the gate's feature)."""
        p, reading = self.assess(text, vec)
        if p < self.threshold:
            return None, p
        kind = kind_of(reading)
        say = self.lexicon.say.get(kind, self.lexicon.say["hazard"])
        if reading.intensity >= 2:
            say = self.lexicon.say.get(f"{kind}_worse", say)
        return Hazard(kind, p, say, severity(reading), describe(reading)), p
