"""The remote backend against a real local HTTP server that answers like an
OpenAI-compatible /v1/chat/completions endpoint (scripted per test)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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

SCHEMA = {
    "type": "object",
    "properties": {"decision": {"type": "string", "enum": ["silent", "speak"]}},
    "required": ["decision"],
}


class Script:
    """What the server answers, request by request; every request is recorded."""

    def __init__(self) -> None:
        self.replies: list[Any] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []


def make_handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_args: Any) -> None:
            pass

        def do_POST(self) -> None:
            assert self.path == "/v1/chat/completions"
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            script.requests.append(body)
            script.headers.append(dict(self.headers))
            reply = script.replies.pop(0) if script.replies else "ok"
            if isinstance(reply, int):
                self.send_response(reply)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps({"error": {"message": f"scripted {reply}"}}).encode())
                return
            if isinstance(reply, tuple) and reply[0] == "sleep":
                time.sleep(reply[1])
                reply = reply[2]
            if body.get("stream"):
                tokens = reply if isinstance(reply, list) else [reply]
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for tok in tokens:
                        if isinstance(tok, float):
                            time.sleep(tok)
                            continue
                        chunk = {"choices": [{"index": 0, "delta": {"content": tok}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    self.wfile.write(b"data: [DONE]\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return
            text = "".join(t for t in reply if isinstance(t, str)) if isinstance(reply, list) else reply
            data = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
            out = json.dumps(data).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    return Handler


@pytest.fixture()
def server() -> Iterator[tuple[Script, str]]:
    script = Script()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(script))
    th = threading.Thread(target=httpd.serve_forever, daemon=True)
    th.start()
    try:
        yield script, f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
        th.join(5)


def rcfg(url: str, **kw: Any) -> RemoteConfig:
    base = {"base_url": url, "llm_model": "qwen", "vlm_model": "smolvlm", "timeout_s": 2.0, "retries": 2}
    base.update(kw)
    return RemoteConfig(**base)


def test_chat_sends_openai_request(server: tuple[Script, str], monkeypatch: pytest.MonkeyPatch) -> None:
    script, url = server
    monkeypatch.setenv("EDGE_ASSIST_TEST_KEY", "sekret")  # the environment is outside our code
    script.replies = ["Paris."]
    llm = RemoteLLM(rcfg(url, api_key_env="EDGE_ASSIST_TEST_KEY"))
    assert isinstance(llm, LLM)
    assert llm.chat([{"role": "user", "content": "capital?"}], max_tokens=5) == "Paris."
    req = script.requests[0]
    assert req["model"] == "qwen" and req["max_tokens"] == 5 and req["messages"][0]["content"] == "capital?"
    assert script.headers[0]["Authorization"] == "Bearer sekret"


def test_json_schema_via_response_format(server: tuple[Script, str]) -> None:
    script, url = server
    script.replies = ['{"decision": "speak"}']
    assert RemoteLLM(rcfg(url)).chat_json([{"role": "user", "content": "x"}], SCHEMA) == {"decision": "speak"}
    rf = script.requests[0]["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["schema"] == SCHEMA


def test_invalid_json_is_one_request_then_model_error(server: tuple[Script, str]) -> None:
    script, url = server
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


def test_transient_errors_are_retried(server: tuple[Script, str]) -> None:
    script, url = server
    script.replies = [503, 429, "fine"]
    llm = RemoteLLM(rcfg(url, retries=2))
    assert llm.chat([{"role": "user", "content": "x"}]) == "fine"
    assert llm.client.requests == 3


def test_retries_exhausted_is_one_line_error(server: tuple[Script, str]) -> None:
    script, url = server
    script.replies = [500, 500]
    with pytest.raises(ModelError, match="did not answer after 2 tries") as e:
        RemoteLLM(rcfg(url, retries=1)).chat([{"role": "user", "content": "x"}])
    assert "\n" not in str(e.value)


def test_client_error_is_not_retried(server: tuple[Script, str]) -> None:
    script, url = server
    script.replies = [400, "never"]
    with pytest.raises(ModelError, match="HTTP 400: scripted 400"):
        RemoteLLM(rcfg(url)).chat([{"role": "user", "content": "x"}])
    assert len(script.requests) == 1


def test_timeout_then_success(server: tuple[Script, str]) -> None:
    script, url = server
    script.replies = [("sleep", 1.0, "late"), "on time"]
    llm = RemoteLLM(rcfg(url, timeout_s=0.3, retries=1))
    assert llm.chat([{"role": "user", "content": "x"}]) == "on time"


def test_nobody_listening(unused_tcp_port: int) -> None:
    llm = RemoteLLM(rcfg(f"http://127.0.0.1:{unused_tcp_port}/v1", retries=0))
    with pytest.raises(ModelError, match="check that it runs"):
        llm.chat([{"role": "user", "content": "x"}])


def test_streaming_and_stop_flag(server: tuple[Script, str]) -> None:
    script, url = server
    script.replies = [["Hel", "lo", " there"]]
    seen: list[str] = []
    llm = RemoteLLM(rcfg(url))
    assert llm.chat([{"role": "user", "content": "x"}], on_token=seen.append) == "Hello there"
    assert seen == ["Hel", "lo", " there"] and script.requests[0]["stream"] is True

    script.replies = [["a", 0.05] * 200]  # ten seconds of tokens
    stop = StopFlag()
    result: dict[str, float] = {}

    def run() -> None:
        try:
            llm.chat([{"role": "user", "content": "long"}], stop=stop, on_token=lambda _t: None)
        except GenerationCancelled:
            result["t"] = time.perf_counter()

    th = threading.Thread(target=run)
    th.start()
    time.sleep(0.3)
    t_set = time.perf_counter()
    stop.set()
    th.join(5)
    assert result["t"] - t_set < 0.2


def test_vlm_sends_images_as_data_uris(server: tuple[Script, str]) -> None:
    script, url = server
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


def test_loader_picks_remote_backend(server: tuple[Script, str]) -> None:
    script, url = server
    cfg = Config().replace(**{"models.backend": "remote", "remote.base_url": url, "remote.vlm_model": ""})
    assert isinstance(load_llm(cfg), RemoteLLM)
    assert load_vlm(cfg) is None  # no vision model named on the server


def test_reasoner_call_does_not_retry_on_top_of_the_remote_retry(server: tuple[Script, str]) -> None:
    """A server that keeps answering garbage gets 2 requests per reasoner call, not 2 x 2."""
    import asyncio

    from edge_assist.clock import RealClock
    from edge_assist.inference.llm_call import call_json
    from edge_assist.inference.response_cache import CachedLLM, ResponseCache
    from edge_assist.runtime.scheduler import ModelArbiter, ScheduledLLM

    script, url = server
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
