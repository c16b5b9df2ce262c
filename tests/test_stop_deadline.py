"""A stop signal ends every command within 5 s, a second one at once."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A process stuck where no orderly stop can reach it: a non-daemon thread that never ends
# (as an uninterruptible model call keeps the interpreter from exiting).
STUCK = """
import sys, threading, time
from edge_assist.runtime.stop_deadline import stop_signal
threading.Thread(target=time.sleep, args=(60,)).start()
stop_signal(deadline_s=float(sys.argv[1]))
if len(sys.argv) > 2:
    stop_signal()
"""


def _run_stuck(*args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    t0 = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", STUCK, *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    return time.monotonic() - t0, done


def test_the_first_signal_arms_a_deadline_that_ends_a_stuck_process() -> None:
    elapsed, done = _run_stuck("0.5")
    assert done.returncode == 130
    assert "still stopping after 0.5 s; exiting now" in done.stderr
    assert elapsed < 30  # not the stuck thread's 60 s


def test_the_second_signal_leaves_at_once() -> None:
    elapsed, done = _run_stuck("30", "again")
    assert done.returncode == 130 and "stopped at once (second signal)" in done.stderr
    assert elapsed < 25  # not the 30 s deadline
