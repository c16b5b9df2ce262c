"""Every benchmark's result JSON goes through `write`, which stamps it with what made it.

The stamp: the command as one would type it in the checkout, the commit (with "+changes" when
tracked files differ from it), the date (UTC), and the machine (host, CPUs, CPU model, Python,
and the load, since numbers from a loaded machine read differently). A result that carries one
of these keys itself keeps its own: a report written again from an older run says that run's.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import shlex
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STAMP_KEYS = ("command", "commit", "date", "machine")


def cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def machine() -> dict[str, Any]:
    return {
        "hostname": socket.gethostname(),
        "cpus": os.cpu_count(),
        "cpu_model": cpu_model(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_avg_1m": os.getloadavg()[0],
    }


def git_commit() -> str | None:
    """The checkout's commit, with "+changes" when tracked files differ from it; None outside git."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()

    try:
        head = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+changes" if dirty else "")


def in_checkout(args: list[str]) -> list[str]:
    """Arguments as one would type them in the checkout: paths inside it relative (where a run
    directory lies is the machine's business, not the result's)."""
    return [os.path.relpath(a, ROOT) if a.startswith(str(ROOT) + os.sep) else a for a in args]


def command_line(argv: list[str] | None = None) -> str:
    """This process's command as typed in the checkout: `python -m module args`."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    head = ["python", "-m", spec.name] if spec is not None else ["python", *in_checkout(sys.argv[:1])]
    return shlex.join([*head, *in_checkout(sys.argv[1:] if argv is None else argv)])


def stamp(command: str | None = None) -> dict[str, Any]:
    return {
        "command": command or command_line(),
        "commit": git_commit(),
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
    }


def write(path: str | Path, result: dict[str, Any], command: str | None = None, indent: int = 2) -> Path:
    """Write result as JSON at path, the stamp first; `command` when argv does not say it."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps({**stamp(command), **result}, indent=indent) + "\n", encoding="utf-8")
    return p
