"""heap.py: the arena cap is set in a fresh process (and an explicit MALLOC_ARENA_MAX wins)."""

from __future__ import annotations

import os
import subprocess
import sys

CODE = "from edge_assist.heap import limit_arenas, release_freed; print(limit_arenas()); release_freed()"


def _run(env: dict[str, str]) -> str:
    return subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True, check=True).stdout.strip()


def test_arenas_are_capped_unless_the_environment_says_otherwise() -> None:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    assert _run(env) == ("True" if sys.platform.startswith("linux") else "False")
    assert _run({**env, "MALLOC_ARENA_MAX": "4"}) == "False"
