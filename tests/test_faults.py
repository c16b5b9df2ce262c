"""Faults, short forms: each injection ends in a clear log line and a pipeline that goes on or
stops cleanly, never in silent loss. The full run (20 kills) is `python -m benchmarks.faults.run`,
its results in `benchmarks/results/faults/`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.faults import hardware, injections
from benchmarks.faults.kill_loop import kill_loop


def test_camera_that_disconnects_and_comes_back_goes_on() -> None:
    r = hardware.camera_reconnects()
    assert r["held"], r
    assert r["outcome"]["reconnects"] == 1 and r["outcome"]["stream_time_gap_s"] >= 0.5


def test_camera_that_does_not_come_back_stops_with_one_line() -> None:
    r = hardware.camera_never_returns()
    assert r["held"], r


def test_glasses_link_that_drops_and_returns_loses_nothing() -> None:
    r = hardware.glasses_link_drops()
    assert r["held"], r


@pytest.mark.slow
def test_corrupt_keyframes_cost_the_picture_not_the_caption(tmp_path: Path) -> None:
    r = injections.corrupt_keyframe(tmp_path)
    assert r["held"], r


@pytest.mark.slow
def test_wall_clock_set_back_keeps_the_order_of_sessions(tmp_path: Path) -> None:
    r = injections.clock_backwards(tmp_path)
    assert r["held"], r


@pytest.mark.faults
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_full_disk_stops_with_one_line_and_resumes(tmp_path: Path) -> None:
    # A limit below the store's first vector chunk: the very first caption hits the full disk.
    r = injections.full_disk(tmp_path, limit_bytes=1_000_000, recordings=1)
    assert r["held"], r


@pytest.mark.faults
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_model_file_that_disappears(tmp_path: Path) -> None:
    r = injections.model_disappears(tmp_path)
    assert r["held"], r


@pytest.mark.faults
@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_kill_loop_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    r = kill_loop(tmp_path, kills=4, seed=5, recordings=1)
    assert r["kills"] >= 1, r
    assert r["held"], r
