"""The evaluation response cache on the real SmolLM2: exact replay, nothing approximate."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from edge_assist.config import Config
from edge_assist.errors import ConfigError
from edge_assist.inference.base import LLM, GenerationCancelled, StopFlag
from edge_assist.inference.loader import load_llm, response_cache_stats
from edge_assist.inference.response_cache import CachedLLM, ResponseCache, model_identity
from tests.fakes import CountingLLM

SCHEMA = {
    "type": "object",
    "properties": {"colour": {"type": "string", "maxLength": 20}},
    "required": ["colour"],
}
MSGS = [{"role": "user", "content": "What colour is the sky on a clear day? Answer in JSON."}]


@pytest.mark.slow
def test_identical_request_is_replayed_and_survives_a_reopen(llm: LLM, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    counting = CountingLLM(llm)
    cached = CachedLLM(counting, ResponseCache(path), "smollm2|test")
    first = cached.chat_json(MSGS, SCHEMA, max_tokens=24)
    again = cached.chat_json(MSGS, SCHEMA, max_tokens=24)
    assert again == first and counting.calls == 1
    assert cached.cache.stats()["hits"] == 1 and cached.cache.stats()["misses"] == 1

    # Any input that differs is a different request: the model runs again.
    cached.chat_json(MSGS, SCHEMA, max_tokens=25)
    cached.chat(MSGS, max_tokens=24)
    assert counting.calls == 3

    reopened = CachedLLM(CountingLLM(llm), ResponseCache(path), "smollm2|test")
    assert reopened.chat_json(MSGS, SCHEMA, max_tokens=24) == first
    assert reopened.inner.calls == 0  # type: ignore[attr-defined]
    # Another model identity never sees these answers.
    other = CachedLLM(CountingLLM(llm), ResponseCache(path), "another-model")
    other.chat_json(MSGS, SCHEMA, max_tokens=24)
    assert other.inner.calls == 1  # type: ignore[attr-defined]


@pytest.mark.slow
def test_a_hit_still_reaches_the_token_listener(llm: LLM, tmp_path: Path) -> None:
    cached = CachedLLM(llm, ResponseCache(tmp_path / "c.sqlite"), "m")
    text = cached.chat(MSGS, max_tokens=12)
    heard: list[str] = []
    assert cached.chat(MSGS, max_tokens=12, on_token=heard.append) == text
    assert "".join(heard) == text


@pytest.mark.slow
def test_a_cancelled_generation_is_not_stored(llm: LLM, tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    cached = CachedLLM(llm, cache, "m")
    stop = StopFlag()
    stop.set()
    with pytest.raises(GenerationCancelled):
        cached.chat(MSGS, max_tokens=12, stop=stop)
    assert len(cache) == 0


def test_a_corrupt_cache_file_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "c.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ConfigError, match="delete it"):
        ResponseCache(bad)


def test_a_replaced_model_file_is_a_new_identity(tmp_path: Path) -> None:
    f = tmp_path / "m.gguf"
    f.write_bytes(b"a" * 10)
    before = model_identity("m", f, seed=0)
    assert model_identity("m", f, seed=1) != before
    f.write_bytes(b"b" * 11)
    os.utime(f, ns=(1, 1))
    assert model_identity("m", f, seed=0) != before


@pytest.mark.slow
def test_config_turns_it_on_for_the_loaded_model(tmp_path: Path) -> None:
    assert not isinstance(load_llm(Config()), CachedLLM)
    assert response_cache_stats(Config()) is None
    cfg = Config().replace(**{"models.response_cache": str(tmp_path / "c.sqlite")})
    cached = load_llm(cfg)
    assert isinstance(cached, CachedLLM)
    assert load_llm(cfg, copy="memory").cache is cached.cache  # type: ignore[attr-defined]
    cached.chat(MSGS, max_tokens=4)
    cached.chat(MSGS, max_tokens=4)
    stats = response_cache_stats(cfg)
    assert stats is not None and stats["hits"] >= 1


def test_a_cache_another_worker_is_still_creating_is_waited_for(tmp_path: Path) -> None:
    """`eval run --jobs N`: the workers open one new cache file together. While one of them is
    still creating it (a write transaction on the file, before WAL mode), SQLite said "database
    is locked" at once to the others, its busy timeout aside (seen in CI), and the run ended."""
    import sqlite3
    import subprocess
    import sys
    import time

    path = tmp_path / "cache.sqlite"
    first = sqlite3.connect(str(path), isolation_level=None)
    first.execute("BEGIN IMMEDIATE")  # the first worker, in the middle of creating the file
    first.execute("CREATE TABLE early (a)")
    # The worker signals once its imports are done, then opens the cache when told: the open
    # then surely meets the lock, however slow the machine is to import.
    code = (
        "import sys; from edge_assist.inference.response_cache import ResponseCache; "
        "print('ready', flush=True); sys.stdin.readline(); "
        "ResponseCache(sys.argv[1]).put('k', 'm', 'a', 0.1); print('ok')"
    )
    other = subprocess.Popen(
        [sys.executable, "-c", code, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert other.stdout is not None and other.stdin is not None
    assert other.stdout.readline().strip() == "ready"
    other.stdin.write("go\n")
    other.stdin.flush()
    time.sleep(1.0)  # the worker is opening now, against the lock: it must wait, not fail
    first.execute("COMMIT")
    first.close()
    out, err = other.communicate(timeout=120)
    assert other.returncode == 0 and out.strip() == "ok", err
    assert ResponseCache(path).get("k") == "a"
