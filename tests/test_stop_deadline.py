"""A stop signal ends every command within 5 s, a second one at once."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from edge_assist.runtime.stop_deadline import STOP_DEADLINE_S

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


# The main thread inside a long C call (as in llama.cpp or ONNX Runtime): with SIGTERM blocked
# there, the signal reaches the watcher's thread, and Python's own handler, which only the main
# thread runs, waits until the call returns (here a 60 s sleep). The handler does nothing: the
# signal may land while the main thread still runs the bytecode before the call, and then its
# handler runs at once; either way only the deadline can end the 60 s call.
IN_C = """
import signal, sys, time
from edge_assist.runtime.stop_deadline import watch_signals
signal.signal(signal.SIGTERM, lambda *a: None)
watch_signals()
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
print("ready", flush=True)
time.sleep(60)
"""


def test_the_deadline_is_armed_while_the_main_thread_is_in_c() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", IN_C], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        elapsed = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert f"still stopping after {STOP_DEADLINE_S:g} s; exiting now" in err
    assert elapsed < 30  # not the 60 s of the call


# A stop that lands while a module builds code from a string (dataclasses, namedtuple): the
# interrupt leaves that string's code and is handled by the command line.
INTERRUPTED_IN_STRING_CODE = """
from edge_assist import cli
build = cli.build_parser
def parser():
    p = build()
    p.set_defaults(func=lambda args: eval("(_ for _ in ()).throw(KeyboardInterrupt)"))
    return p
cli.build_parser = parser
print(cli.main([]))
"""


def test_a_handled_interrupt_ends_with_130_not_a_death_by_sigint() -> None:
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IN_STRING_CODE],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    # The command's code is 130; the interpreter then ends as usual (0), not by SIGINT (-2).
    assert (done.stdout.strip(), done.returncode) == ("130", 0), (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
