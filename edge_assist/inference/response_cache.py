"""Replay a model's answer to an identical request: for evaluation and development runs.

An evaluation replays the same recordings through several configurations (our row,
five retrieval ablations, the no-memory row). At temperature 0 a request that is
identical in every input (model file, context size, seed, messages, schema, token
limit, temperature) gets the same answer, and most requests *are* identical across
rows: the memory writer's entity and roll-up calls, and every pass 1 whose prompt an
ablation does not change. Answering those from a file turns a 17-hour report into a
few hours, and lets an interrupted run resume where it stopped.

The key covers every input of the request, so a cached answer is exactly the one the
model would give; nothing approximate is ever reused. Cancelled or failed generations
are not stored. The file is SQLite (WAL), so several worker processes share it.

Live use never turns this on: a wearer's glasses never see the same request twice,
and a stale answer there would be a bug, not a saving.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from edge_assist.errors import ConfigError
from edge_assist.inference.base import GenerationCancelled, Message, StopFlag

SCHEMA_VERSION = 1
OPEN_WAIT_S = 60.0  # how long a worker retries a cache another process is still creating
log = logging.getLogger(__name__)


class ResponseCache:
    """A key → answer table in one SQLite file, safe across threads and processes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        deadline = time.monotonic() + OPEN_WAIT_S
        while True:
            try:
                row = self._open()
                break
            except sqlite3.OperationalError as e:
                # Worker processes that start together all set WAL mode and create the tables on
                # the same new file; SQLite answers "locked" at once to all but one (its busy
                # timeout does not cover a journal-mode change), so the others try again.
                if "locked" not in str(e) or time.monotonic() >= deadline:
                    raise ConfigError(
                        f"response cache {self.path} cannot be opened ({e}); delete it or point "
                        "models.response_cache elsewhere"
                    ) from None
                time.sleep(0.05)
            except sqlite3.DatabaseError as e:
                raise ConfigError(
                    f"response cache {self.path} cannot be opened ({e}); delete it or point "
                    f"models.response_cache elsewhere"
                ) from None
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise ConfigError(
                f"response cache {self.path} has format {row[0] if row else '?'}, this build writes "
                f"{SCHEMA_VERSION}; "
                "delete the file"
            )
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.saved_s = 0.0  # compute time the hits would have cost

    def _open(self) -> Any:
        """Connect, set WAL mode, create the tables; the stored schema version (a row) or None."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(str(self.path), timeout=60.0, check_same_thread=False, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
                "answer TEXT NOT NULL, seconds REAL NOT NULL, created REAL NOT NULL)"
            )
            db.execute("CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL)")
            db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            row = db.execute("SELECT v FROM meta WHERE k = 'schema_version'").fetchone()
        except BaseException:
            db.close()
            raise
        self._db = db
        return row

    def get(self, key: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT answer, seconds FROM answers WHERE key = ?", (key,)).fetchone()
            if row is None:
                self.misses += 1
                return None
            self.hits += 1
            self.saved_s += float(row[1])
            return str(row[0])

    def put(self, key: str, model: str, answer: str, seconds: float) -> None:
        with self._lock:
            try:
                self._db.execute(
                    "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?)",
                    (key, model, answer, seconds, time.time()),
                )
            except sqlite3.OperationalError as e:
                # A full disk or a locked file costs the saving, never the answer itself.
                log.warning(
                    "response cache %s: answer not stored (%s); free disk space or move the file",
                    self.path,
                    e,
                )

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def stats(self) -> dict[str, Any]:
        return {
            "hits": self.hits,
            "misses": self.misses,
            "saved_s": round(self.saved_s, 1),
            "path": str(self.path),
        }

    def close(self) -> None:
        with self._lock:
            self._db.close()


def request_key(identity: str, kind: str, payload: dict[str, Any]) -> str:
    blob = json.dumps({"model": identity, "kind": kind, **payload}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def model_identity(name: str, path: str | Path | None, **settings: Any) -> str:
    """Name, file (size and modification time, so a replaced file is a new model) and settings."""
    parts = [name]
    if path is not None:
        p = Path(path)
        st = p.stat()
        parts.append(f"{p.resolve()}:{st.st_size}:{st.st_mtime_ns}")
    parts.extend(f"{k}={settings[k]}" for k in sorted(settings))
    return "|".join(parts)


class CachedLLM:
    """An LLM whose identical requests are answered from a ResponseCache."""

    def __init__(self, inner: Any, cache: ResponseCache, identity: str) -> None:
        self.inner = inner
        self.cache = cache
        self.identity = identity
        self.name = inner.name

    def _cached(
        self, kind: str, payload: dict[str, Any], stop: StopFlag | None, compute: Callable[[], str]
    ) -> tuple[str, bool]:
        """(answer, came from the cache)."""
        if stop is not None and stop.is_set():
            raise GenerationCancelled(f"{self.name}: stopped before start")
        key = request_key(self.identity, kind, payload)
        hit = self.cache.get(key)
        if hit is not None:
            return hit, True
        t = time.perf_counter()
        answer = compute()  # GenerationCancelled and ModelError propagate: nothing is stored
        self.cache.put(key, self.identity, answer, time.perf_counter() - t)
        return answer, False

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
        payload = {
            "messages": list(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "schema": json_schema,
        }
        text, hit = self._cached(
            "chat",
            payload,
            stop,
            lambda: self.inner.chat(
                messages,
                max_tokens=max_tokens,
                temperature=temperature,
                json_schema=json_schema,
                stop=stop,
                on_token=on_token,
            ),
        )
        if hit and on_token is not None:
            on_token(text)  # a listener (speech) still hears the answer, in one piece
        return text

    def chat_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any],
        *,
        max_tokens: int = 256,
        temperature: float = 0.0,
        stop: StopFlag | None = None,
    ) -> dict[str, Any]:
        payload = {
            "messages": list(messages),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "schema": schema,
        }
        text, _ = self._cached(
            "chat_json",
            payload,
            stop,
            lambda: json.dumps(
                self.inner.chat_json(
                    messages, schema, max_tokens=max_tokens, temperature=temperature, stop=stop
                )
            ),
        )
        value = json.loads(text)
        assert isinstance(value, dict)
        return value

    def __getattr__(self, name: str) -> Any:
        # count_tokens, context_used, close ...: the wrapped model's own.
        return getattr(self.inner, name)
