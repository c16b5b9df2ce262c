"""`edge-assist doctor`: what is installed, which models and devices are found, what is
missing and the command that gets it. Loads no model; safe to run any time.

Rows are either required (the assistant cannot run without them: the packages, SQLite with
sqlite-vec, the configured LLM and text encoder, a configured glasses link, a writable data
folder) or optional (speech, cameras, voice input, a VLM). The exit code is 1 only when a
required part is missing, so a script or a unit can gate on it.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import os
import platform
import shutil
from collections.abc import Iterator
from pathlib import Path

from edge_assist.commands.options import config_from_args
from edge_assist.config import Config
from edge_assist.config.privacy import readable_by_others

OK, MISSING, NOTE, WARNING = "ok", "MISSING", "note", "WARNING"
NOT_INSTALLED = "not installed"
REQUIRED, OPTIONAL = "required", "optional"
# Parts the assistant runs without (a row about them that is not OK never fails doctor).
_OPTIONAL_PARTS = ("cameras", "picamera2", "speech", "audio player", "voice input")

_PACKAGES = (
    ("llama-cpp-python", "llama_cpp", "pip install llama-cpp-python (builds llama.cpp; ~16 min on 2 cores)"),
    ("onnxruntime", "onnxruntime", "pip install onnxruntime"),
    ("sqlite-vec", "sqlite_vec", "pip install sqlite-vec"),
    ("kuzu", "kuzu", "pip install kuzu==0.11.3"),
    ("tokenizers", "tokenizers", "pip install tokenizers"),
    ("opencv-python-headless", "cv2", "pip install opencv-python-headless"),
    ("numpy", "numpy", "pip install numpy"),
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "doctor",
        help="check what is installed, which models and devices are found, and what is missing",
        description="Check the installation: packages, SQLite extension loading, models, cameras, speech, "
        "voice input, the glasses bridge and the data folder. Every missing piece comes with the command "
        "that fixes it.",
    )
    p.set_defaults(func=_doctor)


def _version(dist: str) -> str | None:
    import importlib.metadata as md  # reads package metadata: only doctor needs it, not every start

    try:
        return md.version(dist)
    except md.PackageNotFoundError:
        return None


def part_kind(what: str, status: str = OK) -> str:
    """required or optional, from the row's name. A VLM, an image encoder or the glasses
    link is optional until one is configured (captions can come from a file; the visual
    path can be off; the HUD emulator needs no glasses)."""
    if what.startswith(_OPTIONAL_PARTS) or what in ("model (vlm)", "model (image-encoder)"):
        return OPTIONAL
    if what == "glasses bridge" and status == NOTE:
        return OPTIONAL
    return REQUIRED


Row = tuple[str, str, str]  # (status, what, detail)


def checks(cfg: Config) -> Iterator[Row]:
    """(status, what, detail) rows."""
    yield from _software()
    yield from _models(cfg)
    yield from _devices(cfg)
    yield from _bridge(cfg)
    yield from _data_folder(cfg)


def _software() -> Iterator[Row]:
    yield OK, "python", f"{platform.python_version()} on {platform.machine()} ({platform.system()})"
    for dist, module, fix in _PACKAGES:
        v = _version(dist) or (_version("opencv-python") if module == "cv2" else None)
        if v is None and importlib.util.find_spec(module) is None:
            yield MISSING, dist, fix
        else:
            yield OK, dist, v or "installed"
    try:
        from edge_assist.memory.sqlite import connect, sqlite_module

        mod = sqlite_module()
        conn = connect(":memory:")
        vec = conn.execute("select vec_version()").fetchone()[0]
        conn.close()
        yield OK, "sqlite + sqlite-vec", f"{mod.__name__} {mod.sqlite_version}, sqlite-vec {vec}"
    except Exception as e:  # doctor reports, never crashes
        yield MISSING, "sqlite + sqlite-vec", str(e)


def _models(cfg: Config) -> Iterator[Row]:
    try:
        from edge_assist.inference.loader import model_status

        for row in model_status(cfg):
            label = f"model ({row.role})" + (f" {row.name}" if row.name else "")
            if row.found:
                yield OK, label, row.path or row.detail
            elif row.role in ("vlm", "image-encoder") and not row.name:
                yield NOTE, label, row.detail
            else:
                yield MISSING, label, row.detail
    except Exception as e:
        yield MISSING, "models", f"cannot read the model manifest: {e}"


def _devices(cfg: Config) -> Iterator[Row]:
    cams = sorted(glob.glob("/dev/video*"))
    if cams:
        yield OK, "cameras (V4L2)", ", ".join(cams)
    else:
        yield NOTE, "cameras (V4L2)", "none found: plug a USB camera for `run`, or use `replay`"
    if importlib.util.find_spec("picamera2") is not None:
        yield OK, "picamera2", "installed"
    else:
        yield (
            NOTE,
            "picamera2",
            "not installed (Raspberry Pi camera only: sudo apt install python3-picamera2)",
        )

    if shutil.which("espeak-ng"):
        yield OK, "speech (espeak-ng)", shutil.which("espeak-ng") or ""
    else:
        yield MISSING, "speech (espeak-ng)", "decisions are shown, not spoken: sudo apt install espeak-ng"
    player = shutil.which("aplay") or shutil.which("paplay") or shutil.which("pw-play")
    yield (
        (OK if player else NOTE),
        "audio player",
        player or "none (aplay/paplay): speech can only go to a WAV file",
    )

    try:
        from edge_assist.voice import voice_status  # type: ignore[attr-defined]

        lines = voice_status(cfg)
    except ImportError:
        yield NOTE, "voice input", "not available in this build"
        return
    # One row: each line is a fact ("ok: ...", the speech-to-text server) or a fix to make.
    facts = [line.removeprefix("ok: ") for line in lines if line.startswith(("ok", "speech-to-text:"))]
    fixes = [line for line in lines if line.removeprefix("ok: ") not in facts]
    status = OK if cfg.voice.enabled and not fixes else NOTE
    yield status, "voice input", "; ".join(fixes + facts)


def _bridge(cfg: Config) -> Iterator[Row]:
    key = cfg.data_path(cfg.bridge.key_file)
    if cfg.bridge.transport == "off":
        yield (
            NOTE,
            "glasses bridge",
            "off (bridge.transport); `edge-assist hud-emulator` shows the HUD in a terminal",
        )
    elif key.exists():
        yield OK, "glasses bridge", f"{cfg.bridge.transport}, paired (key {key})"
    else:
        yield (
            MISSING,
            "glasses bridge",
            (
                f"{cfg.bridge.transport} configured but no pairing key at {key}: run `edge-assist pair` "
                "(or set bridge.key_file to the key of another data folder)"
            ),
        )


def _data_folder(cfg: Config) -> Iterator[Row]:
    data = cfg.data_dir
    probe = data if data.exists() else next((p for p in data.parents if p.exists()), Path("/"))
    if os.access(probe, os.W_OK):
        free_gb = shutil.disk_usage(probe).free / 1e9
        yield (
            (OK if free_gb > 1 else MISSING),
            "data folder",
            f"{data} ({free_gb:.1f} GB free)"
            + ("" if free_gb > 1 else ": free some disk space, memory ingest stops when the disk is full"),
        )
    else:
        yield MISSING, "data folder", f"{data} is not writable: set general.data_dir"
    yield from _privacy(data)


def _privacy(data: Path) -> Iterator[Row]:
    """A warning, not a failure: the assistant works, but others on this machine can read the day."""
    open_to_others = readable_by_others(data)
    if not data.exists():
        return
    if not open_to_others:
        yield OK, "data privacy", f"{data} is readable by you only"
        return
    first = open_to_others[0]
    more = f" and {len(open_to_others) - 1} more" if len(open_to_others) > 1 else ""
    yield (
        WARNING,
        "data privacy",
        f"{first}{more} can be read by other users: chmod -R go-rwx {data}",
    )


def _doctor(args: argparse.Namespace) -> int:
    cfg = config_from_args(args)
    rows = [(status, what, detail, part_kind(what, status)) for status, what, detail in checks(cfg)]
    # Under "optional parts:", an absent part is not installed, not missing.
    shown = [NOT_INSTALLED if s == MISSING and k == OPTIONAL else s for s, _, _, k in rows]
    status_width = max(len(MISSING), *(len(s) for s in shown))
    width = max(len(what) for _, what, _, _ in rows)
    for kind in (REQUIRED, OPTIONAL):
        print(f"{kind} parts:")
        for status, (_, what, detail, k) in zip(shown, rows, strict=True):
            if k == kind:
                print(f"{status:>{status_width}}  {what:<{width}}  {detail}")
        print()
    missing = [what for status, what, _, k in rows if status == MISSING and k == REQUIRED]
    optional = [what for status, what, _, k in rows if status == MISSING and k == OPTIONAL]
    if missing:
        print(f"{len(missing)} required part{'s' * (len(missing) != 1)} missing: {', '.join(missing)}")
    else:
        print(
            "everything required is here"
            + (f"; optional, not installed: {', '.join(optional)}" if optional else "")
        )
    warned = [what for status, what, _, _ in rows if status == WARNING]
    if warned:
        print(f"warning: {', '.join(warned)} (see above)")
    return 1 if missing else 0
