"""The remote backend against a real local HTTP server that answers like an
OpenAI-compatible /v1/chat/completions endpoint (scripted per test)."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import pytest

from edge_assist.config import CaptionerConfig, Config, RemoteConfig
from edge_assist.errors import ModelError
from edge_assist.events import Clip, Keyframe
from edge_assist.inference.base import LLM, VLM, GenerationCancelled, StopFlag
from edge_assist.inference.loader import load_llm, load_vlm
from edge_assist.inference.remote import RemoteLLM, RemoteVLM
from edge_assist.perception.vlm_captioner import VLMCaptioner
from tests.fakes import ChatServer

SCHEMA = {
    "type": "object",
    "properties": {"decision": {"type": "string", "enum": ["silent", "speak"]}},
    "required": ["decision"],
}


def rcfg(url: str, **kw: Any) -> RemoteConfig:
    base = {"base_url": url, "llm_model": "qwen", "vlm_model": "smolvlm", "timeout_s": 2.0, "retries": 2}
    base.update(kw)
    return RemoteConfig(**base)


def test_chat_sends_openai_request(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    script, url = server, server.url
    monkeypatch.setenv("EDGE_ASSIST_TEST_KEY", "sekret")  # the environment is outside our code
    script.replies = ["Paris."]
    llm = RemoteLLM(rcfg(url, api_key_env="EDGE_ASSIST_TEST_KEY"))
    assert isinstance(llm, LLM)
    assert llm.chat([{"role": "user", "content": "capital?"}], max_tokens=5) == "Paris."
    req = script.requests[0]
    assert req["model"] == "qwen" and req["max_tokens"] == 5 and req["messages"][0]["content"] == "capital?"
    assert script.headers[0]["Authorization"] == "Bearer sekret"


def test_json_schema_via_response_format(server: ChatServer) -> None:
    script, url = server, server.url
    script.replies = ['{"decision": "speak"}']
    assert RemoteLLM(rcfg(url)).chat_json([{"role": "user", "content": "x"}], SCHEMA) == {"decision": "speak"}
    rf = script.requests[0]["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["schema"] == SCHEMA


def test_invalid_json_is_one_request_then_model_error(server: ChatServer) -> None:
    script, url = server, server.url
    script.replies = ['```json\n{"decision": "silent"}\n```']
    assert RemoteLLM(rcfg(url)).chat_json([{"role": "user", "content": "x"}], SCHEMA) == {
        "decision": "silent"
    }
    script.replies = ["nope", '{"decision": "shout"}']
    with pytest.raises(ModelError, match="without valid JSON"):
        RemoteLLM(rcfg(url)).chat_json([{"role": "user", "content": "x"}], SCHEMA)
    with pytest.raises(ModelError, match="without valid JSON for the schema"):
        RemoteLLM(rcfg(url)).chat_json([{"role": "user", "content": "x"}], SCHEMA)
    assert len(script.requests) == 3  # one per call: the retry rule is the reasoner's


def test_transient_errors_are_retried(server: ChatServer) -> None:
    script, url = server, server.url
    script.replies = [503, 429, "fine"]
    llm = RemoteLLM(rcfg(url, retries=2))
    assert llm.chat([{"role": "user", "content": "x"}]) == "fine"
    assert llm.client.requests == 3


def test_retries_exhausted_is_one_line_error(server: ChatServer) -> None:
    script, url = server, server.url
    script.replies = [500, 500]
    with pytest.raises(ModelError, match="did not answer after 2 tries") as e:
        RemoteLLM(rcfg(url, retries=1)).chat([{"role": "user", "content": "x"}])
    assert "\n" not in str(e.value)


def test_client_error_is_not_retried(server: ChatServer) -> None:
    script, url = server, server.url
    script.replies = [400, "never"]
    with pytest.raises(ModelError, match="HTTP 400: scripted 400"):
        RemoteLLM(rcfg(url)).chat([{"role": "user", "content": "x"}])
    assert len(script.requests) == 1


def test_timeout_then_success(server: ChatServer) -> None:
    script, url = server, server.url
    script.replies = [("sleep", 1.0, "late"), "on time"]
    llm = RemoteLLM(rcfg(url, timeout_s=0.3, retries=1))
    assert llm.chat([{"role": "user", "content": "x"}]) == "on time"


def test_nobody_listening(unused_tcp_port: int) -> None:
    llm = RemoteLLM(rcfg(f"http://127.0.0.1:{unused_tcp_port}/v1", retries=0))
    with pytest.raises(ModelError, match="check that it runs"):
        llm.chat([{"role": "user", "content": "x"}])


def test_streaming_and_stop_flag(server: ChatServer) -> None:
    script, url = server, server.url
    script.replies = [["Hel", "lo", " there"]]
    seen: list[str] = []
    llm = RemoteLLM(rcfg(url))
    assert llm.chat([{"role": "user", "content": "x"}], on_token=seen.append) == "Hello there"
    assert seen == ["Hel", "lo", " there"] and script.requests[0]["stream"] is True

    script.replies = [["a", 0.05] * 200]  # ten seconds of tokens
    stop = StopFlag()
    result: dict[str, float] = {}
    streaming = threading.Event()

    def run() -> None:
        try:
            llm.chat([{"role": "user", "content": "long"}], stop=stop, on_token=lambda _t: streaming.set())
        except GenerationCancelled:
            result["t"] = time.perf_counter()

    th = threading.Thread(target=run)
    th.start()
    assert streaming.wait(5)  # tokens are flowing: the stop lands mid-generation
    t_set = time.perf_counter()
    stop.set()
    th.join(5)
    assert result["t"] - t_set < 0.2


def test_vlm_sends_images_as_data_uris(server: ChatServer) -> None:
    script, url = server, server.url
    script.replies = ["A hand holds a red mug."]
    vlm = RemoteVLM(rcfg(url))
    assert isinstance(vlm, VLM)
    kfs = tuple(
        Keyframe(stream_t=float(i), image=np.full((480, 640, 3), 30 * i, np.uint8), reason="even")
        for i in range(4)
    )
    clip = Clip(t=0.0, session_id="s", index=3, t0=30.0, t1=40.0, keyframes=kfs, frame_count=50)
    cap = VLMCaptioner(vlm, CaptionerConfig(max_images=3, image_size_px=64, prompt="What happens?"))
    assert cap.caption(clip) == "A hand holds a red mug."
    content = script.requests[0]["messages"][0]["content"]
    urls = [p["image_url"]["url"] for p in content if p["type"] == "image_url"]
    assert len(urls) == 3 and all(u.startswith("data:image/jpeg;base64,") for u in urls)
    assert content[-1] == {"type": "text", "text": "What happens?"}
    assert script.requests[0]["model"] == "smolvlm"


def test_loader_picks_remote_backend(server: ChatServer) -> None:
    url = server.url
    cfg = Config().replace(**{"models.backend": "remote", "remote.base_url": url, "remote.vlm_model": ""})
    assert isinstance(load_llm(cfg), RemoteLLM)
    assert load_vlm(cfg) is None  # no vision model named on the server


def test_reasoner_call_does_not_retry_on_top_of_the_remote_retry(server: ChatServer) -> None:
    """A server that keeps answering garbage gets 2 requests per reasoner call, not 2 x 2."""
    import asyncio

    from edge_assist.clock import RealClock
    from edge_assist.inference.llm_call import call_json
    from edge_assist.inference.response_cache import CachedLLM, ResponseCache
    from edge_assist.runtime.lanes import ModelArbiter, ScheduledLLM

    script, url = server, server.url
    script.replies = ["nope"] * 8
    llm = RemoteLLM(rcfg(url))
    res = asyncio.run(
        call_json(llm, RealClock(), "pass 1", [{"role": "user", "content": "x"}], SCHEMA, dict, max_tokens=16)
    )
    assert res.value is None and res.attempts == 2 and "without valid JSON" in res.error
    assert len(script.requests) == 2
    # The retry asks for twice the tokens: an answer cut short can only close with more room.
    assert [r["max_tokens"] for r in script.requests] == [16, 32]
    # Wrapped the way the app wraps it (scheduler lanes; an evaluation's response cache).
    script.requests.clear()
    wrapped = ScheduledLLM(CachedLLM(RemoteLLM(rcfg(url)), ResponseCache(":memory:"), "r"), ModelArbiter())
    asyncio.run(
        call_json(
            wrapped, RealClock(), "pass 1", [{"role": "user", "content": "x"}], SCHEMA, dict, max_tokens=16
        )
    )
    assert len(script.requests) == 2
