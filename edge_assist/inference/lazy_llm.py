"""An LLM loaded on its first call, so a process that does not need one yet does not wait for it.

The first decision after switching on is the gate's (a classifier, milliseconds) worded by a
template: no language model. Loading SmolLM2 costs about 0.2 s of CPU per copy on this
2-core machine (the reasoner's and the memory writer's), more on a Pi, and llama.cpp's
import and the model's pages add to the peak memory of a start that never uses them. The
first summary, question or LLM phrasing loads it, through the loader's shared cache, so
what it answers is the same as from a model loaded at start.

A missing model file is still an error at start (the loader checks the file before it
hands this out): a wearer learns it when switching on, not at the first question.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from edge_assist.inference.base import LLM, Message, StopFlag


class LazyLLM:
    """Stands in for the LLM `load` returns, and calls `load` once, on the first request."""

    def __init__(self, name: str, load: Callable[[], LLM]) -> None:
        self.name = name
        self._load = load
        self._llm: LLM | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    def model(self) -> LLM:
        """The loaded model (loading it now if no call has yet)."""
        if self._llm is None:
            with self._lock:
                if self._llm is None:
                    self._llm = self._load()
        return self._llm

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
        return self.model().chat(
            messages,
            max_tokens=max_tokens,
            temperature=temperature,
            json_schema=json_schema,
            stop=stop,
            on_token=on_token,
        )

    def chat_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: StopFlag | None = None,
    ) -> dict[str, Any]:
        return self.model().chat_json(
            messages, schema, max_tokens=max_tokens, temperature=temperature, stop=stop
        )

    def close(self) -> None:
        """Close the model if a call loaded it; one never loaded has nothing to free."""
        with self._lock:
            llm, self._llm = self._llm, None
        close = getattr(llm, "close", None)
        if close is not None:
            close()
