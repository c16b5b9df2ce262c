"""The settings of what goes out: speech, the HUD, the decision log and the glasses bridge.

Every key is declared once with its default, its unit and its range (`setting`).
"""

from __future__ import annotations

from dataclasses import dataclass

from edge_assist.config.setting import setting


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
        "a replay faster than real time waits this long for the glasses before its first HUD message "
        "(seconds)",
        lo=0,
        hi=600,
    )
