"""Evaluation worker processes end with their parent: terminated, interrupted or killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from edge_assist.evaluation.captaincook import build

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "captaincook4d"

# A parent that starts two workers which would each sleep for a minute.
SLEEPING_POOL = """
import time
from edge_assist.evaluation.workers import worker_pool
with worker_pool(2) as pool:
    futures = [pool.submit(time.sleep, 60) for _ in range(4)]
    futures[0].result()
"""


def _children(pid: int) -> dict[int, str]:
    """The live children of `pid` and their command lines, from /proc (no psutil)."""
    out: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out[int(stat.parent.name)] = cmdline
    return out


def _alive(pid: int) -> bool:
    """A process that still exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _workers_of(parent: subprocess.Popen[bytes], n: int, timeout_s: float) -> list[int]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        workers = [p for p, cmd in _children(parent.pid).items() if "spawn_main" in cmd]
        if len(workers) >= n:
            return workers
        assert parent.poll() is None, "the parent ended before its workers started"
        time.sleep(0.2)
    raise AssertionError(f"fewer than {n} workers after {timeout_s} s")


def _assert_all_end(pids: list[int], within_s: float) -> None:
    deadline = time.monotonic() + within_s
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if _alive(p)]
    for p in left:  # do not leave them to the next test
        os.kill(p, signal.SIGKILL)
    assert not left, f"workers {left} outlived their parent"
    # and each removed its temporary directory (a recording's memory) on the way out
    kept = [d for p in pids for d in Path(tempfile.gettempdir()).glob(f"edge-assist-worker-{p}-*")]
    assert not kept, f"{kept} left behind"


pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_idle_workers_end_with_their_parent(sig: signal.Signals) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", SLEEPING_POOL],
        cwd=ROOT,
        # A child of a non-interactive shell may inherit SIGINT ignored; this one must not.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        workers = _workers_of(parent, 2, 60.0)
        time.sleep(0.5)  # past the initializer
        parent.send_signal(sig)
        parent.wait(10)
        _assert_all_end(workers, 5.0)
    finally:
        parent.kill()
        parent.wait()


# Each keeps its two workers busy for several seconds with the real models.
COMMANDS = {
    "run": ["--rows", "ours", "--judge-max-pairs", "0", "--no-plots"],
    "qa": ["--answerer", "grounded,free"],
}


@pytest.mark.slow
@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_eval_leaves_no_worker_behind(command: str, sig: signal.Signals, tmp_path: Path) -> None:
    build(DATA, tmp_path / "cc4d")
    log = (tmp_path / "stderr.txt").open("wb")
    parent = subprocess.Popen(
        [sys.executable, "-m", "edge_assist", "eval", command, "--dataset", str(tmp_path / "cc4d")]
        + [*COMMANDS[command], "--jobs", "2", "--out", str(tmp_path / "out")],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    try:
        workers = _workers_of(parent, 2, 60.0)
        time.sleep(2.0)  # the workers are loading models or replaying
        assert parent.poll() is None, (tmp_path / "stderr.txt").read_text()
        parent.send_signal(sig)
        parent.wait(10)
        _assert_all_end(workers, 8.0)
    finally:
        parent.kill()
        parent.wait()
        log.close()
