"""The phrase-list hazard matcher: the hazard vocabulary (`edge_assist/data/hazards.toml`)
matched by encoder cosine against a caption and, with an image encoder, a keyframe (CLIP's text
tower encodes the same phrases). No longer the assistant's Safety source (that is the
compositional detector in `hazards.py`); kept as the baseline row of the hazard benchmark
(benchmarks/hazard_eval.py) and for keyframe matching, which the detector does not do.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edge_assist.errors import ConfigError
from edge_assist.inference.base import ImageEncoder, TextEncoder
from edge_assist.tasks.vector_file import VectorFile, Wanted, digest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

VOCABULARY = Path(__file__).resolve().parents[1] / "data" / "hazards.toml"
# Chosen on hand-made clear/ordinary pairs (tests) and checked against the firing rate on
# the error-free CaptainCook4D train recordings; MiniLM cosine.
TEXT_THRESHOLD = 0.6
IMAGE_THRESHOLD = 0.27  # CLIP image-text cosines are much lower than text-text ones


@dataclass(frozen=True)
class Hazard:
    kind: str
    phrase: str
    cosine: float
    say: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "phrase": self.phrase, "cosine": round(self.cosine, 3)}


class HazardMatcher:
    def __init__(
        self,
        entries: list[tuple[str, str, str]],
        encoder: TextEncoder,
        image_encoder: ImageEncoder | None = None,
        threshold: float = TEXT_THRESHOLD,
        ordinary: list[str] | None = None,
        margin: float = 0.0,
        *,
        vector_file: VectorFile | None = None,
        source: str = "",
    ) -> None:
        self.entries = entries  # (kind, phrase, say)
        self.threshold = threshold
        self.margin = margin

        def encode(slot: str, texts: list[str]) -> np.ndarray:
            # `source`: the vocabulary file's hash, which its vectors on disk are kept by.
            if vector_file is None or not source:
                return np.asarray(encoder.encode(texts), dtype=np.float32)
            return vector_file.vectors([Wanted(slot, source, tuple(texts))], encoder.encode)[0]

        self._vecs = encode("hazards", [p for _, p, _ in entries])
        self._ordinary = encode("hazards:ordinary", ordinary) if ordinary else None
        self._encoder = encoder
        self._image_vecs = (
            np.asarray(image_encoder.encode_texts([p for _, p, _ in entries]), dtype=np.float32)
            if image_encoder is not None
            else None
        )

    @classmethod
    def load(
        cls,
        encoder: TextEncoder,
        path: str | Path = VOCABULARY,
        *,
        image_encoder: ImageEncoder | None = None,
        threshold: float = TEXT_THRESHOLD,
        vector_file: VectorFile | None = None,
    ) -> HazardMatcher:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
            doc = tomllib.loads(text)
        except FileNotFoundError:
            raise ConfigError(
                f"{p}: the hazard vocabulary is missing; reinstall edge-assist or point to a copy"
            ) from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{p}: not a valid hazard vocabulary ({e})") from None
        entries = []
        for i, h in enumerate(doc.get("hazard", []), start=1):
            if (
                not isinstance(h, dict)
                or not isinstance(h.get("kind"), str)
                or not isinstance(h.get("phrases"), list)
            ):
                raise ConfigError(f'{p}: hazard {i} needs kind = "..." and phrases = [...]')
            say = str(h.get("say") or f"Careful: {h['kind']} hazard.")
            entries += [(h["kind"], str(ph), say) for ph in h["phrases"]]
        if not entries:
            raise ConfigError(f"{p}: no [[hazard]] entries")
        ordinary = doc.get("ordinary", {})
        return cls(
            entries,
            encoder,
            image_encoder,
            threshold,
            [str(x) for x in ordinary.get("phrases", [])],
            float(ordinary.get("margin", 0.0)),
            vector_file=vector_file,
            source=digest(text),
        )

    def cosine(self, vec: np.ndarray) -> float:
        """How much closer the caption is to a hazard than to the ordinary use (a gate feature)."""
        v = np.asarray(vec, dtype=np.float32)
        base = float((self._ordinary @ v).max()) if self._ordinary is not None else 0.0
        return float((self._vecs @ v).max()) - base

    def match(self, vec: np.ndarray) -> Hazard | None:
        v = np.asarray(vec, dtype=np.float32)
        sims = self._vecs @ v
        i = int(np.argmax(sims))
        if sims[i] < self.threshold:
            return None
        if self._ordinary is not None and sims[i] - float((self._ordinary @ v).max()) < self.margin:
            return None
        kind, phrase, say = self.entries[i]
        return Hazard(kind, phrase, float(sims[i]), say)

    def match_image(self, image_vec: np.ndarray) -> Hazard | None:
        if self._image_vecs is None:
            return None
        sims = self._image_vecs @ np.asarray(image_vec, dtype=np.float32)
        i = int(np.argmax(sims))
        if sims[i] < IMAGE_THRESHOLD:
            return None
        kind, phrase, say = self.entries[i]
        return Hazard(kind, phrase, float(sims[i]), say)
