"""The C heap of a process that runs for months: few malloc arenas, freed pages returned.

glibc gives threads that contend for the heap arenas of their own, up to 8 per core, and
keeps what is freed inside each. edge-assist's threads (the event loop's worker threads for
SQLite, Kùzu and the encoders, onnxruntime's and llama.cpp's pools) each leave some behind,
so resident memory crept up for days: in a 24-hour soak (`benchmarks.soak --days 3 --hours 8`)
RSS rose 315 -> 329 MB with glibc's default and 298 -> 303 MB with two arenas. The same
setting is the environment's MALLOC_ARENA_MAX; an explicit one in the environment wins.

glibc also raises its mmap threshold each time a large block is freed, so later blocks of
that size come from the heap and stay there: every rebuild of the text index (its batches
of vectors and sqlite-vec's chunk blobs, hundreds of KB each) left the heap higher, 154 ->
178 MB over three rebuilds of the week's soak store. A fixed threshold (256 KiB, the
environment's MALLOC_MMAP_THRESHOLD_) keeps large blocks in mmap, given back when freed:
153 -> 164 MB over the same three, search time unchanged (1.24 ms a question either way).
Elsewhere than glibc these functions do nothing.
"""

from __future__ import annotations

import ctypes
import os

M_ARENA_MAX = -8  # glibc's mallopt parameter numbers
M_MMAP_THRESHOLD = -3
ARENAS = 2
MMAP_THRESHOLD = 256 * 1024


def tune() -> None:
    """What `edge-assist` sets at start, before threads: `limit_arenas` and `fix_mmap_threshold`."""
    limit_arenas()
    fix_mmap_threshold()


def limit_arenas(n: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas (call before threads start); True if it was set here."""
    return _mallopt("MALLOC_ARENA_MAX", M_ARENA_MAX, n)


def fix_mmap_threshold(n: int = MMAP_THRESHOLD) -> bool:
    """Serve blocks of `n` bytes and more from mmap, always; True if it was set here."""
    return _mallopt("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, n)


def _mallopt(env: str, param: int, value: int) -> bool:
    """glibc's mallopt, unless the environment already sets the same tunable (it wins)."""
    if env in os.environ:
        return False
    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(param, int(value)))
    except (OSError, AttributeError):
        return False


def release_freed() -> None:
    """Return freed heap pages to the OS (after a burst of large temporary allocations)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
