"""Payloads of the protocol's message types: JSON for the small structured ones, a
compact binary layout for audio. Decoders raise ValueError on anything malformed."""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import Any

from firmware_bridge.frames import MAX_PAYLOAD

# What the firmware reports about its own temperature; the host's GlassesStatus reads the same words.
THERMAL_STATES = ("normal", "warm", "hot", "critical")

HUD_TEXT_MAX_CHARS = 280  # a HUD line is read at a glance; longer text is cut
_AUDIO_HEAD = struct.Struct(">HHBI")  # stream id, chunk index, last flag, sample rate (Hz)
AUDIO_CHUNK_BYTES = MAX_PAYLOAD - _AUDIO_HEAD.size


def _json(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _load(payload: bytes) -> dict[str, Any]:
    try:
        obj = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"not JSON: {e}") from None
    except RecursionError:  # "[[[[..." a thousand deep still fits one payload
        raise ValueError("not JSON: nesting too deep") from None
    if not isinstance(obj, dict):
        raise ValueError("payload must be a JSON object")
    return obj


def _number(obj: dict[str, Any], key: str, default: float | None = None) -> float | None:
    v = obj.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"{key} must be a number")
    try:
        f = float(v)
    except OverflowError:  # an integer beyond any float
        f = math.inf
    if not math.isfinite(f):
        raise ValueError(f"{key} must be a finite number")
    return f


def _text(obj: dict[str, Any], key: str) -> str:
    v = obj.get(key)
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"{key} must be a non-empty string")
    return v


@dataclass(frozen=True)
class HudText:
    text: str
    priority: int = 1
    duration_s: float = 5.0
    id: int = 0

    def encode(self) -> bytes:
        text = (
            self.text if len(self.text) <= HUD_TEXT_MAX_CHARS else self.text[: HUD_TEXT_MAX_CHARS - 1] + "…"
        )
        return _json(
            {"id": self.id, "text": text, "priority": self.priority, "duration_s": round(self.duration_s, 3)}
        )

    @classmethod
    def decode(cls, payload: bytes) -> HudText:
        o = _load(payload)
        prio = o.get("priority", 1)
        if not isinstance(prio, int) or isinstance(prio, bool) or not 0 <= prio <= 9:
            raise ValueError("priority must be an integer 0-9")
        dur = _number(o, "duration_s", 5.0)
        if dur is None or not 0 <= dur <= 3600:
            raise ValueError("duration_s must be 0-3600")
        ident = o.get("id", 0)
        return cls(_text(o, "text"), prio, dur, ident if isinstance(ident, int) else 0)


@dataclass(frozen=True)
class AudioChunk:
    stream_id: int
    index: int
    last: bool
    sample_rate: int
    pcm: bytes  # signed 16-bit little-endian mono

    def encode(self) -> bytes:
        return _AUDIO_HEAD.pack(self.stream_id, self.index, int(self.last), self.sample_rate) + self.pcm

    @classmethod
    def decode(cls, payload: bytes) -> AudioChunk:
        if len(payload) < _AUDIO_HEAD.size:
            raise ValueError("audio chunk shorter than its header")
        sid, idx, last, rate = _AUDIO_HEAD.unpack_from(payload)
        pcm = payload[_AUDIO_HEAD.size :]
        if len(pcm) % 2:
            raise ValueError("audio chunk is not whole 16-bit samples")
        return cls(sid, idx, bool(last), rate, pcm)


def split_audio(pcm: bytes, sample_rate: int, stream_id: int) -> list[AudioChunk]:
    if len(pcm) % 2:
        raise ValueError("PCM must be whole 16-bit samples")
    step = AUDIO_CHUNK_BYTES - AUDIO_CHUNK_BYTES % 2
    pieces = [pcm[i : i + step] for i in range(0, len(pcm), step)] or [b""]
    return [
        AudioChunk(stream_id & 0xFFFF, i & 0xFFFF, i == len(pieces) - 1, sample_rate, piece)
        for i, piece in enumerate(pieces)
    ]


@dataclass(frozen=True)
class Button:
    button: str
    action: str

    def encode(self) -> bytes:
        return _json({"button": self.button, "action": self.action})

    @classmethod
    def decode(cls, payload: bytes) -> Button:
        o = _load(payload)
        return cls(_text(o, "button")[:32], _text(o, "action")[:32])


@dataclass(frozen=True)
class Touch:
    gesture: str

    def encode(self) -> bytes:
        return _json({"gesture": self.gesture})

    @classmethod
    def decode(cls, payload: bytes) -> Touch:
        return cls(_text(_load(payload), "gesture")[:32])


@dataclass(frozen=True)
class Question:
    text: str

    def encode(self) -> bytes:
        return _json({"text": self.text})

    @classmethod
    def decode(cls, payload: bytes) -> Question:
        return cls(_text(_load(payload), "text").strip())


@dataclass(frozen=True)
class Status:
    battery_pct: float | None = None
    charging: bool = False
    temperature_c: float | None = None
    thermal: str = "normal"

    def encode(self) -> bytes:
        return _json(
            {
                "battery_pct": self.battery_pct,
                "charging": self.charging,
                "temperature_c": self.temperature_c,
                "thermal": self.thermal,
            }
        )

    @classmethod
    def decode(cls, payload: bytes) -> Status:
        o = _load(payload)
        batt = _number(o, "battery_pct")
        if batt is not None and not 0 <= batt <= 100:
            raise ValueError("battery_pct must be 0-100")
        thermal = o.get("thermal", "normal")
        if thermal not in THERMAL_STATES:
            raise ValueError(f"thermal must be one of {', '.join(THERMAL_STATES)}")
        charging = o.get("charging", False)
        if not isinstance(charging, bool):
            raise ValueError("charging must be true or false")
        return cls(batt, charging, _number(o, "temperature_c"), thermal)
