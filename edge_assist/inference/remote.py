"""The remote backend: the LLM and VLM protocols over an OpenAI-compatible
`/v1/chat/completions` endpoint (llama-server on a phone, vLLM or Ollama on a server).

Standard library only (urllib). Owns timeouts, retries with backoff for transient
failures (connection errors, timeouts, HTTP 429 and 5xx), JSON-schema answers through
`response_format` (checked on our side too; an invalid answer is a `ModelError`, which the
reasoner's `call_json` retries once), token
streaming over server-sent events with the StopFlag checked between chunks, and images
sent as data URIs. The API key is read from the environment variable the config names,
never from the config file.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from edge_assist.config import RemoteConfig
from edge_assist.errors import ModelError
from edge_assist.inference.base import GenerationCancelled, Message, StopFlag
from edge_assist.inference.json_schema import check_against_schema
from edge_assist.inference.llama_vlm import image_data_uri, vision_messages

log = logging.getLogger(__name__)

RETRY_BACKOFF_S = 0.25  # first wait after a failed request; doubles each retry
RETRY_BACKOFF_MAX_S = 4.0
_TRANSIENT_HTTP = {408, 425, 429, 500, 502, 503, 504}


class _Transient(Exception):
    """A failure worth retrying."""


class RemoteClient:
    """One endpoint: POST JSON, retry what is transient, explain what is not."""

    def __init__(self, cfg: RemoteConfig) -> None:
        self.cfg = cfg
        self.url = cfg.base_url.rstrip("/") + "/chat/completions"
        if not self.url.startswith(("http://", "https://")):
            raise ModelError(f"remote.base_url {cfg.base_url!r} must start with http:// or https://")
        self.requests = 0  # counted, so tests and benchmarks can see retries happen

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        key = os.environ.get(self.cfg.api_key_env, "") if self.cfg.api_key_env else ""
        if key:
            h["Authorization"] = f"Bearer {key}"
        return h

    def _open(self, body: dict[str, Any]) -> Any:
        req = urllib.request.Request(
            self.url, data=json.dumps(body).encode("utf-8"), headers=self._headers(), method="POST"
        )
        self.requests += 1
        try:
            return urllib.request.urlopen(req, timeout=self.cfg.timeout_s)
        except urllib.error.HTTPError as e:
            detail = _error_text(e)
            if e.code in _TRANSIENT_HTTP:
                raise _Transient(f"HTTP {e.code}: {detail}") from None
            raise ModelError(
                f"remote model server at {self.cfg.base_url} refused the request (HTTP {e.code}: {detail})"
            ) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            reason = getattr(e, "reason", e)
            raise _Transient(f"{type(reason).__name__}: {reason}") from None

    def with_retries(self, attempt: Callable[[], Any]) -> Any:
        last = ""
        for i in range(self.cfg.retries + 1):
            try:
                return attempt()
            except _Transient as e:
                last = str(e)
                if i < self.cfg.retries:
                    wait = min(RETRY_BACKOFF_MAX_S, RETRY_BACKOFF_S * 2**i)
                    # Retried here; a final failure is the error below, which names the settings.
                    log.debug("remote request failed (%s); retry %d in %.2f s", last, i + 1, wait)
                    time.sleep(wait)
        raise ModelError(
            f"remote model server at {self.cfg.base_url} did not answer after {self.cfg.retries + 1} tries "
            f"({last}); "
            "check that it runs, or raise remote.timeout_s / remote.retries"
        )

    def complete(self, body: dict[str, Any]) -> str:
        """Non-streaming request: the first choice's message content."""

        def attempt() -> str:
            with self._open(body) as resp:
                try:
                    data = json.loads(resp.read().decode("utf-8"))
                except TimeoutError as e:
                    raise _Transient(f"timeout while reading: {e}") from None
                except (UnicodeDecodeError, json.JSONDecodeError):
                    raise ModelError(
                        f"remote server at {self.cfg.base_url} did not answer with JSON; is it "
                        f"OpenAI-compatible?"
                    ) from None
            return _content(data, self.cfg.base_url)

        return str(self.with_retries(attempt))

    def stream(
        self, body: dict[str, Any], stop: StopFlag | None, on_token: Callable[[str], None] | None
    ) -> str:
        """Streaming request (server-sent events). Retried only before the first token:
        after that the wearer may already have heard part of the answer."""
        parts: list[str] = []

        def attempt() -> str:
            with self._open({**body, "stream": True}) as resp:
                try:
                    for delta in _sse_deltas(resp, self.cfg.base_url):
                        if stop is not None and stop.is_set():
                            raise GenerationCancelled("remote generation stopped")
                        if delta:
                            parts.append(delta)
                            if on_token is not None:
                                on_token(delta)
                except (TimeoutError, ConnectionError) as e:
                    if parts:
                        raise ModelError(
                            f"remote server at {self.cfg.base_url} stopped mid-answer ({e})"
                        ) from None
                    raise _Transient(f"{type(e).__name__}: {e}") from None
            if stop is not None and stop.is_set():
                raise GenerationCancelled("remote generation stopped")
            return "".join(parts)

        return str(self.with_retries(attempt))


def _error_text(e: urllib.error.HTTPError) -> str:
    try:
        raw = e.read().decode("utf-8", "replace")
        data = json.loads(raw)
        msg = data.get("error", data)
        if isinstance(msg, dict):
            msg = msg.get("message", msg)
        return " ".join(str(msg).split())[:200]
    except Exception:  # any unreadable body: the status line is enough
        return str(e.reason)


def _content(data: Any, where: str) -> str:
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ModelError(
            f"remote server at {where} answered without choices[0].message.content; is it OpenAI-compatible?"
        ) from None
    return content or ""


def _sse_deltas(resp: Any, where: str) -> Iterator[str]:
    for raw in resp:
        line = raw.decode("utf-8", "replace").strip()
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            return
        try:
            chunk = json.loads(payload)
            yield (chunk["choices"][0].get("delta") or {}).get("content") or ""
        except (json.JSONDecodeError, KeyError, IndexError, TypeError):
            raise ModelError(
                f"remote server at {where} sent a malformed stream chunk: {payload[:80]!r}"
            ) from None


def _schema_format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}


class RemoteLLM:
    """LLM protocol over HTTP. Thread-safe: urllib opens one connection per request."""

    def __init__(self, cfg: RemoteConfig, model: str | None = None) -> None:
        self.client = RemoteClient(cfg)
        self.model = cfg.llm_model if model is None else model
        self.name = f"remote:{self.model or 'default'}"
        self.lock = threading.Lock()  # unused by requests; kept so callers can treat models alike

    def _body(self, messages: Sequence[Message], max_tokens: int, temperature: float) -> dict[str, Any]:
        body: dict[str, Any] = {
            "messages": list(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if self.model:
            body["model"] = self.model
        return body

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
        if stop is not None and stop.is_set():
            raise GenerationCancelled("remote generation stopped before start")
        body = self._body(messages, max_tokens, temperature)
        if json_schema is not None:
            body["response_format"] = _schema_format(json_schema)
        if stop is not None or on_token is not None:
            return self.client.stream(body, stop, on_token)
        return self.client.complete(body)

    def chat_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: StopFlag | None = None,
    ) -> dict[str, Any]:
        # One request: the retry rule for a bad answer lives in one place, the reasoner's
        # `call_json` (which also doubles the token allowance); retrying here as well made
        # a misbehaving server answer four times per decision.
        text = self.chat(
            messages, max_tokens=max_tokens, temperature=temperature, json_schema=schema, stop=stop
        )
        try:
            value = json.loads(_strip_fence(text))
        except json.JSONDecodeError:
            problem = f"not JSON: {text[:60]!r}"
        else:
            problem = check_against_schema(value, schema) or (
                "" if isinstance(value, dict) else "not a JSON object"
            )
            if not problem:
                return dict(value)
        raise ModelError(
            f"{self.name} answered without valid JSON for the schema ({problem}); "
            "use a server that supports response_format json_schema"
        )


def _strip_fence(text: str) -> str:
    # Chat models behind a server without grammar support like to wrap JSON in ``` fences.
    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else t[3:]
        t = t.rsplit("```", 1)[0]
    return t.strip()


class RemoteVLM:
    """VLM protocol over HTTP: images travel as data URIs in one user turn."""

    def __init__(self, cfg: RemoteConfig, image_size_px: int = 0, image_format: str = "jpeg") -> None:
        self.client = RemoteClient(cfg)
        self.model = cfg.vlm_model
        self.name = f"remote:{self.model or 'default'}"
        self.image_size_px = image_size_px
        self.image_format = image_format
        self.lock = threading.Lock()

    def describe(
        self,
        images: Sequence[np.ndarray],
        prompt: str,
        *,
        max_tokens: int = 128,
        temperature: float = 0.0,
        stop: StopFlag | None = None,
    ) -> str:
        if not images:
            raise ModelError("describe() needs at least one image; for text alone use the LLM")
        if stop is not None and stop.is_set():
            raise GenerationCancelled("remote generation stopped before start")
        uris = [image_data_uri(img, self.image_size_px, self.image_format) for img in images]
        body: dict[str, Any] = {
            "messages": vision_messages(uris, prompt),
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if self.model:
            body["model"] = self.model
        if stop is not None:
            return self.client.stream(body, stop, None)
        return self.client.complete(body)
