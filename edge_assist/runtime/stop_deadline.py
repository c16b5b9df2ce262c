"""Every command ends within a few seconds of SIGTERM, and at once on a second Ctrl-C.

An orderly stop flushes the sinks and lets the memory writer finish its transaction, but
a model call in a worker thread cannot be interrupted, and an interpreter exits only once
its worker threads have. The first stop signal therefore arms a deadline: if the process
is still alive `STOP_DEADLINE_S` later it leaves with `os._exit`. The second signal leaves
at once. Both are safe for what is stored: the memory store and the graph are written in
transactions that survive a kill -9 (tests/test_memory_resume.py), so exiting mid-write
loses at most the caption in flight, which a resumed replay writes again.
"""

from __future__ import annotations

import os
import sys
import threading

STOP_DEADLINE_S = 4.5  # below the 5 s a service manager is promised, with room for the exit itself

_lock = threading.Lock()
_signals = 0


def stop_signal(code: int = 130, *, deadline_s: float = STOP_DEADLINE_S) -> None:
    """Count a stop signal: arm the deadline on the first, exit now on the second."""
    global _signals
    with _lock:
        _signals += 1
        first = _signals == 1
    if not first:
        _leave(code, "stopped at once (second signal)")
    timer = threading.Timer(deadline_s, _leave, (code, f"still stopping after {deadline_s:g} s; exiting now"))
    timer.daemon = True
    timer.start()


def _leave(code: int, why: str) -> None:
    try:
        sys.stderr.write(f"edge-assist: {why} (memory is written in transactions: nothing stored is lost)\n")
        sys.stderr.flush()
    finally:
        os._exit(code)
