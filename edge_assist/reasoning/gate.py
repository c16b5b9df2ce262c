"""The intervention gate: a small calibrated classifier that says, per step and candidate
service, the probability that speaking now helps; thresholds for the wearer's chattiness.

Runtime is numpy only (a logistic model over standardised features, with a few pairwise
products): microseconds per step, nothing new on the glasses. The model is a JSON file
that records how it was made (command, data hash, metrics); `edge_assist/data/gate.json`
ships, trained on CaptainCook4D train labels with thresholds chosen on val
(`edge-assist gate train`, `edge_assist/evaluation/gate_training.py`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.errors import ModelError

FORMAT = "edge-assist-gate/1"
SHIPPED = Path(__file__).resolve().parents[1] / "data" / "gate.json"
CHATTINESS = ("quiet", "normal", "chatty")
# What a gate file's models read. "features": the tracker's findings, timing and hazards (the
# product). "caption_embedding": the caption's own encoder vector and nothing else, the
# caption-only baseline that measures what the captions' style alone scores (reports only).
INPUTS = ("features", "caption_embedding")


@dataclass
class ServiceModel:
    """One candidate service's logistic model."""

    features: list[str]
    pairs: list[tuple[str, str]]  # products of two features, appended after the features
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    thresholds: dict[str, float] = field(default_factory=dict)

    def design(self, feats: dict[str, float]) -> np.ndarray:
        base = [feats[n] for n in self.features]
        base += [feats[a] * feats[b] for a, b in self.pairs]
        return (np.asarray(base, dtype=np.float64) - self.mean) / self.scale

    def probability(self, feats: dict[str, float]) -> float:
        z = float(self.design(feats) @ self.weights + self.bias)
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """Rows already in `features + pairs` order, unstandardised."""
        z = ((X - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))

    def to_json(self) -> dict[str, Any]:
        return {
            "features": self.features,
            "pairs": [list(p) for p in self.pairs],
            "mean": [round(float(x), 8) for x in self.mean],
            "scale": [round(float(x), 8) for x in self.scale],
            "weights": [round(float(x), 8) for x in self.weights],
            "bias": round(float(self.bias), 8),
            "thresholds": {k: round(float(v), 6) for k, v in self.thresholds.items()},
        }

    @staticmethod
    def from_json(o: dict[str, Any], where: str) -> ServiceModel:
        try:
            feats = [str(x) for x in o["features"]]
            pairs = [(str(a), str(b)) for a, b in o.get("pairs", [])]
            m = ServiceModel(
                feats,
                pairs,
                np.asarray(o["mean"], dtype=np.float64),
                np.asarray(o["scale"], dtype=np.float64),
                np.asarray(o["weights"], dtype=np.float64),
                float(o["bias"]),
                {str(k): float(v) for k, v in o.get("thresholds", {}).items()},
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ModelError(
                f"{where}: not a valid gate model ({e!r}); retrain it with `edge-assist gate train`"
            ) from None
        n = len(feats) + len(pairs)
        if not (len(m.mean) == len(m.scale) == len(m.weights) == n) or not np.all(np.isfinite(m.weights)):
            raise ModelError(
                f"{where}: gate weights do not match its {n} features; retrain it with `edge-assist gate "
                f"train`"
            )
        if np.any(m.scale <= 0):
            raise ModelError(
                f"{where}: gate scales must be positive; retrain it with `edge-assist gate train`"
            )
        return m


@dataclass
class Gate:
    services: dict[str, ServiceModel]
    training: dict[str, Any] = field(default_factory=dict)
    path: str = ""
    inputs: str = "features"

    @classmethod
    def load(cls, path: str | Path = SHIPPED) -> Gate:
        p = Path(path)
        try:
            o = json.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ModelError(
                f"{p}: the gate model is missing; set reasoner.gate_file to a trained gate, "
                "or train one with `edge-assist gate train`"
            ) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ModelError(
                f"{p}: the gate model is unreadable ({e}); retrain it with `edge-assist gate train`"
            ) from None
        if not isinstance(o, dict) or o.get("format") != FORMAT or not isinstance(o.get("services"), dict):
            raise ModelError(
                f"{p}: not an edge-assist gate model (format {FORMAT}); retrain it with `edge-assist gate "
                f"train`"
            )
        inputs = str(o.get("inputs", "features"))
        if inputs not in INPUTS:
            raise ModelError(
                f"{p}: gate inputs {inputs!r} unknown (known: {', '.join(INPUTS)}); retrain it with "
                "`edge-assist gate train`"
            )
        services = {str(k): ServiceModel.from_json(v, str(p)) for k, v in o["services"].items()}
        for name, m in services.items():
            missing = [c for c in CHATTINESS if c not in m.thresholds]
            if missing:
                raise ModelError(
                    f"{p}: service {name} has no {missing[0]!r} threshold; retrain it with `edge-assist gate "
                    f"train`"
                )
        return cls(services, dict(o.get("training", {})), str(p), inputs)

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(p.suffix + ".tmp")
        doc: dict[str, Any] = {"format": FORMAT}
        if self.inputs != "features":
            doc["inputs"] = self.inputs
        doc |= {"services": {k: v.to_json() for k, v in self.services.items()}, "training": self.training}
        tmp.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8")
        tmp.replace(p)
        return p

    def probability(self, service: str, feats: dict[str, float]) -> float | None:
        m = self.services.get(service)
        return m.probability(feats) if m is not None else None

    def threshold(self, service: str, chattiness: str) -> float:
        return self.services[service].thresholds[chattiness]
