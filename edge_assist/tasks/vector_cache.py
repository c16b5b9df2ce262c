"""Encoder vectors by text, shared by every tracker, recogniser and answerer of a process: step
texts and captions repeat, and encoding is the costly part of reading one."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

Encode = Callable[[Sequence[str]], np.ndarray]


class VectorCache:
    """Vectors by text, made by `encode` on first use; cleared whole past `max_items`."""

    def __init__(self, encode: Encode, max_items: int = 20000) -> None:
        self._encode = encode
        self._max = max_items
        self._v: dict[str, np.ndarray] = {}

    def get(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._v]
        if missing:
            vecs = np.asarray(self._encode(missing), dtype=np.float32)
            if len(self._v) + len(missing) > self._max:
                self._v.clear()
            for t, vv in zip(missing, vecs, strict=True):
                self._v[t] = vv
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([self._v[t] for t in texts])

    def add(self, texts: Sequence[str], vecs: np.ndarray) -> None:
        """Vectors this encoder made earlier (kept on disk): `get` then needs no encoder call."""
        if len(self._v) + len(texts) > self._max:
            self._v.clear()
        for t, vv in zip(texts, np.asarray(vecs, dtype=np.float32), strict=True):
            self._v.setdefault(t, vv)

    def __len__(self) -> int:
        return len(self._v)
