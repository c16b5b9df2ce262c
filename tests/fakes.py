"""Every hand-written stand-in the tests use, at the edges the design allows: the network
(an OpenAI-compatible chat server, a transcription server, a model file server, a tapped
UDP socket), the hardware (a camera, a microphone with a button), the model boundary (a
captioner with set latencies, counting and re-shaped wrappers around a real model), and
the clock. Everything between these edges is the real code.

Servers listen on 127.0.0.1 on a free port; use them as context managers (or through the
fixtures in conftest.py) so their threads stop with the test.
"""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
import wave
from collections.abc import AsyncIterator, Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import numpy as np

from edge_assist.clock import Clock, RealClock
from edge_assist.events import ButtonEvent, Clip
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.sources.base import RawFrame
from edge_assist.voice.microphone import CHUNK, SAMPLE_RATE, WavMicrophone
from firmware_bridge.transports import Address, UdpTransport


# -- the network edge ------------------------------------------------------------------------
class _LocalServer:
    """A ThreadingHTTPServer on a free loopback port, served from a daemon thread."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], path: str) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"
        # A short poll: shutdown() waits for the loop to notice, and every test pays that wait.
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, args=(0.02,), name="fake-server", daemon=True
        )
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *_exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.close()


class _QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *_args: Any) -> None:
        pass

    def send_json(self, status: int, data: object, content_type: str = "application/json") -> None:
        out = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


Reply = Callable[[dict[str, Any]], str]


class ChatServer(_LocalServer):
    """An OpenAI-compatible /v1/chat/completions endpoint, scripted per test.

    Each request takes the next entry of `replies`, or, when none is left, `reply(body)`
    (by default "ok"). An entry is: a string (the answer); an int (that HTTP error status);
    ("sleep", seconds, entry) (answer late, for timeouts); or a list of tokens, streamed when
    the request asks for a stream, where a float in the list is a pause between tokens.
    Every request body and its headers are recorded."""

    def __init__(self) -> None:
        self.replies: list[Any] = []
        self.reply: Reply = lambda body: "ok"
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        super().__init__(_chat_handler(self), "/v1")

    def next_reply(self, body: dict[str, Any]) -> Any:
        self.requests.append(body)
        return self.replies.pop(0) if self.replies else self.reply(body)

    def kinds(self) -> list[str]:
        return [kind_of(b) for b in self.requests]


def kind_of(body: dict[str, Any]) -> str:
    """Which of the assistant's passes a chat request is, told by its JSON schema."""
    props = body.get("response_format", {}).get("json_schema", {}).get("schema", {}).get("properties", {})
    if "observation" in props:
        return "pass1"
    if "account" in props:
        return "reconstruction"
    if "looks_like" in props:
        return "visual"
    if "service" in props:
        return "pass2"
    return "other"


def _chat_handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_QuietHandler):
        def do_POST(self) -> None:
            assert self.path == "/v1/chat/completions"
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.headers.append(dict(self.headers))
            reply = server.next_reply(body)
            if isinstance(reply, int):
                self.send_json(reply, {"error": {"message": f"scripted {reply}"}})
                return
            if isinstance(reply, tuple) and reply[0] == "sleep":
                time.sleep(reply[1])  # a slow server is what the client's timeout is tested against
                reply = reply[2]
            if body.get("stream"):
                self.stream(reply if isinstance(reply, list) else [reply])
                return
            text = "".join(t for t in reply if isinstance(t, str)) if isinstance(reply, list) else reply
            self.send_json(
                200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
            )

        def stream(self, tokens: list[str | float]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for tok in tokens:
                    if isinstance(tok, float):
                        time.sleep(tok)  # the pace of generation is what a stop flag is tested against
                        continue
                    chunk = {"choices": [{"index": 0, "delta": {"content": tok}}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


class TranscriptionServer(_LocalServer):
    """An OpenAI-compatible /v1/audio/transcriptions endpoint: parses each upload's form,
    records the WAV's rate, channels and length, and answers (status, text) from `answers`."""

    def __init__(self, answers: list[tuple[int, str]] | None = None) -> None:
        self.answers = answers or []
        self.received: list[dict[str, object]] = []
        super().__init__(_transcription_handler(self), "/v1")


def _transcription_handler(owner: TranscriptionServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_QuietHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            boundary = self.headers["Content-Type"].split("boundary=")[1].encode()
            fields: dict[str, object] = {}
            for part in body.split(b"--" + boundary)[1:-1]:
                head, _, value = part.partition(b"\r\n\r\n")
                name = head.split(b'name="')[1].split(b'"')[0].decode()
                fields[name] = value[:-2]
            with wave.open(io.BytesIO(fields["file"]), "rb") as w:  # type: ignore[arg-type]
                fields["rate"], fields["channels"] = w.getframerate(), w.getnchannels()
                fields["seconds"] = w.getnframes() / w.getframerate()
            fields["path"] = self.path
            owner.received.append(fields)
            status, text = owner.answers.pop(0) if owner.answers else (200, "")
            self.send_json(status, {"text": text} if status == 200 else {"error": "model not loaded"})

    return Handler


class FileServer(_LocalServer):
    """A model host: serves `payload` under /files/, honours Range requests, and can cut the
    next reply short after `cut_next_at` bytes (a dropped download)."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.cut_next_at: int | None = None
        self.ranges: list[str | None] = []
        super().__init__(_file_handler(self), "/files")


def _file_handler(state: FileServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_QuietHandler):
        def do_GET(self) -> None:
            if not self.path.startswith("/files/"):
                self.send_error(404)
                return
            payload = state.payload
            rng = self.headers.get("Range")
            state.ranges.append(rng)
            start = int(rng.split("=")[1].split("-")[0]) if rng else 0
            if start >= len(payload):
                self.send_response(416)
                self.end_headers()
                return
            body = payload[start:]
            self.send_response(206 if rng else 200)
            if rng:
                self.send_header("Content-Range", f"bytes {start}-{len(payload) - 1}/{len(payload)}")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            cut, state.cut_next_at = state.cut_next_at, None
            self.wfile.write(body[:cut] if cut is not None else body)
            if cut is not None:
                self.wfile.flush()
                self.close_connection = True

    return Handler


class TapUdp(UdpTransport):
    """The glasses' UDP socket with a tap: records what it sends and can drop frames."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(host, port, mode="client")
        self.sent: list[bytes] = []
        self.drop: Callable[[bytes], bool] = lambda frame: False

    async def send(self, frame: bytes, addr: Address = None) -> None:
        self.sent.append(frame)
        if not self.drop(frame):
            await super().send(frame, addr)


# -- the hardware edge -----------------------------------------------------------------------
class FastLiveCamera:
    """A live camera that delivers `n` frames as fast as it is read."""

    name = "fake-live"
    live = True
    duration_s = None

    def __init__(self, n: int) -> None:
        self.n = n
        self.i = 0

    def open(self) -> None:
        pass

    def read(self) -> RawFrame | None:
        if self.i >= self.n:
            return None
        self.i += 1
        return RawFrame(self.i * 0.1, np.full((24, 32, 3), self.i % 255, np.uint8))

    def close(self) -> None:
        pass


class WearerWithButton:
    """A microphone whose wearer presses the glasses' button at scripted times."""

    def __init__(
        self, audio: np.ndarray, presses: list[tuple[float, str]], buttons: asyncio.Queue[ButtonEvent]
    ) -> None:
        self.mic = WavMicrophone(audio)
        self.presses = sorted(presses)
        self.buttons = buttons
        self.name = "wearer"

    async def chunks(self) -> AsyncIterator[np.ndarray]:
        i = 0
        async for chunk in self.mic.chunks():
            t = i * CHUNK / SAMPLE_RATE
            while self.presses and self.presses[0][0] <= t:
                self.buttons.put_nowait(ButtonEvent(t=t, button="main", action=self.presses.pop(0)[1]))
            i += 1
            yield chunk

    async def close(self) -> None:
        return None


# -- the model boundary ----------------------------------------------------------------------
class ScriptedCaptioner:
    """A captioner with a set latency: waits on the clock like a slow VLM would."""

    name = "scripted"

    def __init__(self, clock: Clock, latency_s: float) -> None:
        self.clock = clock
        self.latency_s = latency_s
        self.seen: list[int] = []

    async def caption(self, clip: Clip) -> str:
        await self.clock.sleep(self.latency_s)
        self.seen.append(clip.index)
        return f"clip {clip.index} with {len(clip.keyframes)} keyframes"


class CountingLLM:
    """Counts calls to the real model underneath, so a cache hit is seen to skip it."""

    def __init__(self, inner: LLM) -> None:
        self.inner, self.name, self.calls = inner, inner.name, 0

    def chat(self, messages, **kw):  # type: ignore[no-untyped-def]
        self.calls += 1
        return self.inner.chat(messages, **kw)

    def chat_json(self, messages, schema, **kw):  # type: ignore[no-untyped-def]
        self.calls += 1
        return self.inner.chat_json(messages, schema, **kw)


class TruncatedEncoder:
    """A real encoder cut to another dimension: to the store, a different model."""

    def __init__(self, inner: TextEncoder, dim: int) -> None:
        self.name, self.dim, self._inner = f"minilm-first-{dim}", dim, inner

    def encode(self, texts: list[str]) -> np.ndarray:
        v = self._inner.encode(texts)[:, : self.dim]
        return v / np.linalg.norm(v, axis=1, keepdims=True)


class RefusingEncoder:
    """An encoder that must never be reached: fails the test if anything is encoded."""

    dim = 1

    def encode(self, texts: list[str]) -> np.ndarray:
        raise AssertionError(f"encoded {len(texts)} texts that should have been refused first")


class SlowOnOneText:
    """A real encoder that takes `delay_s` longer on one text, as on a loaded CPU."""

    def __init__(self, inner: TextEncoder, slow_text: str, delay_s: float) -> None:
        self.name, self.dim, self._inner = inner.name, inner.dim, inner
        self.slow_text, self.delay_s = slow_text, delay_s

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if self.slow_text in texts:
            time.sleep(self.delay_s)  # in the worker thread, where a model call takes its time
        return self._inner.encode(texts)


# -- the clock -------------------------------------------------------------------------------
class PacedClock(RealClock):
    """The real clock, except that a wait is recorded and then passes at once (the test
    must not take camera time): what a --realtime replay would have waited, clip by clip."""

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float] = []

    async def sleep_until(self, t: float) -> None:
        self.waits.append(t - self.now())
        self.skip_to(t)
        await asyncio.sleep(0)


class WaitingClock(RealClock):
    """The real clock, announcing when a stage first settles into a real-time wait (of more
    than a second): the moment a test can stop a paced run in the middle of its wait."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = asyncio.Event()

    async def sleep_until(self, t: float) -> None:
        if t - self.now() > 1.0:
            self.waiting.set()
        await super().sleep_until(t)


class ManualWall:
    """A wall clock (epoch seconds) that moves only when the test moves it: pass it as
    `Memory.open(..., wall=)` so rows written before and after a cutoff are apart without
    waiting for the real clock to tick."""

    def __init__(self, start: float | None = None) -> None:
        self.now = time.time() if start is None else start

    def __call__(self) -> float:
        return self.now

    def step(self, seconds: float = 1.0) -> float:
        self.now += seconds
        return self.now

    def cutoff(self) -> float:
        """A cutoff strictly after everything written so far and before anything written next."""
        mid = self.step(1.0)
        self.step(1.0)
        return mid
