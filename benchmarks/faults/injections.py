"""The device's everyday failures, injected into the real pipeline, each with what held.

Every function injects one fault, watches the log lines it caused and what the pipeline
did (went on, or stopped with one clear line), and returns a record:
`{"fault", "injected", "log_lines", "outcome", "held"}`. Fakes stand only at the hardware
edge (a camera backend that unplugs, glasses on a UDP socket, a disk size limit); memory,
models and the CLI are the real ones.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.faults.kill_loop import config_for, overrides, stitched_stream, stored_clips
from edge_assist.errors import SourceError

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def captured_logs(level: int = logging.WARNING) -> Iterator[list[str]]:
    """The log lines (level name, logger, message) emitted inside the block."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")

    handler = Keep(level)
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(min(old, level) if old else level)
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        root.setLevel(old)


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
        "injected": f"RLIMIT_FSIZE {limit_bytes} bytes on the replay process (writes past it fail with EFBIG)",
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
        "injected": "the LLM's GGUF deleted after the first caption was stored; then the replay started again",
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


# -- a camera that disconnects and comes back ---------------------------------------------------


class UnpluggableCamera:
    """A live camera backend (the hardware edge) that unplugs after some frames.

    Like the OpenCV and picamera2 backends, `open` waits for the device (up to their
    open timeout) and raises SourceError if it does not appear; here the device is away
    for `away_s` and the timeout is `open_timeout_s`.
    """

    live = True
    duration_s: float | None = None

    def __init__(
        self, *, frames: int, unplug_at: int, away_s: float, open_timeout_s: float = 1.0, fps: float = 10.0
    ) -> None:
        self.name = "fake-usb-camera"
        self.total = frames
        self.unplug_at = unplug_at
        self.away_s = away_s
        self.open_timeout_s = open_timeout_s
        self.fps = fps
        self.delivered = 0
        self.opens = 0
        self._t = 0.0
        self._gone_since: float | None = None

    def open(self) -> None:
        self.opens += 1
        if self._gone_since is not None:
            back_at = self._gone_since + self.away_s
            wait = back_at - time.monotonic()
            if wait > self.open_timeout_s:
                time.sleep(self.open_timeout_s)
                raise SourceError(
                    f"cannot open camera {self.name!r}: check it is plugged in (ls /dev/video*)"
                )
            time.sleep(max(0.0, wait))
            self._gone_since = None
        self._t = 0.0  # a reopened backend restarts its own time

    def read(self) -> Any:
        from edge_assist.sources.base import RawFrame

        if self.delivered >= self.total:
            return None
        if self.delivered == self.unplug_at and self.opens == 1:
            self._gone_since = time.monotonic()
            raise SourceError(f"camera {self.name!r} stopped delivering frames; check the cable and power")
        self.delivered += 1
        self._t += 1.0 / self.fps
        return RawFrame(self._t, np.zeros((8, 8, 3), np.uint8))

    def close(self) -> None:
        pass


async def _camera_run(cam: UnpluggableCamera) -> tuple[list[float], BaseException | None, Any]:
    from edge_assist.clock import RealClock
    from edge_assist.queues import DroppingQueue
    from edge_assist.sources.camera_stage import CameraStage

    q: DroppingQueue[Any] = DroppingQueue(10_000, drop="newest")
    stage = CameraStage(RealClock(), cam, q, pace=False)
    error: BaseException | None = None
    try:
        await stage.run()
    except SourceError as e:
        error = e
    times = []
    while not q.empty():
        item = await q.get()
        if hasattr(item, "stream_t"):
            times.append(item.stream_t)
    return times, error, stage


def camera_reconnects(*, away_s: float = 0.5) -> dict[str, Any]:
    """Unplugged after 20 of 50 frames, back `away_s` later (within the open timeout)."""
    cam = UnpluggableCamera(frames=50, unplug_at=20, away_s=away_s)
    with captured_logs() as lines:
        times, error, stage = asyncio.run(_camera_run(cam))
    monotonic = all(b > a for a, b in zip(times, times[1:], strict=False))
    gap = times[20] - times[19] if len(times) > 20 else None
    held = error is None and len(times) == 50 and monotonic and any("back after" in x for x in lines)
    return {
        "fault": "camera disconnects and comes back",
        "injected": f"a live camera backend stops after 20 of 50 frames and is away {away_s} s",
        "log_lines": lines,
        "outcome": {
            "frames": len(times),
            "stream_time_increasing": monotonic,
            "stream_time_gap_s": None if gap is None else round(gap, 2),
            "reconnects": stage.reconnects,
            "error": str(error) if error else None,
        },
        "held": held,
        "how_it_ended": "reconnected; frames went on, stream time kept increasing across the gap"
        if held
        else "see outcome",
    }


def camera_never_returns() -> dict[str, Any]:
    """The same unplug, but the camera stays away past the open timeout: the run stops with one line."""
    cam = UnpluggableCamera(frames=50, unplug_at=20, away_s=3600.0, open_timeout_s=0.5)
    with captured_logs() as lines:
        times, error, _ = asyncio.run(_camera_run(cam))
    held = isinstance(error, SourceError) and len(times) == 20 and any("lost" in x for x in lines)
    return {
        "fault": "camera disconnects and does not come back",
        "injected": "a live camera backend stops after 20 frames and stays away past its open timeout",
        "log_lines": [*lines, f"edge-assist: error: {error}" if error else "(no error)"],
        "outcome": {"frames_before_stop": len(times), "error": str(error) if error else None},
        "held": held,
        "how_it_ended": "stopped with the backend's one-line error after the reopen timed out"
        if held
        else "see outcome",
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
        "injected": "two captions each with one empty/float keyframe beside a good one; then a stored JPEG overwritten",
        "log_lines": lines,
        "outcome": {
            "captions_stored": sum(stored),
            "keyframes_kept_for_clip_0": len(paths),
            "images_read_back_after_damage": len(images),
            "consistency": check,
        },
        "held": held,
        "how_it_ended": "captions stored without the broken picture; reading the damaged file logs and goes on"
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
        "injected": f"the wall clock the store reads set back {jump_s:.0f} s between two sessions (live clock running)",
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


# -- the glasses' link dropping and coming back --------------------------------------------------


async def _glasses_link() -> dict[str, Any]:
    from edge_assist.outputs.glasses_link import BridgeLink
    from firmware_bridge.endpoint import Timing
    from firmware_bridge.glasses import FakeGlasses
    from firmware_bridge.keys import generate_key
    from firmware_bridge.transports import UdpTransport

    fast = Timing(ack_timeout_s=0.05, max_retries=3, heartbeat_s=0.2, reopen_s=0.05, pending_max=32)
    key = generate_key()
    transport = UdpTransport("127.0.0.1", 0, mode="server")
    link = BridgeLink(transport, key, timing=fast)
    await link.start()
    port = transport.local_address[1]
    try:
        g = FakeGlasses(UdpTransport("127.0.0.1", port, mode="client"), key, timing=fast)
        await g.start()
        assert await g.wait_connected(5)
        before = await link.send_hud("before the drop", priority=1, duration_s=3)
        assert before is not None
        await asyncio.wait_for(before, 5)
        await g.close()  # the glasses go out of range
        loop = asyncio.get_running_loop()
        end = loop.time() + 5
        while link.connected:  # the host notices by its heartbeat timeout
            if loop.time() > end:
                raise AssertionError("the host never noticed the glasses were gone")
            await asyncio.sleep(0.02)
        during = [await link.send_hud(f"while away {i}", priority=1, duration_s=3) for i in range(3)]
        g2 = FakeGlasses(UdpTransport("127.0.0.1", port, mode="client"), key, timing=fast)
        await g2.start()  # back in range
        try:
            for f in during:
                assert f is not None
                await asyncio.wait_for(f, 5)
            shown = [(await asyncio.wait_for(g2.hud.get(), 5)).text for _ in during]
            extra = g2.hud.qsize()
            return {
                "shown_after_return": shown,
                "duplicates": extra,
                "sessions": link.stats()["sessions"],
                "pending": link.endpoint.pending,
            }
        finally:
            await g2.close()
    finally:
        await link.close()


def glasses_link_drops() -> dict[str, Any]:
    with captured_logs(logging.INFO) as lines:
        out = asyncio.run(_glasses_link())
    lines = [x for x in lines if "firmware_bridge" in x or "session" in x]
    held = (
        out["shown_after_return"] == [f"while away {i}" for i in range(3)]
        and out["duplicates"] == 0
        and out["pending"] == 0
        and any("down" in x for x in lines)
    )
    return {
        "fault": "glasses' link drops and comes back",
        "injected": "fake glasses on UDP leave (transport closed), 3 HUD texts are sent, the glasses return",
        "log_lines": lines,
        "outcome": out,
        "held": held,
        "how_it_ended": "session down logged; texts sent while away shown once each after the return"
        if held
        else "see outcome",
    }
