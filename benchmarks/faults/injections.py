"""The device's everyday failures, injected into the real pipeline, each with what held.

Every function injects one fault, watches the log lines it caused and what the pipeline
did (went on, or stopped with one clear line), and returns a record:
`{"fault", "injected", "log_lines", "outcome", "held"}`. Here the faults of the store and its
files: a full disk (a file size limit), a model file gone, a corrupt keyframe, the wall clock
set back; memory, models and the CLI are the real ones. The hardware's (camera, glasses) are
in `hardware.py`.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.faults.kill_loop import config_for, overrides, stitched_stream, stored_clips
from benchmarks.faults.logs import captured_logs

ROOT = Path(__file__).resolve().parents[2]


def _cli(
    args: list[str], *, limit_bytes: int | None = None, timeout_s: float = 1800
) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        if limit_bytes is not None:
            # Every file this process writes stops growing here: what a full disk looks like to it.
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "edge_assist", *args],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=limit,
        timeout=timeout_s,
        cwd=ROOT,
    )


def _problems(stderr: str) -> list[str]:
    """stderr less the progress line every replay prints ("replaying X (N captions, ...)")."""
    return [x for x in stderr.splitlines() if x.strip() and not x.startswith("replaying ")]


def _last_lines(text: str, n: int = 3) -> list[str]:
    return [x for x in text.strip().splitlines() if x.strip()][-n:]


def _consistency(data_dir: Path) -> dict[str, Any]:
    from edge_assist.inference.loader import load_text_encoder
    from edge_assist.memory.memory import Memory

    cfg = config_for(data_dir)
    with Memory.open(cfg, None, load_text_encoder(cfg)) as mem:
        return mem.consistency()


# -- a full disk ------------------------------------------------------------------------------


def full_disk(work: Path, *, limit_bytes: int = 1_900_000, recordings: int = 3) -> dict[str, Any]:
    """Replay under a file-size limit (RLIMIT_FSIZE): every write past it fails with EFBIG.

    Then the limit is lifted and the same replay is started again: it must resume and end
    with every caption stored once and the stores consistent. The store's first vector
    chunk makes its file about 1.7 MB at once, so the limit is reached early (in the
    committed run after 2 captions); which file reaches it first is recorded in the line.
    """
    work.mkdir(parents=True, exist_ok=True)
    stream = stitched_stream(work / "stream.jsonl", recordings)
    data = work / "data"
    first = _cli(["replay", str(stream), "--no-progress", *overrides(data)], limit_bytes=limit_bytes)
    at_stop = stored_clips(data)
    second = _cli(["replay", str(stream), "--no-progress", *overrides(data)])
    from edge_assist.sources.caption_stream import load_caption_stream

    total = len(load_caption_stream(stream).captions)
    check = _consistency(data)
    err = _problems(first.stderr)
    one_line = len(err) == 1 and err[0].startswith("edge-assist: error:") and "Traceback" not in first.stderr
    held = (
        first.returncode != 0
        and one_line
        and second.returncode == 0
        and check["ok"]
        and check["clips"] == total
    )
    return {
        "fault": "full disk",
        "injected": f"RLIMIT_FSIZE {limit_bytes} bytes on the replay process "
        "(writes past it fail with EFBIG)",
        "log_lines": err[-3:],
        "outcome": {
            "first_run_exit_code": first.returncode,
            "clips_stored_when_it_stopped": at_stop,
            "restart_exit_code": second.returncode,
            "captions": total,
            "consistency_after_restart": check,
        },
        "held": held,
        "how_it_ended": "stopped with one line, resumed on restart with nothing lost"
        if held
        else "see outcome",
    }


# -- a model file that disappears ---------------------------------------------------------------


def _model_copy(models_dir: Path) -> Path:
    from edge_assist.config import Config
    from edge_assist.inference.manifest import get_entry, resolve_file

    cfg = Config()
    src = resolve_file(cfg, get_entry(cfg, "smollm2-135m-q4"), "model")
    assert src is not None
    models_dir.mkdir(parents=True, exist_ok=True)
    dst = models_dir / "fault-llm.gguf"
    shutil.copyfile(src, dst)
    (models_dir / "manifest.toml").write_text(
        '[model.fault-llm]\nrole = "llm"\nlicence = "Apache-2.0"\n'
        '[[model.fault-llm.files]]\nkind = "model"\nname = "fault-llm.gguf"\npath = "fault-llm.gguf"\n',
        encoding="utf-8",
    )
    return dst


def model_disappears(work: Path) -> dict[str, Any]:
    """The LLM's file is deleted while a replay runs, then the replay is started again."""
    work.mkdir(parents=True, exist_ok=True)
    stream = stitched_stream(work / "stream.jsonl", 1)
    data = work / "data"
    model = _model_copy(work / "models")
    args = [
        "replay",
        str(stream),
        "--no-progress",
        *overrides(data),
        "--set",
        f"models.dir={work / 'models'}",
        "--set",
        'models.llm="fault-llm"',
    ]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "edge_assist", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    # Delete the file once the run has loaded it and stored its first caption.
    deadline = time.monotonic() + 600
    while stored_clips(data) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    model.unlink()
    deleted_at = stored_clips(data)
    out, err = proc.communicate(timeout=1800)
    during = {
        "exit_code": proc.returncode,
        "clips_stored_when_deleted": deleted_at,
        "clips_at_end": stored_clips(data),
        "stderr_tail": _last_lines(err),
    }
    again = _cli(args)
    err2 = _problems(again.stderr)
    one_line = len(err2) == 1 and err2[0].startswith("edge-assist: error:") and "fault-llm" in err2[0]
    from edge_assist.sources.caption_stream import load_caption_stream

    total = len(load_caption_stream(stream).captions)
    held = proc.returncode == 0 and during["clips_at_end"] == total and again.returncode != 0 and one_line
    return {
        "fault": "model file disappears at run time",
        "injected": "the LLM's GGUF deleted after the first caption was stored; "
        "then the replay started again",
        "log_lines": err2,
        "outcome": {"run_in_progress": during, "restart_exit_code": again.returncode, "captions": total},
        "held": held,
        "how_it_ended": (
            "the run in progress finished (the loaded model stays mapped); the restart stopped with one line "
            "naming the missing file and how to get it"
            if held
            else "see outcome"
        ),
    }


# -- a corrupt keyframe --------------------------------------------------------------------------


def corrupt_keyframe(work: Path) -> dict[str, Any]:
    """A corrupt frame from the camera (not an image) and a stored JPEG damaged on disk."""
    from edge_assist.events import Caption, Keyframe
    from edge_assist.inference.loader import load_text_encoder
    from edge_assist.memory.memory import Memory

    work.mkdir(parents=True, exist_ok=True)
    cfg = config_for(work / "data")
    good = np.full((32, 32, 3), 120, np.uint8)
    broken = [np.zeros((0, 32, 3), np.uint8), np.zeros((32, 32), np.float32)]
    with captured_logs() as lines, Memory.open(cfg, None, load_text_encoder(cfg)) as mem:
        stored = []
        for i, bad in enumerate(broken):
            cap = Caption(
                t=10.0 * (i + 1),
                session_id="kf",
                index=i,
                t0=10.0 * i,
                t1=10.0 * (i + 1),
                text=f"cutting bread on the board, step {i}",
                keyframes=(Keyframe(10.0 * i, good, "even"), Keyframe(10.0 * i + 5, bad, "scene-change")),
            )
            stored.append(mem.store_caption(cap))
        paths = mem.store.keyframe_paths("kf", 0)
        Path(paths[0]).write_bytes(b"\xff\xd8 not a jpeg any more")  # damaged on disk
        images = mem.keyframe_images("kf", 0)
        check = mem.consistency()
    held = all(stored) and len(paths) == 1 and images == [] and check["ok"] and len(lines) == 3
    return {
        "fault": "corrupt keyframe",
        "injected": "two captions each with one empty/float keyframe beside a good one; "
        "then a stored JPEG overwritten",
        "log_lines": lines,
        "outcome": {
            "captions_stored": sum(stored),
            "keyframes_kept_for_clip_0": len(paths),
            "images_read_back_after_damage": len(images),
            "consistency": check,
        },
        "held": held,
        "how_it_ended": "captions stored without the broken picture; "
        "reading the damaged file logs and goes on"
        if held
        else "see outcome",
    }


# -- the wall clock jumping backwards ----------------------------------------------------------


def clock_backwards(work: Path, *, jump_s: float = 6 * 3600) -> dict[str, Any]:
    """Session 1 starts; the wall clock is set back 6 h (a Pi before NTP); session 2 starts.

    Stream time comes from the monotonic clock and cannot jump; what could go wrong is the
    order of sessions, which decides what a step may recall from earlier ones.
    """
    from edge_assist.clock import RealClock
    from edge_assist.events import Caption
    from edge_assist.inference.loader import load_text_encoder
    from edge_assist.memory.memory import Memory

    work.mkdir(parents=True, exist_ok=True)
    cfg = config_for(work / "data")
    clock = RealClock()
    t_before = clock.now()
    # The store's wall clock (what stamps sessions), as the device's would read after the jump.
    wall = {"offset": 0.0}
    with (
        captured_logs() as lines,
        Memory.open(cfg, None, load_text_encoder(cfg), wall=lambda: time.time() - wall["offset"]) as mem,
    ):
        mem.store_caption(
            Caption(t=10.0, session_id="monday", index=0, t0=0.0, t1=10.0, text="left the keys on the shelf")
        )
        wall["offset"] = jump_s
        mem.store_caption(
            Caption(t=10.0, session_id="tuesday", index=0, t0=0.0, t1=10.0, text="looking for keys")
        )
        earlier = mem.earlier_sessions("tuesday")
        order = mem.store.sessions()
    stream_ok = clock.now() >= t_before
    held = earlier == ["monday"] and order == ["monday", "tuesday"] and stream_ok and len(lines) == 1
    return {
        "fault": "wall clock jumps backwards",
        "injected": f"the wall clock the store reads set back {jump_s:.0f} s between two sessions "
        "(live clock running)",
        "log_lines": lines,
        "outcome": {
            "session_order": order,
            "earlier_sessions_of_the_new_one": earlier,
            "monotonic_stream_clock_went_on": stream_ok,
        },
        "held": held,
        "how_it_ended": "the new session is filed after the old one; recall across sessions kept"
        if held
        else "see outcome",
    }
