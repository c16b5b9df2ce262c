"""The in-process LLM: a GGUF model run by llama.cpp (llama-cpp-python).

Owns model loading (with a one-line error for a missing, corrupt or truncated file),
chat completion with token streaming, JSON-schema-constrained answers through a
llama.cpp grammar (so a structured answer parses by construction), and cooperative
cancellation: the StopFlag is checked between tokens. One lock per loaded model, because
a llama.cpp context is not safe to use from two threads at once.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from edge_assist.errors import AnswerCutError, ModelError
from edge_assist.inference.base import GenerationCancelled, Message, StopFlag
from edge_assist.inference.json_schema import check_against_schema

log = logging.getLogger(__name__)

GGUF_MAGIC = b"GGUF"


def check_gguf(path: Path, what: str, fix: str) -> None:
    """Fail early with a clear message: llama.cpp's own message for a bad file is vague."""
    if not path.is_file():
        raise ModelError(f"{what} {path} does not exist; {fix}")
    with open(path, "rb") as fh:
        head = fh.read(8)
    if len(head) < 8 or head[:4] != GGUF_MAGIC:
        raise ModelError(f"{what} {path} is not a GGUF file (corrupt or truncated); {fix}")


def resolve_threads(threads: int) -> int:
    """0 means "choose": all cores but one.

    llama.cpp's worker threads spin while they wait for each other; when any other work
    (the ONNX encoders, the Python loop, another process) takes a core, one descheduled
    worker stalls the rest. Measured on 2 cores with another process busy: 64 tokens took
    0.8 s on 1 thread and 225 s on 2. Leaving a core free avoids that cliff.
    """
    if threads > 0:
        return threads
    return max(1, (os.cpu_count() or 1) - 1)


class LlamaLLM:
    """A chat model in this process. Plain synchronous class; call it from a worker thread."""

    def __init__(
        self,
        model_path: str | Path,
        *,
        name: str = "",
        context_tokens: int = 2048,
        threads: int = 0,
        seed: int = 0,
        chat_handler: Any = None,
        fix_hint: str = "re-download it or fix [models] in the config",
    ) -> None:
        from llama_cpp import Llama  # heavy import, kept local so `--help` stays fast

        path = Path(model_path)
        self.name = name or path.stem
        self.path = path
        self.seed = seed
        self.context_tokens = context_tokens
        self.threads = resolve_threads(threads)
        check_gguf(path, "model file", fix_hint)
        try:
            self._llama = Llama(
                model_path=str(path),
                n_ctx=context_tokens,
                n_threads=self.threads,
                n_threads_batch=self.threads,
                seed=seed,
                chat_handler=chat_handler,
                verbose=False,
            )
        except ValueError as e:
            raise ModelError(
                f"llama.cpp cannot load {path} ({e}); the file is corrupt or truncated: {fix_hint}"
            ) from None
        self.lock = threading.Lock()
        self._grammars: dict[str, Any] = {}
        self._closed = False

    def _live(self) -> Any:
        """The llama.cpp model, or a clear error once closed: llama.cpp reads freed memory
        (a segfault, seen in the test suite) if a closed model is asked again."""
        if self._closed:
            raise ModelError(f"{self.name} was closed; load the model again (it is no longer shared)")
        return self._llama

    # -- structured output ---------------------------------------------------------
    def _grammar(self, schema: dict[str, Any]) -> Any:
        from llama_cpp import LlamaGrammar

        # Insertion order, not sorted: the grammar emits properties in the order the schema
        # lists them, and prompts rely on that (reason first, decide last).
        key = json.dumps(schema)
        g = self._grammars.get(key)
        if g is None:
            try:
                g = LlamaGrammar.from_json_schema(key, verbose=False)
            except (ValueError, RuntimeError, KeyError) as e:
                raise ModelError(
                    f"JSON schema cannot be turned into a grammar ({e}); simplify the schema"
                ) from None
            self._grammars[key] = g
        return g

    # -- generation ----------------------------------------------------------------
    def _stream(self, messages: Sequence[Message], kwargs: dict[str, Any]) -> Iterator[Any]:
        try:
            msgs: Any = list(messages)  # our Message dicts are the OpenAI shape llama-cpp types spell out
            return iter(self._live().create_chat_completion(messages=msgs, stream=True, **kwargs))
        except ValueError as e:
            raise ModelError(f"{self.name}: {e}; shorten the prompt or raise models.context_tokens") from None

    def generate(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        json_schema: dict[str, Any] | None,
        stop: StopFlag | None,
        on_token: Callable[[str], None] | None,
    ) -> str:
        kwargs: dict[str, Any] = {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": self.seed,
        }
        if json_schema is not None:
            kwargs["grammar"] = self._grammar(json_schema)
        parts: list[str] = []
        with self.lock:
            if stop is not None and stop.is_set():
                raise GenerationCancelled(f"{self.name}: stopped before start")
            chunks = self._stream(messages, kwargs)
            # Closing the generator frees llama.cpp's sampler state even when we stop early.
            with contextlib.closing(chunks):  # type: ignore[type-var]
                while True:
                    try:
                        chunk = next(chunks)
                    except StopIteration:
                        break
                    except ValueError as e:
                        raise ModelError(
                            f"{self.name}: {e}; shorten the prompt or raise models.context_tokens"
                        ) from None
                    delta = chunk["choices"][0].get("delta", {}).get("content")
                    if delta:
                        parts.append(delta)
                        if on_token is not None:
                            on_token(delta)
                    if stop is not None and stop.is_set():
                        raise GenerationCancelled(f"{self.name}: stopped after {len(parts)} tokens")
        return "".join(parts)

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
        return self.generate(
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
        text = self.chat(
            messages, max_tokens=max_tokens, temperature=temperature, json_schema=schema, stop=stop
        )
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            # The grammar makes every prefix valid, so a parse failure means the answer was cut.
            raise AnswerCutError(
                f"{self.name}: the JSON answer was cut at max_tokens={max_tokens} before it closed",
                max_tokens,
            ) from None
        problem = check_against_schema(value, schema)
        if problem:
            raise ModelError(f"{self.name}: JSON answer does not match the schema ({problem})")
        if not isinstance(value, dict):
            raise ModelError(
                f"{self.name}: expected a JSON object, got {type(value).__name__}; use an object schema"
            )
        return value

    def context_used(self) -> int:
        """Tokens in the context after the last call: prompt (with image tokens) + answer."""
        return int(self._live().n_tokens)

    def count_tokens(self, text: str) -> int:
        return len(self._live().tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def close(self) -> None:
        """Free the model. `load_llm` shares one instance per configuration, so it is taken
        out of the loader's cache first: the next `load_llm` loads a new one."""
        from edge_assist.inference.loader import forget

        forget(self)
        with self.lock:
            if not self._closed:
                self._closed = True
                self._llama.close()
