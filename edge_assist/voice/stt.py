"""Speech-to-text backends.

No offline speech-to-text model ships on PyPI with its weights: `useful-moonshine-onnx`
and `moonshine-voice` download theirs from a model hub at first use, which a device
without a network (and this project's rule: no downloads at run time) cannot do. The
backend here is the OpenAI-compatible `/v1/audio/transcriptions` endpoint, which
whisper.cpp's server, faster-whisper servers, LocalAI and vLLM all speak: run one on the
phone or on the device itself and point `voice.stt_base_url` at it.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import urllib.error
import urllib.request
import wave
from typing import Protocol

import numpy as np

from edge_assist.errors import EdgeAssistError
from edge_assist.voice.microphone import SAMPLE_RATE


class Transcriber(Protocol):
    name: str

    def transcribe(self, audio: np.ndarray) -> str:
        """16 kHz mono float32 in, text out. Blocking: call it in a thread."""
        ...


def to_wav_bytes(audio: np.ndarray, rate: int = SAMPLE_RATE) -> bytes:
    pcm = (np.clip(audio, -1.0, 1.0) * 32767).astype("<i2").tobytes()
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm)
    return buf.getvalue()


def _multipart(
    fields: dict[str, str], file_field: str, filename: str, data: bytes, ctype: str
) -> tuple[bytes, str]:
    boundary = "edge-assist-" + secrets.token_hex(12)
    parts: list[bytes] = []
    for k, v in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{filename}"\r\n'
        f"Content-Type: {ctype}\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


class OpenAITranscriber:
    """POST a WAV to `<base_url>/audio/transcriptions` and read `text` from the JSON."""

    def __init__(
        self, base_url: str, model: str, *, api_key_env: str = "", language: str = "", timeout_s: float = 30.0
    ) -> None:
        self.url = base_url.rstrip("/") + "/audio/transcriptions"
        self.model = model
        self.api_key_env = api_key_env
        self.language = language
        self.timeout_s = timeout_s
        self.name = f"remote {self.url}"

    def transcribe(self, audio: np.ndarray) -> str:
        fields = {"model": self.model, "response_format": "json"}
        if self.language:
            fields["language"] = self.language
        body, ctype = _multipart(fields, "file", "question.wav", to_wav_bytes(audio), "audio/wav")
        req = urllib.request.Request(self.url, data=body, method="POST", headers={"Content-Type": ctype})
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        if key:
            req.add_header("Authorization", f"Bearer {key}")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as e:
            detail = e.read()[:200].decode(errors="replace").strip()
            raise EdgeAssistError(
                f"transcription server {self.url} answered {e.code}: {detail}; check voice.stt_model"
            ) from None
        except (urllib.error.URLError, TimeoutError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise EdgeAssistError(
                f"cannot reach the transcription server {self.url} ({reason}); start it or fix "
                f"voice.stt_base_url"
            ) from None
        try:
            text = json.loads(payload)["text"]
        except (ValueError, KeyError, TypeError):
            raise EdgeAssistError(
                f"transcription server {self.url} did not return JSON with a 'text' field"
            ) from None
        return str(text).strip()
