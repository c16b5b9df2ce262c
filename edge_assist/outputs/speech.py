"""Speech output: decisions spoken with espeak-ng (or piper), interruptible by priority.

`emit()` only queues and returns. One owned task speaks the queue in priority order
(Safety > an answer to the wearer > the rest, FIFO within a level). A new utterance of
higher priority than the one playing cuts it off at once: the engine subprocesses are
killed, so the wearer hears the warning now, not after the end of a tip. The queue is
bounded; when it is full the oldest lowest-priority item is dropped and counted.

Where the sound goes: with `output.speech_audio_out` set, to that WAV file, paced at
real time like a sound card, and holding exactly what the wearer would have heard (an
interrupted utterance is cut where it was interrupted); otherwise espeak-ng's stream is
piped to `aplay`/`paplay`, or espeak-ng plays it itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import io
import itertools
import logging
import os
import shutil
import struct
import time
import wave
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from edge_assist.config import OutputConfig
from edge_assist.errors import EdgeAssistError
from edge_assist.events import Decision, priority_of
from edge_assist.outputs.api import OutputSink

log = logging.getLogger(__name__)

# How long a killed engine may take to exit before we stop waiting for it.
_KILL_WAIT_S = 2.0


@dataclass
class SpokenRecord:
    """What happened to one utterance (tests and latency benchmarks read these)."""

    text: str
    priority: int
    queued_at: float
    started_at: float = 0.0  # first audio out (perf_counter seconds)
    ended_at: float = 0.0
    interrupted: bool = False
    audio_s: float = 0.0  # length of the full utterance
    heard_s: float = 0.0  # how much of it reached the wearer (known for WAV output)


@dataclass(order=True)
class _Item:
    sort_key: tuple[int, int]
    record: SpokenRecord = field(compare=False)


def resolve_engine(cfg: OutputConfig) -> str:
    """The engine `cfg.speech` means on this machine: espeak-ng, piper or off."""
    if cfg.speech == "off":
        return "off"
    if cfg.speech == "piper":
        return "piper"
    if shutil.which("espeak-ng"):
        return "espeak-ng"
    if cfg.speech == "espeak-ng":
        raise EdgeAssistError(
            'espeak-ng is not installed; run `apt-get install espeak-ng` or set output.speech = "off"'
        )
    log.info("speech off: espeak-ng is not installed (apt-get install espeak-ng)")
    return "off"


def wav_pcm(data: bytes) -> tuple[bytes, int]:
    """(PCM s16le mono, sample rate) from a WAV stream whose sizes may be placeholders.

    espeak-ng writes 0x7fffffff sizes when its stdout is a pipe, so the `wave` module
    cannot read it: walk the chunks and take everything after `data`.
    """
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise EdgeAssistError("the speech engine did not produce WAV audio; check output.voice")
    pos, rate = 12, 0
    while pos + 8 <= len(data):
        cid, size = data[pos : pos + 4], struct.unpack("<I", data[pos + 4 : pos + 8])[0]
        if cid == b"fmt ":
            channels, rate = struct.unpack("<HI", data[pos + 10 : pos + 16])
            bits = struct.unpack("<H", data[pos + 22 : pos + 24])[0]
            if channels != 1 or bits != 16:
                raise EdgeAssistError(
                    f"speech engine produced {channels}-channel {bits}-bit audio; expected mono 16-bit"
                )
        elif cid == b"data":
            pcm = data[pos + 8 :]
            return pcm[: len(pcm) // 2 * 2], rate
        pos += 8 + size
    raise EdgeAssistError("the speech engine's WAV has no audio data")


class SpeechOutput(OutputSink):
    name = "speech"

    def __init__(self, cfg: OutputConfig, *, queue_max: int | None = None) -> None:
        self.cfg = cfg
        self.engine = resolve_engine(cfg)
        self.queue_max = queue_max if queue_max is not None else cfg.speech_queue
        self.history: deque[SpokenRecord] = deque(maxlen=256)
        self.spoken = 0
        self.interrupted = 0
        self.dropped = 0
        self._heap: list[_Item] = []
        self._seq = itertools.count()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._current: SpokenRecord | None = None
        self._cut = asyncio.Event()
        self._procs: list[asyncio.subprocess.Process] = []
        self._task: asyncio.Task[None] | None = None
        self._wav: wave.Wave_write | None = None
        self._wav_rate = 0
        self._piper: object | None = None
        self._wav_path = Path(os.path.expanduser(cfg.speech_audio_out))
        if self.engine == "piper":
            self._piper = _load_piper(cfg.voice)

    # -- OutputSink ---------------------------------------------------------------------
    async def emit(self, decision: Decision) -> None:
        if self.engine == "off" or not decision.speak or not decision.text.strip():
            return
        await self.say(decision.text, priority_of(decision.sub_type, decision.trigger))

    async def say(self, text: str, priority: int) -> None:
        """Queue `text`; cut off what is playing if `priority` is higher. Returns at once."""
        if self.engine == "off":
            return
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="speech-output")
        record = SpokenRecord(text.strip(), priority, time.perf_counter())
        if self._current is not None and priority > self._current.priority:
            self._interrupt()
        heapq.heappush(self._heap, _Item((-priority, next(self._seq)), record))
        while len(self._heap) > self.queue_max:
            # Drop the least urgent, oldest item: it is the one the wearer needs least.
            victim = max(self._heap, key=lambda it: (it.sort_key[0], -it.sort_key[1]))
            self._heap.remove(victim)
            heapq.heapify(self._heap)
            self.dropped += 1
            log.info("speech queue full: dropped %r", victim.record.text[:60])
        self._idle.clear()
        self._wake.set()

    async def wait_idle(self) -> None:
        """Until everything queued has been spoken (tests, shutdown)."""
        await self._idle.wait()

    @property
    def playing(self) -> SpokenRecord | None:
        return self._current

    async def close(self) -> None:
        self._heap.clear()
        self._interrupt()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._reap()
        if self._wav is not None:
            self._wav.close()
            self._wav = None

    # -- the speaking task ----------------------------------------------------------------
    def _interrupt(self) -> None:
        self._cut.set()
        for p in self._procs:
            if p.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    p.kill()

    async def _reap(self) -> None:
        procs, self._procs = self._procs, []
        for p in procs:
            if p.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    p.kill()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(p.wait(), _KILL_WAIT_S)

    async def _run(self) -> None:
        while True:
            if not self._heap:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            record = heapq.heappop(self._heap).record
            self._current = record
            self._cut.clear()
            try:
                await self._speak(record)
            except EdgeAssistError as e:
                log.warning("speech failed: %s", e)
            finally:
                await self._reap()
                self._current = None
                record.ended_at = time.perf_counter()
                record.interrupted = self._cut.is_set()
                self.history.append(record)
                if record.interrupted:
                    self.interrupted += 1
                else:
                    self.spoken += 1

    async def _speak(self, record: SpokenRecord) -> None:
        if self.cfg.speech_audio_out:
            pcm, rate = await self._synthesize(record.text)
            if self._cut.is_set():
                return
            await self._play_to_file(record, pcm, rate)
        elif self.engine == "piper":
            pcm, rate = await self._synthesize(record.text)
            if not self._cut.is_set():
                await self._play_to_card(record, pcm, rate)
        else:
            await self._espeak_to_card(record)

    def _espeak_args(self, text: str, *, to_stdout: bool) -> list[str]:
        args = ["espeak-ng", "-v", self.cfg.voice, "-s", str(self.cfg.speech_rate_wpm)]
        if to_stdout:
            args.append("--stdout")
        # "--" so a text starting with "-" is spoken, not parsed as an option.
        return [*args, "--", text]

    async def _synthesize(self, text: str) -> tuple[bytes, int]:
        if self.engine == "piper":
            return await asyncio.to_thread(_piper_pcm, self._piper, text)
        proc = await asyncio.create_subprocess_exec(
            *self._espeak_args(text, to_stdout=True),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        self._procs.append(proc)
        out, err = await proc.communicate()
        if self._cut.is_set():
            return b"", 0
        if proc.returncode != 0:
            why = err.decode(errors="replace").strip() or proc.returncode
            raise EdgeAssistError(f"espeak-ng failed: {why}; check output.voice")
        return wav_pcm(out)

    async def _play_to_file(self, record: SpokenRecord, pcm: bytes, rate: int) -> None:
        """Append what a sound card would have played, paced at real time, cut on interrupt."""
        path = self._wav_path
        if self._wav is None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._wav = wave.open(str(path), "wb")
            self._wav.setnchannels(1)
            self._wav.setsampwidth(2)
            self._wav.setframerate(rate)
            self._wav_rate = rate
        if rate != self._wav_rate:
            raise EdgeAssistError(
                f"speech sample rate changed from {self._wav_rate} to {rate} Hz in one WAV file"
            )
        record.audio_s = len(pcm) / 2 / rate
        record.started_at = time.perf_counter()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._cut.wait(), record.audio_s)
        heard = min(record.audio_s, time.perf_counter() - record.started_at)
        record.heard_s = heard if self._cut.is_set() else record.audio_s
        nbytes = int(record.heard_s * rate) * 2
        self._wav.writeframes(pcm[:nbytes])

    async def _play_to_card(self, record: SpokenRecord, pcm: bytes, rate: int) -> None:
        player = _player_args(rate)
        if player is None:
            raise EdgeAssistError(
                "no audio player found; install alsa-utils (aplay) or set output.speech_audio_out"
            )
        record.audio_s = len(pcm) / 2 / rate
        proc = await asyncio.create_subprocess_exec(
            *player,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._procs.append(proc)
        record.started_at = time.perf_counter()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            await proc.communicate(pcm)

    async def _espeak_to_card(self, record: SpokenRecord) -> None:
        player = _player_args(22050)
        if player is None:
            # espeak-ng's own audio output (PortAudio/PulseAudio inside espeak-ng).
            proc = await asyncio.create_subprocess_exec(
                *self._espeak_args(record.text, to_stdout=False),
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
            self._procs.append(proc)
            record.started_at = time.perf_counter()
            await proc.wait()
            return
        # espeak-ng | player, through an OS pipe so the audio never passes through Python.
        r, w = os.pipe()
        try:
            synth = await asyncio.create_subprocess_exec(
                *self._espeak_args(record.text, to_stdout=True),
                stdout=w,
                stderr=asyncio.subprocess.DEVNULL,
            )
            self._procs.append(synth)
            play = await asyncio.create_subprocess_exec(
                *_wav_player_args(player),
                stdin=r,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            self._procs.append(play)
        finally:
            os.close(r)
            os.close(w)
        record.started_at = time.perf_counter()
        await synth.wait()
        await play.wait()


def _player_args(rate: int) -> list[str] | None:
    """A command that plays raw s16le mono PCM at `rate` from stdin."""
    if shutil.which("aplay"):
        return ["aplay", "-q", "-t", "raw", "-f", "S16_LE", "-c", "1", "-r", str(rate)]
    if shutil.which("paplay"):
        return ["paplay", "--raw", "--format=s16le", "--channels=1", f"--rate={rate}"]
    return None


def _wav_player_args(raw_args: list[str]) -> list[str]:
    """The same player reading a WAV stream (espeak-ng --stdout) instead of raw PCM."""
    if raw_args[0] == "aplay":
        return ["aplay", "-q"]
    return ["paplay"]


def _load_piper(voice: str) -> object:
    try:
        from piper import PiperVoice  # type: ignore[import-not-found]
    except ImportError:
        raise EdgeAssistError(
            "output.speech = piper needs the piper extra: pip install 'edge-assist[piper]'"
        ) from None
    path = Path(os.path.expanduser(voice))
    if path.suffix != ".onnx" or not path.exists():
        raise EdgeAssistError(
            f"output.voice must be the path of a piper voice .onnx file for piper; {voice!r} is not"
        )
    return PiperVoice.load(str(path))


def _piper_pcm(voice: object, text: str) -> tuple[bytes, int]:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        voice.synthesize_wav(text, w)  # type: ignore[attr-defined]
    buf.seek(0)
    with wave.open(buf, "rb") as r:
        return r.readframes(r.getnframes()), r.getframerate()
