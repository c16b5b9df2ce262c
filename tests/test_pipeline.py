"""The one-process pipeline end to end: replay sources, drops, skips, shutdown."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from edge_assist.clock import RealClock, VirtualClock
from edge_assist.evaluation.baselines import ErrorRecoveryEveryCaption, NeverSpeak
from edge_assist.events import Frame, StreamEnd
from edge_assist.outputs.decision_log import DecisionLog, read_decision_log
from edge_assist.queues import DroppingQueue
from edge_assist.runtime.app import Pipeline
from edge_assist.runtime.parts import PipelineSettings, VideoSource
from edge_assist.sources.camera_stage import CameraStage
from edge_assist.sources.caption_stream import load_caption_stream
from edge_assist.sources.video_file import VideoFileSource
from tests.fakes import FastLiveCamera, ScriptedCaptioner, WaitingClock
from tests.videos import write_video

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"


async def test_caption_replay_end_to_end_writes_the_decision_log(tmp_path: Path) -> None:
    stream = load_caption_stream(DEMO)
    log = DecisionLog(tmp_path / "decisions.jsonl")
    p = Pipeline(VirtualClock(), ErrorRecoveryEveryCaption(), [log], stream)
    result = await p.run()
    assert result.stats.captions == len(stream.captions) == result.stats.decisions == result.stats.spoken
    lines = [r for r in read_decision_log(tmp_path / "decisions.jsonl") if r["type"] == "decision"]
    assert [r["clip_index"] for r in lines] == list(range(len(stream.captions)))
    assert lines[0]["t1"] == pytest.approx(stream.captions[0].t1) and lines[0]["sub_type"] == "ER"
    # Virtual time: each decision is stamped when its clip ended, not when the CPU got to it.
    assert [r["t"] for r in lines] == pytest.approx([c.t1 for c in stream.captions])
    stats = [r for r in read_decision_log(tmp_path / "decisions.jsonl") if r["type"] == "stats"]
    assert stats and stats[-1]["captions"] == len(stream.captions)


def test_dropping_queue_counts_what_it_drops() -> None:
    q: DroppingQueue[int] = DroppingQueue(3, drop="newest")
    kept = [q.put_nowait(i) for i in range(10)]
    assert kept.count(True) == 3 and q.dropped == 7 and q.qsize() == 3
    q.put_nowait(99, force=True)  # an end-of-stream marker is never the one dropped
    assert q.dropped == 8 and list(q._items)[-1] == 99
    oldest: DroppingQueue[int] = DroppingQueue(2, drop="oldest")
    for i in range(5):
        oldest.put_nowait(i)
    assert list(oldest._items) == [3, 4] and oldest.dropped == 3


async def test_live_camera_drops_frames_under_a_slow_consumer_instead_of_falling_behind() -> None:
    q: DroppingQueue[Frame | StreamEnd] = DroppingQueue(4, drop="newest")
    cam = FastLiveCamera(200)
    stage = CameraStage(RealClock(), cam, q, pace=False)
    await stage.run()  # nobody reads: the slowest possible consumer
    assert stage.frames == 200
    assert q.dropped == 200 - 4 + 1  # 4 kept, plus the forced end marker pushing one out
    assert isinstance(list(q._items)[-1], StreamEnd)


async def test_slow_captioner_makes_the_pipeline_skip_clips_and_count_them(tmp_path: Path) -> None:
    video = write_video(tmp_path / "kitchen.avi", seconds=60, fps=5, cut_at_s=31)
    clock = VirtualClock()
    captioner = ScriptedCaptioner(clock, latency_s=25.0)  # 2.5x slower than the 10 s clips
    source = VideoSource(VideoFileSource(video, fps=5), captioner)
    p = Pipeline(clock, NeverSpeak(), [], source, settings=PipelineSettings(clip_s=10.0))
    result = await p.run()
    s = result.stats
    assert s.clips == 6
    assert s.skipped_clips > 0 and s.captions == len(captioner.seen)
    assert s.captions + s.skipped_clips == s.clips
    assert s.dropped_frames == 0  # the skip happens at the captioner, frames are all segmented
    # It keeps up with the stream: the newest clip wins, older ones are the ones skipped.
    assert captioner.seen[-1] == 5
    assert result.stats.decisions == s.captions


async def test_fast_captioner_captions_every_clip(tmp_path: Path) -> None:
    video = write_video(tmp_path / "kitchen.avi", seconds=30, fps=5)
    clock = VirtualClock()
    captioner = ScriptedCaptioner(clock, latency_s=2.0)
    source = VideoSource(VideoFileSource(video, fps=5), captioner)
    p = Pipeline(clock, NeverSpeak(), [], source, settings=PipelineSettings(clip_s=10.0))
    result = await p.run()
    assert captioner.seen == [0, 1, 2] and result.stats.skipped_clips == 0


async def test_stop_request_shuts_down_within_two_seconds(tmp_path: Path) -> None:
    stream = load_caption_stream(DEMO)
    log = DecisionLog(tmp_path / "d.jsonl")
    # Real-time pacing: the first caption arrives after ~30 s, so we stop mid-wait.
    clock = WaitingClock()
    p = Pipeline(clock, NeverSpeak(), [log], stream)
    task = asyncio.create_task(p.run())
    await asyncio.wait_for(clock.waiting.wait(), timeout=5)
    t0 = time.perf_counter()
    p.request_stop()
    result = await asyncio.wait_for(task, timeout=5)
    assert time.perf_counter() - t0 < 2.0
    assert result.stats.stopped_early
    # The log was flushed and closed: its stats line is complete JSON.
    recs = read_decision_log(tmp_path / "d.jsonl")
    assert recs[-1]["type"] == "stats" and recs[-1]["stopped_early"] is True


@pytest.mark.slow
def test_sigterm_stops_the_cli_cleanly_within_two_seconds(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "edge_assist",
            "replay",
            str(DEMO),
            "--realtime",
            "--no-progress",
            "--set",
            f"general.data_dir={data}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        # Wait until the pipeline runs (models loaded, memory open).
        assert proc.stderr is not None
        started = proc.stderr.readline()
        assert started.startswith("replaying"), started + proc.stderr.read()
        # Another process: no event crosses to here. A second lets every stage settle into
        # the real-time wait for the first caption (about 30 s away).
        time.sleep(1.0)
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        elapsed = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert elapsed < 2.0, f"took {elapsed:.2f} s to stop"
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "stopped before the end of the stream" in out
    recs = [json.loads(x) for x in (data / "decisions.jsonl").read_text().splitlines()]
    assert recs[-1]["type"] == "stats"


def test_sigterm_while_loading_models_is_clean(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "edge_assist",
            "replay",
            str(DEMO),
            "--no-progress",
            "--set",
            f"general.data_dir={tmp_path}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    time.sleep(1.5)  # the behaviour: a stop at an arbitrary moment of start-up (here, imports and loading)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 130) and "Traceback" not in err, (proc.returncode, err)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (lambda d: d / "missing.mp4", "does not exist"),
        (lambda d: _write(d / "empty.jsonl", b""), "no captions"),
        (lambda d: _write(d / "bad.jsonl", b'{"t0": 1, "t1"'), "bad.jsonl:1"),
        (lambda d: _write(d / "corrupt.mp4", b"\x00" * 5000), "cannot decode"),
        (lambda d: write_video(d / "fine.avi", seconds=2), "needs a VLM"),
    ],
)
def test_bad_replay_input_is_one_line_and_nonzero(tmp_path: Path, make, needle: str) -> None:
    path = make(tmp_path)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "edge_assist",
            "replay",
            str(path),
            "--set",
            f"general.data_dir={tmp_path / 'data'}",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and needle in lines[0], r.stderr
