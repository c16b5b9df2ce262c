"""heap.py: the arena cap is set in a fresh process (and an explicit MALLOC_ARENA_MAX wins)."""

from __future__ import annotations

import os
import subprocess
import sys

CODE = (
    "from edge_assist.memory.heap import limit_arenas, release_freed; print(limit_arenas()); release_freed()"
)


def _run(env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_arenas_are_capped_unless_the_environment_says_otherwise() -> None:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    assert _run(env) == ("True" if sys.platform.startswith("linux") else "False")
    assert _run({**env, "MALLOC_ARENA_MAX": "4"}) == "False"


MMAP = """
from edge_assist.memory.heap import fix_mmap_threshold
def rss():
    return int(next(l for l in open('/proc/self/status') if l.startswith('VmRSS:')).split()[1]) // 1024
print(fix_mmap_threshold())
big = bytes(4 << 20); del big  # glibc would raise its threshold to 4 MB here
blocks, pins = [], []
for _ in range(100):  # 30 MB in blocks above the fixed threshold, each followed by a live small one
    blocks.append(bytearray(300_000))
    pins.append(bytes(2000))
before = rss()
del blocks
print(before - rss())  # given back at once: they were mmapped, not carved from the heap
"""


def test_large_blocks_stay_in_mmap_and_go_back_when_freed() -> None:
    if not sys.platform.startswith("linux"):
        return
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_MMAP_THRESHOLD_"}
    out = subprocess.run(
        [sys.executable, "-c", MMAP], env=env, capture_output=True, text=True, check=True
    ).stdout
    was_set, returned = out.split()
    assert was_set == "True" and int(returned) >= 25


TRIM = """
from edge_assist.memory.heap import release_freed
def rss():
    return int(next(l for l in open('/proc/self/status') if l.startswith('VmRSS:')).split()[1]) // 1024
blocks = [bytes(2000) for _ in range(30000)]  # 60 MB in small blocks: the brk heap, not mmap
pin = bytes(2000)  # allocated last, at the heap's top: freeing the rest cannot shrink the heap from its end
del blocks
before = rss()
release_freed()
print(before - rss())
"""


def test_freed_heap_pages_are_given_back() -> None:
    if not sys.platform.startswith("linux"):
        return
    # The writer trims hourly and Memory.close trims: freed pages below a live block stay resident without it.
    out = subprocess.run([sys.executable, "-c", TRIM], capture_output=True, text=True, check=True).stdout
    assert int(out) >= 40
