"""Every command ends within a few seconds of SIGTERM, and at once on a second Ctrl-C.

An orderly stop flushes the sinks and lets the memory writer finish its transaction, but
a model call cannot be interrupted, an interpreter exits only once its worker threads
have, and Python runs a signal handler only when the main thread comes back from C (a
summary being generated in it delays the handler by seconds). The first stop signal
therefore arms a deadline: if the process is still alive `STOP_DEADLINE_S` later it leaves
with `os._exit`. The second signal leaves at once. `watch_signals` counts signals from a
thread that reads the interpreter's wakeup fd, which the C-level handler writes at once
whatever the main thread is doing; inside an asyncio run the loop owns that fd, and its
signal handler calls `stop_signal` (the loop stays responsive: models run in threads).

Both exits are safe for what is stored: the memory store and the graph are written in
transactions that survive a kill -9 (tests/test_memory_resume.py), so exiting mid-write
loses at most the caption in flight, which a resumed replay writes again.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any

STOP_DEADLINE_S = 4.5  # below the 5 s a service manager is promised, with room for the exit itself

_lock = threading.Lock()
_keep: list[Any] = []
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


def watch_signals() -> None:
    """Count SIGTERM and SIGINT as they arrive, even while the main thread is in C. Call once,
    from the main thread, after the Python-level handlers are installed."""
    import socket

    reader, writer = socket.socketpair()
    writer.setblocking(False)
    signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    stops = {int(signal.SIGTERM), int(signal.SIGINT)}

    def watch() -> None:
        while True:
            try:
                got = reader.recv(64)
            except OSError:
                return
            if not got:
                return
            for signum in got:
                if signum in stops:
                    stop_signal()

    threading.Thread(target=watch, name="stop-signals", daemon=True).start()
    _keep.extend((reader, writer))  # the sockets live as long as the process
