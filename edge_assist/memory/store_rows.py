"""The store's row types and the checks every write makes on its input."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_assist.errors import EdgeAssistError, ModelError


class BadCaptionError(EdgeAssistError):
    """A caption that cannot be stored (empty text, t1 < t0, negative index)."""


@dataclass(frozen=True)
class Windows:
    """The roll-up windows a session was started with (seconds); fixed for its lifetime."""

    clip_s: float
    activity_s: float
    session_s: float


@dataclass(frozen=True)
class Item:
    id: int
    level: str
    session_id: str
    idx: int
    t0: float
    t1: float
    text: str
    clips: tuple[int, ...]
    partial: bool


@dataclass(frozen=True)
class KeyframeRow:
    k: int
    stream_t: float
    path: str
    bytes: int
    vector: np.ndarray | None


def _vec(v: np.ndarray, dim: int, what: str) -> bytes:
    a = np.asarray(v, dtype=np.float32).reshape(-1)
    if a.shape[0] != dim:
        raise ModelError(f"{what} vector has {a.shape[0]} dimensions, the store expects {dim}")
    return a.tobytes()


_ITEM_COLS = "id, level, session_id, idx, t0, t1, text, clips, partial"


def _item(r: Sequence[Any]) -> Item:
    return Item(r[0], r[1], r[2], r[3], r[4], r[5], r[6], tuple(json.loads(r[7])), bool(r[8]))
