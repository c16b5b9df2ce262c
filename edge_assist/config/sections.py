"""The settings' sections: every key declared once, with its default, its unit and its range.

`config.py` assembles them into `Config`, reads TOML and overrides into it, and renders it;
the declared docs are what `edge-assist config show` prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def setting(
    default: Any,
    doc: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] | None = None,
) -> Any:
    """Declare a key: its default, a one-line doc (say the unit), and its valid range."""
    meta = {"doc": doc, "lo": lo, "hi": hi, "choices": choices}
    if isinstance(default, dict | list):
        frozen_default = default

        def factory() -> Any:
            return type(frozen_default)(frozen_default)

        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


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
        "Describe what the person wearing the camera is doing, the objects they handle and any hazard. One or two sentences.",
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
class ModelsConfig:
    dir: str = setting(
        "models", "where downloaded models live (path; relative paths resolve from the config file)"
    )
    llm: str = setting("smollm2-135m-q4", "manifest name of the LLM (reasoner, summaries, entities)")
    vlm: str = setting(
        "", "manifest name of the VLM captioner; empty: captions must come from a caption stream"
    )
    text_encoder: str = setting("minilm-l6-int8", "manifest name of the sentence encoder")
    image_encoder: str = setting("", "manifest name of the CLIP-style encoder; empty: no visual path")
    backend: str = setting(
        "local", "where LLM/VLM run: in process, or an OpenAI-compatible server", choices=("local", "remote")
    )
    threads: int = setting(
        0, "CPU threads for llama.cpp and ONNX; 0 = all cores but one (count)", lo=0, hi=256
    )
    context_tokens: int = setting(2048, "llama.cpp context window (tokens)", lo=256, hi=131072)
    seed: int = setting(0, "sampling seed, so runs repeat (integer)", lo=0)
    memory_llm_copy: bool = setting(
        True,
        "give the memory writer its own copy of the LLM, so roll-ups do not evict the reasoner's "
        "cached prompt (pass 1 reads ~850 tokens: ~7 s cold, ~1 s cached on 2 cores); costs the model's RAM twice",
    )
    response_cache: str = setting(
        "",
        "evaluation and development only: SQLite file that replays the LLM's answer to an identical request "
        "(same model file, prompt, schema, limits); '' = off, as it must be on glasses",
    )


@dataclass(frozen=True)
class RemoteConfig:
    base_url: str = setting("http://127.0.0.1:8080/v1", "OpenAI-compatible endpoint (URL)")
    api_key_env: str = setting("EDGE_ASSIST_API_KEY", "environment variable that holds the API key, if any")
    llm_model: str = setting("", "model name the server expects for text")
    vlm_model: str = setting("", "model name the server expects for images")
    timeout_s: float = setting(30.0, "per-request timeout (seconds)", lo=0.1, hi=3600)
    retries: int = setting(2, "retries after a failed request (count)", lo=0, hi=10)


@dataclass(frozen=True)
class MemoryConfig:
    profile: str = setting(
        "short",
        "roll-up windows: short = 10 s / 1 min / 5 min, all-day = 30 s / 5 min / 1 h, custom = the keys below",
        choices=("short", "all-day", "custom"),
    )
    clip_s: float = setting(10.0, "clip level window when profile = custom (seconds)", lo=1)
    activity_s: float = setting(60.0, "activity summary window when profile = custom (seconds)", lo=1)
    session_s: float = setting(300.0, "session summary window when profile = custom (seconds)", lo=1)
    write_queue: int = setting(
        64, "captions waiting for the memory writer; the producer waits when full (count)", lo=1, hi=100000
    )
    keyframe_retention_days: float = setting(
        30.0, "keyframe JPEGs older than this are deleted; 0 keeps none (days)", lo=0
    )
    keyframe_jpeg_quality: int = setting(80, "JPEG quality of stored keyframes (0-100)", lo=1, hi=100)
    extract_entities: bool = setting(True, "build the entity graph from captions")
    entity_extractor: str = setting(
        "lexical",
        "how captions become graph entities: llm (one LLM call per caption), llm-batch (one call per "
        "memory.entity_batch captions), lexical (the caption's shallow parse, no LLM)",
        choices=("llm", "llm-batch", "lexical"),
    )
    summaries: str = setting(
        "llm",
        "activity and session summaries: llm (SmolLM2 writes them), extractive (the captions' own words joined, "
        "no LLM: what a summary falls back to when the LLM fails; for bulk imports and slow devices)",
        choices=("llm", "extractive"),
    )
    entity_batch: int = setting(
        6, "captions per LLM call when memory.entity_extractor = llm-batch (count)", lo=1, hi=64
    )
    max_store_mb: float = setting(
        0.0, "cap on the SQLite store size; ingest stops with an error when reached; 0 = no cap (MB)", lo=0
    )
    graph_buffer_mb: int = setting(
        64,
        "memory the entity graph (Kùzu) may keep for its pages; Kùzu's own default is 80 % of the machine's RAM, "
        "which it fills as the graph grows (MB)",
        lo=16,
        hi=1 << 20,
    )
    summary_max_tokens: int = setting(128, "longest activity or session summary (tokens)", lo=16, hi=1024)
    entity_max_tokens: int = setting(
        256, "longest entity-extraction answer per caption (tokens)", lo=32, hi=2048
    )
    ann_min_items: int = setting(
        10000,
        "a text search over fewer stored items stays exact; above, k-means lists in sqlite-vec answer; 0 = always exact (count)",
        lo=0,
    )
    ann_list_size: int = setting(
        100, "target vectors per k-means list of the text index (count)", lo=16, hi=1000000
    )
    ann_probe: int = setting(
        4, "k-means lists scanned per text search; more is slower and closer to exact (count)", lo=1, hi=4096
    )


@dataclass(frozen=True)
class ReasonerConfig:
    context_captions: int = setting(
        4, "recent captions shown to the reasoner with the current one (count)", lo=0, hi=64
    )
    max_tokens: int = setting(
        256,
        "longest reasoner answer (tokens); the schemas cap each field, so this only binds on a rambling model",
        lo=16,
        hi=4096,
    )
    temperature: float = setting(0.0, "sampling temperature of decisions", lo=0, hi=2)
    task_context: str = setting("", "what the wearer is doing (a recipe, a procedure), given to every pass")
    task: str = setting(
        "",
        "the task under way, by its name in the task library (`edge-assist tasks list`); empty: the stream's "
        "metadata names it, the task context lists its steps, or it is recognised from the captions",
    )
    decider: str = setting(
        "gate",
        "who decides a proactive step: gate (a classifier learned from people's labels over the task tracker's "
        "findings, milliseconds), llm (the reasoner's pass 1), or gate+llm (the LLM where the gate is unsure)",
        choices=("gate", "llm", "gate+llm"),
    )
    gate_file: str = setting(
        "", "trained gate model (path); empty: the one that ships (edge_assist/data/gate.json)"
    )
    unsure_band: float = setting(
        0.1,
        "gate+llm: a gate probability this close to the threshold is left to the LLM (probability)",
        lo=0,
        hi=1,
    )
    phrasing: str = setting(
        "template",
        "how a gate decision is worded: template (at once), or llm (one sentence checked against the template; "
        "about 2 s more to the first word with SmolLM2 on 2 cores, benchmarks/results/bench_decider.json)",
        choices=("llm", "template"),
    )
    hazards: bool = setting(True, "Safety alerts from the hazard vocabulary (edge_assist/data/hazards.toml)")
    query_search: str = setting(
        "always",
        "a wearer's question: always search memory first, or let pass 1 answer from the recent captions when it can",
        choices=("always", "auto"),
    )
    answerer: str = setting(
        "grounded",
        "how questions are answered: grounded (the model chooses a remembered moment, the answer is composed "
        "from it, or 'I don't remember') or free (the model writes the answer from retrieved context)",
        choices=("grounded", "free"),
    )
    answer_min_score: float = setting(
        0.0,
        "grounded answers: a moment whose probability of being what the question is about (the answer gate, "
        "reasoner.answer_gate_file) is below this is not evidence; 0 = the gate's own threshold, chosen on val (0-1)",
        lo=0,
        hi=1,
    )
    answer_gate_file: str = setting(
        "",
        "grounded answers: trained answer gate (path); empty: the one that ships (edge_assist/data/answer_gate.json, "
        "`python -m edge_assist.evaluation.qa_tune`)",
    )
    answer_choice_margin: float = setting(
        0.05,
        "grounded answers: moments within this probability of the best one are put to the model to choose among; "
        "a clear winner is taken as is (a 135M model chooses near chance among far-apart options); 1 = the model "
        "always chooses (for a bigger model) (0-1)",
        lo=0,
        hi=1,
    )
    answer_rephrase: bool = setting(
        False, "grounded answers: let the model rephrase the composed answer (kept only when faithful to it)"
    )
    reconstruction_max_tokens: int = setting(
        256, "longest reconstructed account per path group (tokens)", lo=16, hi=4096
    )
    progress_cue: str = setting(
        "off",
        "when pass 1 stays silent but the task tracker has a finding of a kind in `cue_findings`: "
        "off, or speak an Error Recovery about it (for a reasoner too small to act on the findings it is shown)",
        choices=("off", "speak"),
    )
    cue_findings: str = setting(
        "prerequisite_missing,order_violation,deviation",
        "tracker finding kinds the progress cue speaks, comma-separated (prerequisite_missing, order_violation, "
        "repeated_step, deviation, unmatched_action)",
    )


@dataclass(frozen=True)
class RetrievalConfig:
    top_k: int = setting(5, "hits per retrieval path (count)", lo=1, hi=100)
    temporal: bool = setting(True, "search the caption / activity / session vectors")
    graph: bool = setting(True, "search the entity graph")
    visual: bool = setting(True, "search keyframe vectors (needs an image encoder)")
    multiscale: bool = setting(True, "search activity and session summaries too (false: clip level only)")
    reconstruction: bool = setting(True, "turn retrieved clips into a query-conditioned account")
    past_sessions: bool = setting(
        True,
        "a proactive search also reads earlier sessions (earlier hours and days; Memory Link, Habit Coaching "
        "and Routine Optimization need them); false: the current session only",
    )
    max_clips_per_group: int = setting(6, "clips one path group hands to reconstruction (count)", lo=1, hi=64)
    context_chars: int = setting(
        2400, "longest fused retrieved context given to pass 2 (characters)", lo=200, hi=100000
    )


@dataclass(frozen=True)
class PolicyConfig:
    chattiness: str = setting(
        "quiet",
        "how readily the gate speaks: quiet (about 1 false alarm per hour on val), normal (2.5), chatty (5)",
        choices=("quiet", "normal", "chatty"),
    )
    cooldown_s: dict = setting(
        {
            "NSG": 30.0,
            "ER": 20.0,
            "RR": 60.0,
            "MR": 60.0,
            "TR": 120.0,
            "HC": 600.0,
            "ML": 300.0,
            "RO": 600.0,
            "TU": 30.0,
        },
        "per sub-type: no second proactive service of that kind within this time (seconds)",
    )
    max_per_hour: int = setting(
        0, "global cap on proactive services per hour; 0 = off (count)", lo=0, hi=3600
    )
    repeat_window_s: float = setting(300.0, "never repeat the same advice within this time (seconds)", lo=0)
    do_not_disturb: bool = setting(False, "stay silent except for Safety and answers to questions")
    repeat_similarity: float = setting(
        0.9,
        "advice this similar (text-encoder cosine) to a recent one counts as a repeat; 1 = exact text only (0-1)",
        lo=0,
        hi=1,
    )
    safety_repeat_window_s: float = setting(
        30.0, "the same Safety alert is not repeated within this time (seconds)", lo=0
    )


@dataclass(frozen=True)
class SchedulerConfig:
    step_budget_s: float = setting(
        10.0, "time allowed for one step, caption to output (seconds)", lo=0.1, hi=3600
    )
    search_policy: str = setting(
        "degrade",
        "when a search does not fit the budget: degrade it or defer it to the next idle slot",
        choices=("degrade", "defer"),
    )
    retrieval_estimate_s: float = setting(
        0.5, "first guess of the three retrieval paths' cost, replaced by measurements (seconds)", lo=0
    )
    reconstruction_estimate_s: float = setting(
        6.0, "first guess of reconstructing all paths' hits, replaced by measurements (seconds)", lo=0
    )
    pass2_estimate_s: float = setting(
        2.0, "first guess of the second reasoner pass, replaced by measurements (seconds)", lo=0
    )
    stats_interval_s: float = setting(
        60.0, "how often run statistics go to the JSONL log; 0 = only at the end (seconds)", lo=0
    )


@dataclass(frozen=True)
class OutputConfig:
    decision_log: str = setting("decisions.jsonl", "JSONL log of every decision (path; relative to data_dir)")
    console: bool = setting(True, "print decisions to the console")
    console_silent: bool = setting(False, "also print silent decisions to the console")
    speech: str = setting(
        "auto",
        "text-to-speech engine; auto = espeak-ng when installed",
        choices=("auto", "espeak-ng", "piper", "off"),
    )
    voice: str = setting("en-us", "espeak-ng voice name or piper voice model path")
    speech_rate_wpm: int = setting(170, "speaking rate (words per minute)", lo=60, hi=500)
    speech_audio_out: str = setting(
        "", "write speech to this WAV file instead of the sound card (path; for tests)"
    )
    speech_queue: int = setting(
        4, "utterances waiting to be spoken before the least urgent is dropped (count)", lo=1, hi=64
    )
    hud_min_duration_s: float = setting(
        3.0, "shortest time a message stays on the HUD (seconds)", lo=0.5, hi=600
    )


@dataclass(frozen=True)
class BridgeConfig:
    transport: str = setting("off", "link to the glasses", choices=("off", "udp", "serial", "websocket"))
    host: str = setting("127.0.0.1", "address to bind (loopback unless you mean it)")
    port: int = setting(47800, "UDP/WebSocket port", lo=1, hi=65535)
    serial_device: str = setting("/dev/ttyACM0", "serial port of the glasses (path)")
    baud: int = setting(115200, "serial speed (bits/s)", lo=1200, hi=4000000)
    key_file: str = setting(
        "pairing.key",
        "key shared at pairing, made by `edge-assist pair` (path; relative to general.data_dir)",
    )
    ack_timeout_s: float = setting(
        0.3, "resend a message the glasses have not acknowledged after this (seconds)", lo=0.01, hi=30
    )
    max_retries: int = setting(
        5, "resends before the link is declared down and re-established (count)", lo=1, hi=100
    )
    heartbeat_s: float = setting(
        2.0, "glasses ping this often; 3 missed pings drop the session (seconds)", lo=0.05, hi=300
    )
    reopen_s: float = setting(
        1.0, "wait between attempts to open a serial port that is not there yet (seconds)", lo=0.01, hi=60
    )
    pending_max: int = setting(
        64, "acknowledged messages kept for resending while the glasses are away (count)", lo=1, hi=128
    )
    connect_wait_s: float = setting(
        5.0,
        "a replay faster than real time waits this long for the glasses before its first HUD message (seconds)",
        lo=0,
        hi=600,
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
