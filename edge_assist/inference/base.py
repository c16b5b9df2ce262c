"""The small interfaces every model backend implements.

Stages and stores depend on these protocols only, so a local llama.cpp model, a remote
server or a different encoder can be swapped by config. All calls are synchronous and
may block: callers run them through the clock's `run_blocking` (a worker thread).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

Message = dict[str, Any]  # {"role": "system"|"user"|"assistant", "content": str}


class StopFlag:
    """Cooperative cancellation: a generation checks it between tokens."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def set(self) -> None:
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def clear(self) -> None:
        self._event.clear()


class GenerationCancelled(Exception):
    """Raised by a generation whose StopFlag was set."""


@runtime_checkable
class LLM(Protocol):
    name: str

    def chat(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        stop: StopFlag | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> str:
        """Complete a chat. With `json_schema` the answer is grammar-constrained JSON text."""
        ...

    def chat_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: StopFlag | None = None,
    ) -> dict[str, Any]:
        """Complete a chat whose answer is parsed JSON valid against `schema`."""
        ...


@runtime_checkable
class VLM(Protocol):
    name: str

    def describe(
        self,
        images: Sequence[np.ndarray],
        prompt: str,
        *,
        max_tokens: int = 128,
        temperature: float = 0.0,
        stop: StopFlag | None = None,
    ) -> str:
        """Answer `prompt` about BGR uint8 images (one request, several images allowed)."""
        ...


@runtime_checkable
class TextEncoder(Protocol):
    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32, each row L2-normalised."""
        ...


@runtime_checkable
class ImageEncoder(Protocol):
    """A CLIP-style dual encoder: images and texts land in one embedding space."""

    name: str
    dim: int

    def encode_images(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """(len(images), dim) float32 L2-normalised, from BGR uint8 images."""
        ...

    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32 L2-normalised, comparable with encode_images."""
        ...


# Settings already named in a "raise it" warning: a long run warns once per key, not every step.
_WARNED_SETTINGS: set[str] = set()


def warn_answer_cut(log: logging.Logger, what: str, setting: str, max_tokens: int) -> None:
    """An answer ran out of tokens: one warning per process naming the key to raise, then debug.

    With no `setting` (a fixed allowance) there is nothing to set: a debug line only.
    """
    if not setting:
        log.debug("%s: the model's answer did not fit in %d tokens", what, max_tokens)
        return
    level = logging.DEBUG if setting in _WARNED_SETTINGS else logging.WARNING
    _WARNED_SETTINGS.add(setting)
    log.log(
        level,
        "%s: the model's answer did not fit in %d tokens; raise %s above %d",
        what,
        max_tokens,
        setting,
        max_tokens,
    )
