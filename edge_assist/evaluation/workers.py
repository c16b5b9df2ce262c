"""Worker processes for the evaluation commands, which end with their parent.

A spawned worker outlives a parent that is terminated or killed unless told otherwise, and
keeps a core busy replaying a recording no one will read. Each worker therefore asks the
kernel for SIGTERM when its parent dies (Linux `PR_SET_PDEATHSIG`), and a watcher thread
that polls its parent id covers the platforms without it. The parent, when it is stopped
(SIGTERM, Ctrl-C or an error), cancels what is queued and terminates the workers at once
instead of waiting for the recordings in flight.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
# How often a worker without prctl looks for its parent, and how long a worker whose parent
# is gone may take to end cleanly (a replay stops at its next caption) before it is cut off.
PARENT_POLL_S = 0.5
ORPHAN_GRACE_S = 2.0
# How long a terminated worker may take to unwind its task before it ends.
UNWIND_S = 1.0
# How long a stopped parent waits for a terminated worker before it kills it.
TERMINATE_WAIT_S = 3.0


def end_with_parent(parent_pid: int) -> None:
    """Worker initializer: stop on SIGTERM or SIGINT (the pool's parent may have caught them), and
    end with the parent."""
    signal.signal(signal.SIGTERM, _unwind)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    kernel_signals = _ask_kernel_for_sigterm()
    if os.getppid() != parent_pid:  # the parent died before the request above was in place
        os._exit(1)
    # Every temporary directory of this worker (a recording's memory) lives in one, removed on
    # every way out, a cut-off unwinding included: an ended worker leaves no memory behind.
    _temp_root.append(tempfile.mkdtemp(prefix=f"edge-assist-worker-{os.getpid()}-"))
    tempfile.tempdir = _temp_root[0]
    atexit.register(_remove_temp_root)
    watch = threading.Thread(
        target=_watch_parent, args=(parent_pid, not kernel_signals), name="parent-watch", daemon=True
    )
    watch.start()


def _unwind(signum: int, frame: object) -> None:
    """SIGTERM ends a worker as Ctrl-C would: by unwinding, so that the temporary memory
    directory of the recording in flight is removed, and ends it once the unwinding had its
    time (the pool would hand it its next task). Further SIGTERMs are ignored: the kernel sends
    one per exiting thread of a dying parent, and would cut the unwinding short."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.Timer(UNWIND_S, _exit_now, (128 + signum,)).start()
    raise SystemExit(128 + signum)


def _ask_kernel_for_sigterm() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int, signal_self: bool) -> None:
    """Ends this worker once its parent is gone, whatever its main thread is doing.

    Where the kernel already sent SIGTERM a second one would cut the unwinding short.
    """
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_S)
    if signal_self:
        with contextlib.suppress(OSError):
            os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(ORPHAN_GRACE_S)
    _exit_now(1)


_temp_root: list[str] = []  # this worker's temporary directory, once it has one


def _remove_temp_root() -> None:
    for d in _temp_root:
        shutil.rmtree(d, ignore_errors=True)


def _exit_now(code: int) -> None:
    _remove_temp_root()
    os._exit(code)


@contextlib.contextmanager
def worker_pool(jobs: int) -> Iterator[Executor | None]:
    """`jobs` worker processes (None for one job: the work runs in this process).

    On a normal exit the pool finishes its work; on any exception, KeyboardInterrupt and
    the SystemExit of a SIGTERM included, it is stopped without waiting.
    """
    if jobs <= 1:
        yield None
        return
    import multiprocessing

    # Spawned, not forked: the parent already runs onnxruntime and llama.cpp threads.
    pool = ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=end_with_parent,
        initargs=(os.getpid(),),
    )
    try:
        yield pool
    except BaseException:
        stop(pool)
        raise
    pool.shutdown(wait=True)


def stop(pool: ProcessPoolExecutor) -> None:
    """Cancel what is queued and end the workers now: SIGTERM, then SIGKILL if one lingers."""
    procs = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(OSError, ValueError):
            p.terminate()
    deadline = time.monotonic() + TERMINATE_WAIT_S
    for p in procs:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1.0)
