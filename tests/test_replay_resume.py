"""Resume and interruption: a resumed replay does not wait through what memory holds, and a
stopped run reports the stream time it actually processed."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from edge_assist.clock import RealClock, VirtualClock
from edge_assist.evaluation.baselines import NeverSpeak
from edge_assist.events import Caption, StreamEnd
from edge_assist.runtime.app import Pipeline
from edge_assist.sources.caption_stage import CaptionReplayStage
from edge_assist.sources.caption_stream import load_caption_stream
from tests.fakes import PacedClock


def _stream(tmp_path: Path, n: int = 8) -> Path:
    f = tmp_path / "kitchen.jsonl"
    f.write_text("".join(f'{{"t0": {10 * i}, "t1": {10 * (i + 1)}, "text": "step {i}"}}\n' for i in range(n)))
    return f


def test_real_clock_skips_forward_never_back() -> None:
    clock = RealClock()
    clock.skip_to(30.0)
    assert 30.0 <= clock.now() < 31.0
    clock.skip_to(5.0)
    assert clock.now() >= 30.0


async def test_resumed_realtime_replay_waits_only_for_new_clips(tmp_path: Path) -> None:
    stream = load_caption_stream(_stream(tmp_path, n=5))
    clock = PacedClock()
    out: asyncio.Queue[Caption | StreamEnd] = asyncio.Queue()
    # Memory holds clips 0-2 (0-30 s): the replay resumes at clip 3.
    stage = CaptionReplayStage(clock, stream, out, first_index=3)
    await stage.run()
    got = [out.get_nowait() for _ in range(out.qsize())]
    assert [c.index for c in got if isinstance(c, Caption)] == [3, 4]
    # One clip's wait each (10 s), not the 40 s from the start of the stream.
    assert clock.waits == pytest.approx([10.0, 10.0], abs=0.5)
    assert stage.start_t == 30.0


async def test_everything_in_memory_waits_for_nothing(tmp_path: Path) -> None:
    stream = load_caption_stream(_stream(tmp_path, n=3))
    clock = PacedClock()
    out: asyncio.Queue[Caption | StreamEnd] = asyncio.Queue()
    await CaptionReplayStage(clock, stream, out, first_index=3).run()
    assert clock.waits == [] and isinstance(out.get_nowait(), StreamEnd)


async def test_interrupted_run_reports_the_stream_time_it_processed(tmp_path: Path) -> None:
    clock = VirtualClock()
    p = Pipeline(clock, NeverSpeak(), [], load_caption_stream(_stream(tmp_path, n=8)))

    async def ctrl_c() -> None:  # the wearer presses Ctrl-C 35 s into an 80 s stream
        await clock.sleep_until(35.0)
        p.request_stop()

    p.extra_tasks.append(("ctrl-c", lambda _inbox: ctrl_c()))
    result = await p.run()
    s = result.stats
    assert s.stopped_early and s.decisions == 3
    assert s.stream_s == pytest.approx(30.0)  # clips 0-2 were decided; not the planned 80 s
    assert "30 s of stream in" in s.summary_lines()[0]


async def test_finished_run_reports_the_whole_stream(tmp_path: Path) -> None:
    p = Pipeline(VirtualClock(), NeverSpeak(), [], load_caption_stream(_stream(tmp_path, n=8)))
    s = (await p.run()).stats
    assert not s.stopped_early and s.stream_s == pytest.approx(80.0) and s.stream_start_s == 0.0
