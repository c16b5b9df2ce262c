"""Speech output with the real espeak-ng: priorities, interruption, queueing, players."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import time
import wave
from pathlib import Path

import pytest

from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError
from edge_assist.events import Decision, SubType
from edge_assist.outputs.speech import SpeechOutput, resolve_engine

needs_espeak = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng not installed (apt-get install espeak-ng)"
)
pytestmark = pytest.mark.timeout(60)

LONG_TIP = (
    "While the eggs cook, you could slice the bread and butter both halves, then set the table, "
    "rinse the bowl you used for the batter, and put the milk back in the fridge before it warms up."
)


def _decision(text: str, sub: SubType, trigger: str = "proactive", speak: bool = True) -> Decision:
    return Decision(
        t=0.0,
        session_id="s",
        clip_index=0,
        stream_t0=0.0,
        stream_t1=10.0,
        speak=speak,
        sub_type=sub,
        text=text,
        trigger=trigger,
    )


def _cfg(tmp_path: Path, **extra: object) -> Config:
    return Config().replace(
        **{"output.speech": "espeak-ng", "output.speech_audio_out": str(tmp_path / "heard.wav"), **extra}
    )


def _wav_seconds(path: Path) -> float:
    with wave.open(str(path), "rb") as w:
        return w.getnframes() / w.getframerate()


async def _until(cond, timeout_s: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout_s
    while not cond():
        assert time.monotonic() < end, "condition not met in time"
        await asyncio.sleep(0.01)


@needs_espeak
async def test_speaks_to_wav_and_emit_returns_at_once(tmp_path: Path) -> None:
    out = SpeechOutput(_cfg(tmp_path).output)
    t0 = time.perf_counter()
    await out.emit(_decision("Next, crack two eggs into the bowl.", SubType.NEXT_STEP_GUIDANCE))
    assert time.perf_counter() - t0 < 0.05
    await out.emit(_decision("nothing to say", SubType.NEXT_STEP_GUIDANCE, speak=False))
    await out.wait_idle()
    await out.close()
    assert [r.text for r in out.history] == ["Next, crack two eggs into the bowl."]
    rec = out.history[0]
    assert not rec.interrupted and 1.0 < rec.audio_s < 5.0 and rec.heard_s == rec.audio_s
    assert abs(_wav_seconds(tmp_path / "heard.wav") - rec.audio_s) < 0.01


@needs_espeak
async def test_safety_interrupts_a_tip_and_is_heard_whole(tmp_path: Path) -> None:
    out = SpeechOutput(_cfg(tmp_path).output)
    await out.emit(_decision(LONG_TIP, SubType.NEXT_STEP_GUIDANCE))
    await _until(lambda: out.playing is not None and out.playing.started_at > 0)
    await asyncio.sleep(0.3)  # the behaviour: the tip is heard for 0.3 s before the alert cuts in
    t_alert = time.perf_counter()
    await out.emit(_decision("Stop! The pan is on fire.", SubType.SAFETY))
    await out.wait_idle()
    await out.close()
    tip, alert = out.history
    assert tip.interrupted and 0.2 < tip.heard_s < tip.audio_s / 2
    assert tip.ended_at - t_alert < 0.5  # cut off promptly
    assert not alert.interrupted and alert.heard_s == alert.audio_s
    assert alert.started_at - t_alert < 1.0
    assert abs(_wav_seconds(tmp_path / "heard.wav") - (tip.heard_s + alert.audio_s)) < 0.01
    assert (out.spoken, out.interrupted) == (1, 1)


@needs_espeak
async def test_answer_interrupts_tip_but_same_priority_queues(tmp_path: Path) -> None:
    out = SpeechOutput(_cfg(tmp_path).output)
    await out.emit(_decision("Add a pinch of salt.", SubType.NEXT_STEP_GUIDANCE))
    await _until(lambda: out.playing is not None and out.playing.started_at > 0)
    await out.emit(_decision("Then stir for a minute.", SubType.NEXT_STEP_GUIDANCE))
    await out.emit(_decision("Your keys are on the counter.", SubType.MEMORY_RECALL, trigger="query"))
    await out.wait_idle()
    await out.close()
    assert [(r.text, r.interrupted) for r in out.history] == [
        ("Add a pinch of salt.", True),
        ("Your keys are on the counter.", False),  # the answer goes before the queued tip
        ("Then stir for a minute.", False),
    ]


@needs_espeak
async def test_queue_is_bounded_and_drops_least_urgent(tmp_path: Path) -> None:
    out = SpeechOutput(_cfg(tmp_path).output, queue_max=2)
    await out.emit(_decision("One.", SubType.NEXT_STEP_GUIDANCE))
    await _until(lambda: out.playing is not None)
    for text in ("Two.", "Three.", "Four."):
        await out.emit(_decision(text, SubType.NEXT_STEP_GUIDANCE))
    await out.wait_idle()
    await out.close()
    assert out.dropped == 1
    assert [r.text for r in out.history] == ["One.", "Three.", "Four."]


@needs_espeak
async def test_sound_card_pipeline_is_killed_on_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The sound card is the hardware edge: an `aplay` on PATH that records what it is fed.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    espeak = shutil.which("espeak-ng")
    assert espeak
    (bindir / "espeak-ng").symlink_to(espeak)
    played = tmp_path / "played"
    played.mkdir()
    aplay = bindir / "aplay"
    aplay.write_text(f'#!/bin/sh\ncat > "{played}/$$.wav"\nsleep 30\n')
    aplay.chmod(aplay.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}:{os.defpath}")
    out = SpeechOutput(Config().replace(**{"output.speech": "espeak-ng"}).output)
    await out.emit(_decision(LONG_TIP, SubType.NEXT_STEP_GUIDANCE))
    await _until(lambda: any(p.stat().st_size > 0 for p in played.iterdir()))
    [tip] = played.iterdir()
    await out.emit(_decision("Watch out, hot oil.", SubType.SAFETY))
    await _until(lambda: any(p != tip and p.stat().st_size > 1000 for p in played.iterdir()))
    await _until(lambda: bool(out.history) and out.history[0].interrupted)
    await out.close()  # kills the second "aplay" still sleeping
    heard = sorted(played.iterdir(), key=lambda p: p.stat().st_mtime)
    assert heard[0].read_bytes()[:4] == b"RIFF" and heard[1].stat().st_size > 1000


async def test_auto_without_espeak_is_off_and_strict_mode_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert resolve_engine(Config().output) == "off"
    out = SpeechOutput(Config().output)
    await out.emit(_decision("hello", SubType.SAFETY))
    await out.close()
    assert not out.history
    with pytest.raises(EdgeAssistError, match="apt-get install espeak-ng"):
        resolve_engine(Config().replace(**{"output.speech": "espeak-ng"}).output)
    with pytest.raises(EdgeAssistError, match=r"edge-assist\[piper\]"):
        SpeechOutput(Config().replace(**{"output.speech": "piper"}).output)
