"""The settings of what comes in: the data folder, the camera or replay, clips, captions and spoken questions.

Every key is declared once with its default, its unit and its range (`setting`).
"""

from __future__ import annotations

from dataclasses import dataclass

from edge_assist.config.setting import setting


@dataclass(frozen=True)
class GeneralConfig:
    data_dir: str = setting("~/.local/share/edge-assist", "where memory, logs and keyframes live (path)")
    wearer: str = setting("default", "wearer name: one memory database per wearer")
    log_level: str = setting("info", "log verbosity", choices=("debug", "info", "warning", "error"))


@dataclass(frozen=True)
class SourceConfig:
    kind: str = setting(
        "opencv",
        "camera backend for `run`: a USB/V4L2 camera, the Pi camera, or a replayed file",
        choices=("opencv", "picamera2", "video", "captions"),
    )
    device: str = setting("0", 'OpenCV device: an index ("0") or a path (/dev/video0, rtsp://...)')
    path: str = setting("", "file to replay when kind is video or captions (path)")
    width_px: int = setting(640, "capture width (pixels)", lo=64, hi=7680)
    height_px: int = setting(480, "capture height (pixels)", lo=48, hi=4320)
    fps: float = setting(5.0, "frames per second taken from the camera (frames/s)", lo=0.1, hi=120)
    realtime: bool = setting(
        False, "replay paced at real time (true) or as fast as possible on virtual time (false)"
    )
    open_timeout_s: float = setting(10.0, "how long to wait for a camera to come up (seconds)", lo=0, hi=3600)


@dataclass(frozen=True)
class SegmenterConfig:
    clip_s: float = setting(10.0, "length of one clip, one reasoning step (seconds)", lo=1, hi=600)
    keyframes_per_clip: int = setting(3, "evenly spaced keyframes kept per clip (count)", lo=1, hi=32)
    scene_change_pick: bool = setting(True, "also keep the frame where the scene changes most")
    frame_queue: int = setting(
        8, "frames buffered between camera and segmenter before drops (count)", lo=1, hi=1024
    )


@dataclass(frozen=True)
class CaptionerConfig:
    prompt: str = setting(
        "Describe what the person wearing the camera is doing, the objects they handle and any hazard. One "
        "or two sentences.",
        "instruction given to the VLM with the keyframes",
    )
    max_images: int = setting(3, "keyframes sent to the VLM per clip (count)", lo=1, hi=16)
    image_size_px: int = setting(
        384, "longest side of each keyframe sent to the VLM (pixels)", lo=32, hi=4096
    )
    max_tokens: int = setting(96, "longest caption (tokens)", lo=8, hi=2048)
    queue: int = setting(
        1, "clips waiting for the captioner before the oldest is skipped (count)", lo=1, hi=64
    )


@dataclass(frozen=True)
class LimitsConfig:
    """Bounds on what comes in from files, people and radios: one bad line must not cost minutes."""

    caption_chars: int = setting(
        2000,
        "a caption longer than this is cut, with one warning per stream (characters)",
        lo=16,
        hi=1_000_000,
    )
    stream_line_bytes: int = setting(
        65536,
        "a caption-stream line longer than this is refused, naming file and line (bytes)",
        lo=256,
        hi=64_000_000,
    )
    question_chars: int = setting(
        500, "a question longer than this is cut, with a warning (characters)", lo=16, hi=100_000
    )
    frame_side_px: int = setting(
        1920, "a video frame with a longer side is scaled down to it when read (pixels)", lo=64, hi=16384
    )
    task_file_bytes: int = setting(
        262144, "a task file larger than this is refused (bytes)", lo=1024, hi=64_000_000
    )


@dataclass(frozen=True)
class VoiceConfig:
    enabled: bool = setting(False, "listen for spoken questions (needs the audio extra)")
    stt: str = setting(
        "remote",
        "speech-to-text backend: an OpenAI-compatible transcription server (no offline model ships on PyPI)",
        choices=("remote", "off"),
    )
    vad_threshold: float = setting(0.5, "voice-activity probability that starts speech (0-1)", lo=0, hi=1)
    push_to_talk: bool = setting(False, "listen only while the glasses' button is held")
    stt_base_url: str = setting(
        "http://127.0.0.1:8090/v1", "OpenAI-compatible server with /audio/transcriptions (URL)"
    )
    stt_model: str = setting("whisper-1", "model name the transcription server expects")
    stt_api_key_env: str = setting(
        "EDGE_ASSIST_STT_KEY", "environment variable holding the server's API key, if any"
    )
    stt_timeout_s: float = setting(20.0, "per-question transcription timeout (seconds)", lo=0.5, hi=600)
    language: str = setting("en", "language hint for speech-to-text (ISO 639-1; empty = detect)")
    mic_device: str = setting("", "input device index or part of its name; empty = the default microphone")
    vad_model: str = setting("", "silero VAD ONNX file; empty = the one shipped by the voice extra (path)")
    min_silence_ms: float = setting(
        600.0, "silence that ends a spoken question (milliseconds)", lo=50, hi=10000
    )
    max_utterance_s: float = setting(15.0, "longest spoken question (seconds)", lo=1, hi=120)
