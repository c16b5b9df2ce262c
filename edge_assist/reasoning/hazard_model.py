"""The hazard classifier's features and weights: compositional features of a caption's reading
(a source together with an exposure, unguarded; `hazard_reading.py`) and two text-encoder
similarities to written hazard and non-hazard examples, weighed by a logistic model whose
weights are a JSON file (`edge_assist/data/hazard_model.json`, fitted with numpy by
`benchmarks/hazard_fit.py`). Numpy only at run time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.errors import ConfigError
from edge_assist.reasoning.hazard_reading import RELATIONS, Reading

MODEL = Path(__file__).resolve().parents[1] / "data" / "hazard_model.json"
FORMAT = "edge-assist-hazard-model/1"
K_NEAREST = 3


def _any(r: Reading, names: tuple[str, ...]) -> float:
    return float(r.has(*names))


def _related(r: Reading) -> float:
    return float(any(e in r.exposures for e in RELATIONS))


def _exposed(r: Reading) -> float:
    return float(bool(r.sources)) * _related(r)


# Each compositional feature: a source (or sources) together with the exposures that make it a
# hazard. Written once from what a hazard is (README of hazard_captions), not from the data.
COMBOS: dict[str, Callable[[Reading], float]] = {
    "source_and_relation": _exposed,
    "source_relation_unguarded": lambda r: _exposed(r) * float(not r.guards),
    "body_in_contact": lambda r: _any(r, ("body",)) * _any(r, ("contact",)),
    "source_body_contact": lambda r: float(bool(r.sources)) * _any(r, ("body",)) * _any(r, ("contact",)),
    "blade_and_body": lambda r: _any(r, ("blade",)) * _any(r, ("body", "contact", "misuse")),
    "heat_unattended": lambda r: _any(r, ("heat", "fire")) * _any(r, ("unattended",)),
    "heat_active_unattended": lambda r: (
        _any(r, ("heat", "fire")) * _any(r, ("active",)) * _any(r, ("unattended",))
    ),
    "heat_and_body": lambda r: _any(r, ("heat",)) * _any(r, ("contact", "unprotected")),
    "heat_at_skin": lambda r: _any(r, ("heat",)) * _any(r, ("body",)) * _any(r, ("contact", "unprotected")),
    "fire_happening": lambda r: _any(r, ("fire",)) * max(_any(r, ("happening",)), float(r.intensity > 0)),
    "fire_and_flammable": lambda r: (
        _any(r, ("fire", "heat")) * _any(r, ("flammable",)) * _any(r, ("contact", "active"))
    ),
    "machine_active_body": lambda r: (
        _any(r, ("machine",)) * _any(r, ("active",)) * _any(r, ("body", "contact"))
    ),
    "chemical_mixed": lambda r: _any(r, ("chemical",)) * _any(r, ("mixing", "container")),
    "chemical_at_face": lambda r: _any(r, ("chemical",)) * _any(r, ("body", "unprotected")),
    "water_and_electric": lambda r: _any(r, ("water",)) * _any(r, ("electric",)),
    "electric_live_contact": lambda r: (
        _any(r, ("electric",)) * _any(r, ("active", "unprotected")) * _any(r, ("body", "contact", "strain"))
    ),
    "slippery_and_hurry": lambda r: _any(r, ("floor", "water")) * _any(r, ("hurry",)),
    "spill_on_floor": lambda r: _any(r, ("floor",)) * _any(r, ("happening", "water")) * float(not r.guards),
    "traffic_unprotected": lambda r: _any(r, ("traffic",)) * _any(r, ("unprotected", "hurry", "contact")),
    "child_and_source": lambda r: (
        _any(r, ("child",)) * float(bool(r.sources - {"child"}) or "unattended" in r.exposures)
    ),
    "raw_mixed": lambda r: _any(r, ("raw",)) * _any(r, ("mixing", "contact")),
    "heavy_strain": lambda r: _any(r, ("heavy",)) * _any(r, ("strain", "unprotected")),
    "height_unstable": lambda r: _any(r, ("height", "floor")) * _any(r, ("unstable", "unprotected")),
    "pressure_active": lambda r: _any(r, ("pressure",)) * _any(r, ("active", "contact", "unprotected")),
    "pinch_and_body": lambda r: _any(r, ("pinch_point",)) * _any(r, ("body",)) * _any(r, ("contact",)),
    "tool_misuse": lambda r: _any(r, ("blade", "tool")) * _any(r, ("misuse",)),
    "pressure_and_heat": lambda r: _any(r, ("pressure",)) * _any(r, ("heat", "fire")),
    "unstable_footing": lambda r: _any(r, ("unstable",)) * float(not r.guards),
    "active_unattended": lambda r: _any(r, ("active",)) * _any(r, ("unattended",)),
    "source_happening": lambda r: float(bool(r.sources)) * _any(r, ("happening",)),
    "active_source_at_body": lambda r: (
        float(bool(r.sources)) * _any(r, ("active",)) * _any(r, ("body", "contact"))
    ),
    "source_near_relation": lambda r: float(r.near),
    "combo_near": lambda r: _kind_combo(r) * float(r.near),
    "combo_near_unguarded": lambda r: _kind_combo(r) * float(r.near) * float(not r.guard_near),
    "guard_near": lambda r: float(r.guard_near),
    "guarded": lambda r: float("guarded" in r.guards),
    "stopped": lambda r: float("stopped" in r.guards),
    "attended": lambda r: float("present" in r.guards),
    "relation_count": lambda r: sum(e in r.exposures for e in RELATIONS) / 3.0,
    "intensity": lambda r: r.intensity / 3.0,
}
# Pooled over kinds: any kind's own combination, so that a kind with few written examples
# still counts as one.
GENERIC = ("source_and_relation", "source_relation_unguarded", "body_in_contact", "guarded", "stopped")
# Read-wide counts and the nearness features are not a kind's own combination.
NOT_KIND = (
    *GENERIC,
    "attended",
    "relation_count",
    "intensity",
    "source_near_relation",
    "combo_near",
    "combo_near_unguarded",
    "guard_near",
)
KIND_COMBOS = tuple(n for n in COMBOS if n not in NOT_KIND)


def _kind_combo(r: Reading) -> float:
    return max(COMBOS[n](r) for n in KIND_COMBOS)


COMBOS["any_kind_combo"] = _kind_combo
COMBOS["any_kind_combo_unguarded"] = lambda r: _kind_combo(r) * float(not r.guards)
SIMILARITY = ("nearest_hazard", "nearest_margin")
FEATURES: tuple[str, ...] = (*COMBOS, *SIMILARITY)


def similarity_features(vec: np.ndarray, hazards: np.ndarray, others: np.ndarray) -> tuple[float, float]:
    """Mean cosine of the K nearest written hazards, and its margin over the nearest non-hazards."""
    # einsum, not `@`: past about a thousand rows a BLAS matrix-vector product starts threads
    # that spin on a busy core (10x the CPU per caption here), for a product this small.
    h = np.sort(np.einsum("ij,j->i", hazards, vec))[-K_NEAREST:].mean()
    o = np.sort(np.einsum("ij,j->i", others, vec))[-K_NEAREST:].mean()
    return float(h), float(h - o)


def feature_vector(reading: Reading, similarity: tuple[float, float]) -> np.ndarray:
    return np.array([f(reading) for f in COMBOS.values()] + list(similarity), dtype=np.float64)


@dataclass(frozen=True)
class HazardModel:
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float
    training: dict[str, Any]

    def probability(self, x: np.ndarray) -> float:
        z = float(((x - self.mean) / self.scale) @ self.weights + self.bias)
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "features": list(self.features),
            "mean": [round(float(x), 8) for x in self.mean],
            "scale": [round(float(x), 8) for x in self.scale],
            "weights": [round(float(x), 8) for x in self.weights],
            "bias": round(self.bias, 8),
            "threshold": round(self.threshold, 6),
            "training": self.training,
        }

    @classmethod
    def load(cls, path: str | Path = MODEL) -> HazardModel:
        p = Path(path)
        try:
            o = json.loads(p.read_text(encoding="utf-8"))
            if o.get("format") != FORMAT:
                raise ValueError(f"format {o.get('format')!r}, expected {FORMAT!r}")
            m = cls(
                tuple(str(f) for f in o["features"]),
                np.asarray(o["mean"], dtype=np.float64),
                np.asarray(o["scale"], dtype=np.float64),
                np.asarray(o["weights"], dtype=np.float64),
                float(o["bias"]),
                float(o["threshold"]),
                dict(o.get("training", {})),
            )
        except FileNotFoundError:
            raise ConfigError(f"{p}: the hazard model is missing; reinstall edge-assist") from None
        except (
            json.JSONDecodeError,
            UnicodeDecodeError,
            KeyError,
            TypeError,
            ValueError,
            AttributeError,
        ) as e:
            raise ConfigError(
                f"{p}: not a valid hazard model ({e}); refit it with benchmarks/hazard_fit.py"
            ) from None
        if m.features != FEATURES:
            raise ConfigError(f"{p}: the hazard model's features differ from the code's; refit it")
        n = len(FEATURES)
        if not (len(m.mean) == len(m.scale) == len(m.weights) == n) or not np.all(np.isfinite(m.weights)):
            raise ConfigError(f"{p}: the hazard model's weights do not match its {n} features; refit it")
        if np.any(m.scale <= 0):
            raise ConfigError(f"{p}: the hazard model's scales must be positive; refit it")
        return m
