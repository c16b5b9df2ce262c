"""SmolLM2 through llama.cpp: chat, JSON-schema-constrained answers, streaming, cancellation."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from edge_assist.config import Config
from edge_assist.errors import ModelError
from edge_assist.inference.base import LLM, GenerationCancelled, StopFlag
from edge_assist.inference.json_schema import check_against_schema
from edge_assist.inference.llama_llm import LlamaLLM
from edge_assist.inference.loader import load_llm

pytestmark = pytest.mark.slow

DECISION = {
    "type": "object",
    "properties": {
        "reason": {"type": "string", "maxLength": 80},
        "decision": {"type": "string", "enum": ["silent", "speak"]},
        "sub_type": {"type": "string", "enum": ["SA", "NSG", "ER", "none"]},
    },
    "required": ["reason", "decision", "sub_type"],
}


def test_llm_is_protocol_and_cached(llm: LLM) -> None:
    assert isinstance(llm, LLM)
    assert load_llm(Config()) is llm  # same config: same loaded object


def test_chat_answers(llm: LLM) -> None:
    out = llm.chat(
        [{"role": "user", "content": "What is the capital of France? Answer in one word."}], max_tokens=16
    )
    assert "paris" in out.lower()


def test_chat_json_is_schema_valid(llm: LLM) -> None:
    msgs = [
        {"role": "system", "content": "You decide whether an assistant should speak. Answer in JSON."},
        {"role": "user", "content": "The wearer is holding a knife by the blade."},
    ]
    value = llm.chat_json(msgs, DECISION, max_tokens=96)
    assert check_against_schema(value, DECISION) == ""
    assert value["decision"] in ("silent", "speak")


def test_streaming_tokens_add_up(llm: LLM) -> None:
    seen: list[str] = []
    out = llm.chat(
        [{"role": "user", "content": "Count from one to five."}], max_tokens=24, on_token=seen.append
    )
    assert len(seen) > 3
    assert "".join(seen) == out


def test_same_seed_repeats(llm: LLM) -> None:
    msgs = [{"role": "user", "content": "Write a short sentence about tea."}]
    a = llm.chat(msgs, max_tokens=20, temperature=0.8)
    b = llm.chat(msgs, max_tokens=20, temperature=0.8)
    assert a == b


def test_cancel_stops_long_generation_within_200ms(llm: LLM) -> None:
    stop = StopFlag()
    started = threading.Event()
    result: dict[str, object] = {}
    heard: list[str] = []

    def on_token(token: str) -> None:
        heard.append(token)
        if len(heard) >= 8:  # well into the generation
            started.set()

    def run() -> None:
        try:
            llm.chat(
                [{"role": "user", "content": "Write a very long story about a dragon and a knight."}],
                max_tokens=1500,
                temperature=0.7,
                stop=stop,
                on_token=on_token,
            )
            result["outcome"] = "finished"
        except GenerationCancelled:
            result["outcome"] = "cancelled"
        result["t_end"] = time.perf_counter()

    th = threading.Thread(target=run)
    th.start()
    assert started.wait(30)
    t_set = time.perf_counter()
    stop.set()
    th.join(10)
    assert result["outcome"] == "cancelled"
    assert float(result["t_end"]) - t_set < 0.2  # type: ignore[arg-type]


def test_stop_already_set_never_starts(llm: LLM) -> None:
    stop = StopFlag()
    stop.set()
    with pytest.raises(GenerationCancelled):
        llm.chat([{"role": "user", "content": "hi"}], stop=stop)


def test_cut_json_is_a_model_error(llm: LLM) -> None:
    with pytest.raises(ModelError, match="max_tokens"):
        llm.chat_json([{"role": "user", "content": "Decide."}], DECISION, max_tokens=3)


def test_prompt_over_context_is_model_error(tmp_path: Path) -> None:
    cfg = Config().replace(**{"models.context_tokens": 256})
    small = load_llm(cfg)
    with pytest.raises(ModelError, match="context_tokens"):
        small.chat([{"role": "user", "content": "word " * 600}], max_tokens=8)


def test_truncated_gguf_is_one_line_model_error(tmp_path: Path, llm: LLM) -> None:
    src = Path(llm.path)  # type: ignore[attr-defined]
    bad = tmp_path / "truncated.gguf"
    with open(src, "rb") as fh:
        bad.write_bytes(fh.read(2_000_000))
    with pytest.raises(ModelError) as e:
        LlamaLLM(bad)
    assert "\n" not in str(e.value) and "truncated" in str(e.value)


def test_not_a_gguf_is_model_error(tmp_path: Path) -> None:
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"<html>404 Not Found</html>")
    with pytest.raises(ModelError, match="not a GGUF"):
        LlamaLLM(bad)


def test_cut_answers_warn_once_naming_the_setting(
    llm: LLM, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """`ask --choices` once printed four "raise max_tokens" warnings naming no setting."""
    import asyncio
    import logging

    from edge_assist.clock import RealClock
    from edge_assist.errors import AnswerCutError
    from edge_assist.inference import base
    from edge_assist.inference.llm_call import call_json

    with pytest.raises(AnswerCutError) as e:
        llm.chat_json([{"role": "user", "content": "Decide."}], DECISION, max_tokens=3)
    assert e.value.max_tokens == 3
    monkeypatch.setattr(base, "_WARNED_SETTINGS", set())
    msgs = [{"role": "user", "content": "Decide."}]
    with caplog.at_level(logging.DEBUG):
        for what in ("coarse answer", "pass 2 (answer)"):
            res = asyncio.run(call_json(llm, RealClock(), what, msgs, DECISION, dict, max_tokens=3))
            assert res.value is None and res.attempts == 2 and "max_tokens=6" in res.error
        asyncio.run(
            call_json(llm, RealClock(), "visual rewrite", msgs, DECISION, dict, max_tokens=3, setting="")
        )
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == [
        "coarse answer: the model's answer did not fit in 6 tokens; raise reasoner.max_tokens above 6"
    ]
    # Every attempt is still there for -v (debug), and in the trace.
    assert sum("attempt 1 of 2" in r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG) == 3


def test_a_closed_model_is_a_clear_error_and_is_not_handed_out_again() -> None:
    """`load_llm` shares one instance per configuration. Closing it used to leave it in the
    loader's cache, and the next user's call read freed memory: a segfault (seen when a test
    module's model was closed and another module loaded "the same" model). A subprocess, so
    that a regression fails this test and not the whole run."""
    import subprocess
    import sys

    code = """
from edge_assist.config import Config
from edge_assist.errors import ModelError
from edge_assist.inference.loader import load_llm
cfg = Config().replace(**{"models.threads": 1, "models.seed": 7})
first = load_llm(cfg)
assert load_llm(cfg) is first
first.close()
first.close()  # twice is harmless
try:
    first.chat([{"role": "user", "content": "hi"}], max_tokens=2)
except ModelError as e:
    print("error:", e)
again = load_llm(cfg)
assert again is not first
print("again:", bool(again.chat([{"role": "user", "content": "hi"}], max_tokens=2)))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "was closed; load the model again" in r.stdout
    assert "again: True" in r.stdout
