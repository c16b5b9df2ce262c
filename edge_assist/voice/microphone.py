"""Audio sources: the real microphone (pyaudio, imported lazily) and a WAV file that
stands in for one (tests, demos). Both yield 16 kHz mono float32 chunks of `CHUNK`
samples, the unit the VAD works on."""

from __future__ import annotations

import asyncio
import logging
import wave
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from edge_assist.errors import EdgeAssistError

log = logging.getLogger(__name__)

SAMPLE_RATE = 16000
CHUNK = 512  # 32 ms at 16 kHz: the window silero-vad is trained on


class AudioSource(Protocol):
    name: str

    def chunks(self) -> AsyncIterator[np.ndarray]: ...

    async def close(self) -> None: ...


def pcm16_to_float(pcm: bytes) -> np.ndarray:
    return np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0


def resample(audio: np.ndarray, rate: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Linear-interpolation resampling: enough for speech recognition input."""
    if rate == target or audio.size == 0:
        return audio.astype(np.float32)
    n = int(round(audio.size * target / rate))
    x_new = np.linspace(0, audio.size - 1, n)
    return np.interp(x_new, np.arange(audio.size), audio).astype(np.float32)


def read_wav(path: str | Path) -> np.ndarray:
    """A 16-bit PCM WAV as 16 kHz mono float32."""
    try:
        with wave.open(str(path), "rb") as w:
            if w.getsampwidth() != 2:
                raise EdgeAssistError(f"{path} is not 16-bit PCM; convert it with `sox {path} -b 16 out.wav`")
            raw = w.readframes(w.getnframes())
            channels, rate = w.getnchannels(), w.getframerate()
    except (OSError, wave.Error, EOFError) as e:
        raise EdgeAssistError(f"cannot read audio file {path}: {e}") from None
    audio = pcm16_to_float(raw)
    if channels > 1:
        audio = audio.reshape(-1, channels).mean(axis=1)
    return resample(audio, rate)


class WavMicrophone:
    """A microphone that plays back a recording, optionally paced at real time."""

    def __init__(self, audio: np.ndarray | str | Path, *, realtime: bool = False) -> None:
        self.audio = read_wav(audio) if isinstance(audio, str | Path) else audio.astype(np.float32)
        self.realtime = realtime
        self.name = "wav"

    async def chunks(self) -> AsyncIterator[np.ndarray]:
        for start in range(0, self.audio.size - CHUNK + 1, CHUNK):
            if self.realtime:
                await asyncio.sleep(CHUNK / SAMPLE_RATE)
            else:
                await asyncio.sleep(0)  # let the rest of the pipeline run between chunks
            yield self.audio[start : start + CHUNK]

    async def close(self) -> None:
        return None


def import_pyaudio() -> Any:
    try:
        import pyaudio  # type: ignore[import-not-found,import-untyped]
    except ImportError:
        raise EdgeAssistError(
            "microphone capture needs pyaudio: apt-get install portaudio19-dev && pip install "
            "'edge-assist[audio]'"
        ) from None
    return pyaudio


class PyAudioMicrophone:
    """The default (or a named) input device, 16 kHz mono, read in a worker thread."""

    def __init__(self, device: str = "") -> None:
        self.device = device
        self.name = f"microphone {device or '(default)'}"
        self._pa: Any = None
        self._stream: Any = None

    def _open(self) -> None:
        pyaudio = import_pyaudio()
        self._pa = pyaudio.PyAudio()
        index = None
        if self.device:
            index = find_input_device(self._pa, self.device)
        try:
            self._stream = self._pa.open(
                format=pyaudio.paInt16,
                channels=1,
                rate=SAMPLE_RATE,
                input=True,
                frames_per_buffer=CHUNK,
                input_device_index=index,
            )
        except OSError as e:
            self._pa.terminate()
            self._pa = None
            raise EdgeAssistError(
                f"cannot open the microphone ({e}); check voice.mic_device and `arecord -l`"
            ) from None

    async def chunks(self) -> AsyncIterator[np.ndarray]:
        if self._stream is None:
            await asyncio.to_thread(self._open)
        while True:
            # exception_on_overflow=False: while a question is being transcribed the
            # buffer overruns; old audio is worth less than a crash.
            data = await asyncio.to_thread(self._stream.read, CHUNK, exception_on_overflow=False)
            yield pcm16_to_float(data)

    async def close(self) -> None:
        if self._stream is not None:
            self._stream.stop_stream()
            self._stream.close()
            self._stream = None
        if self._pa is not None:
            self._pa.terminate()
            self._pa = None


def find_input_device(pa: Any, wanted: str) -> int:
    """An input device by index ("2") or by a part of its name ("USB")."""
    names = []
    for i in range(pa.get_device_count()):
        info = pa.get_device_info_by_index(i)
        if int(info.get("maxInputChannels", 0)) < 1:
            continue
        names.append(str(info.get("name")))
        if wanted == str(i) or wanted.lower() in str(info.get("name", "")).lower():
            return i
    raise EdgeAssistError(
        f"no input device matches voice.mic_device={wanted!r}; inputs: {', '.join(names) or 'none'}"
    )


def list_input_devices() -> list[str]:
    pyaudio = import_pyaudio()
    pa = pyaudio.PyAudio()
    try:
        return [
            str(pa.get_device_info_by_index(i).get("name"))
            for i in range(pa.get_device_count())
            if int(pa.get_device_info_by_index(i).get("maxInputChannels", 0)) > 0
        ]
    finally:
        pa.terminate()
