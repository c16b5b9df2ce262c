"""`VoiceQuestions`: the stage that listens and puts the wearer's spoken questions on a queue.

Hands-free mode: the VAD cuts utterances out of the microphone stream and each one is
transcribed. Push-to-talk mode (`voice.push_to_talk`): only audio between a button
`press` and `release` on the glasses counts (a `tap` toggles), and it is transcribed
whole, so a noisy room cannot trigger a question.
"""

from __future__ import annotations

import asyncio
import logging
import time

import numpy as np

from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError
from edge_assist.events import ButtonEvent, UserQuery
from edge_assist.voice.microphone import CHUNK, SAMPLE_RATE, AudioSource, PyAudioMicrophone
from edge_assist.voice.stt import OpenAITranscriber, Transcriber
from edge_assist.voice.vad import SileroVad, SpeechSegmenter

log = logging.getLogger(__name__)

_PTT_BUTTON = "main"


class VoiceQuestions:
    def __init__(
        self,
        mic: AudioSource,
        vad: SileroVad,
        stt: Transcriber,
        clock: Clock,
        *,
        segmenter: SpeechSegmenter | None = None,
        buttons: asyncio.Queue[ButtonEvent] | None = None,
        max_utterance_s: float = 15.0,
    ) -> None:
        self.mic, self.vad, self.stt, self.clock = mic, vad, stt, clock
        self.segmenter = segmenter or SpeechSegmenter()
        self.buttons = buttons
        self.max_chunks = int(max_utterance_s * SAMPLE_RATE / CHUNK)
        self.stats = {"utterances": 0, "questions": 0, "empty": 0, "errors": 0, "no_speech": 0, "stt_s": 0.0}

    async def run(self, out: asyncio.Queue[UserQuery]) -> None:
        try:
            if self.buttons is None:
                await self._hands_free(out)
            else:
                await self._push_to_talk(out, self.buttons)
        finally:
            await self.mic.close()

    async def _hands_free(self, out: asyncio.Queue[UserQuery]) -> None:
        async for chunk in self.mic.chunks():
            prob = self.vad.probability(chunk)
            for utt in self.segmenter.feed(chunk, prob):
                await self._transcribe(utt.audio, out)
        for utt in self.segmenter.flush():
            await self._transcribe(utt.audio, out)

    async def _push_to_talk(self, out: asyncio.Queue[UserQuery], buttons: asyncio.Queue[ButtonEvent]) -> None:
        held: list[np.ndarray] | None = None
        voiced = 0
        async for chunk in self.mic.chunks():
            while not buttons.empty():
                ev = buttons.get_nowait()
                if ev.button != _PTT_BUTTON:
                    continue
                starts = ev.action == "press" or (ev.action == "tap" and held is None)
                ends = ev.action == "release" or (ev.action == "tap" and held is not None)
                if starts and held is None:
                    held, voiced = [], 0
                    self.vad.reset()
                elif ends and held is not None:
                    await self._finish_held(held, voiced, out)
                    held = None
            if held is not None:
                held.append(chunk)
                # The VAD still runs: a press with nothing said is not a question.
                if self.vad.probability(chunk) >= self.segmenter.threshold:
                    voiced += 1
                if len(held) >= self.max_chunks:
                    await self._finish_held(held, voiced, out)
                    held = None
        if held is not None:
            await self._finish_held(held, voiced, out)

    async def _finish_held(self, held: list[np.ndarray], voiced: int, out: asyncio.Queue[UserQuery]) -> None:
        if voiced == 0 or not held:
            self.stats["no_speech"] += 1
            return
        await self._transcribe(np.concatenate(held), out)

    async def _transcribe(self, audio: np.ndarray, out: asyncio.Queue[UserQuery]) -> None:
        self.stats["utterances"] += 1
        t0 = time.perf_counter()
        try:
            text = await self.clock.run_blocking(self.stt.transcribe, audio)
        except EdgeAssistError as e:
            # A flaky server must not end listening: say so once per failure and go on.
            self.stats["errors"] += 1
            log.warning("voice question lost: %s", e)
            return
        finally:
            self.stats["stt_s"] += time.perf_counter() - t0
        if not text:
            self.stats["empty"] += 1
            return
        self.stats["questions"] += 1
        await out.put(UserQuery(t=self.clock.now(), text=text, source="voice"))


def build_voice_questions(
    cfg: Config,
    clock: Clock,
    *,
    buttons: asyncio.Queue[ButtonEvent] | None = None,
    mic: AudioSource | None = None,
) -> VoiceQuestions:
    """The stage as configured. `buttons` (from `link.subscribe(ButtonEvent)`) is required for
    push-to-talk."""
    v = cfg.voice
    if v.stt == "off":
        raise EdgeAssistError(
            'voice.stt is off: set voice.stt = "remote" and voice.stt_base_url to transcribe questions'
        )
    if v.push_to_talk and buttons is None:
        raise EdgeAssistError(
            "voice.push_to_talk needs the glasses: set bridge.transport (or voice.push_to_talk = false)"
        )
    stt = OpenAITranscriber(
        v.stt_base_url,
        v.stt_model,
        api_key_env=v.stt_api_key_env,
        language=v.language,
        timeout_s=v.stt_timeout_s,
    )
    segmenter = SpeechSegmenter(
        v.vad_threshold, min_silence_ms=v.min_silence_ms, max_utterance_s=v.max_utterance_s
    )
    return VoiceQuestions(
        mic or PyAudioMicrophone(v.mic_device),
        SileroVad(v.vad_model),
        stt,
        clock,
        segmenter=segmenter,
        buttons=buttons if v.push_to_talk else None,
        max_utterance_s=v.max_utterance_s,
    )
