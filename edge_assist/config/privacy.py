"""Private at rest: what the wearer's glasses saw is readable by the wearer only.

The data folder holds captions of a person's day, keyframes, an entity graph and the
pairing key. Every edge-assist command therefore runs with umask 077 (files 0600,
folders 0700), as ssh and gpg do, and the stores create their folders 0700 even when
used as a library. `doctor` reports anything in the data folder that others can read
(a folder made by hand, files copied in), with the command that fixes it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_UMASK = 0o077
DIR_MODE = 0o700
FILE_MODE = 0o600


def make_private_process() -> None:
    """Files and folders this process creates from now on are its user's only."""
    os.umask(PRIVATE_UMASK)


def make_private_dir(path: Path) -> None:
    """Create `path` (and missing parents) 0700; an existing folder keeps its mode (the
    wearer chose it: `doctor` says when it is open to others)."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)


def make_private_file(path: Path) -> None:
    """0600 for a file this process has just created."""
    os.chmod(path, FILE_MODE)


def readable_by_others(root: Path, *, limit: int = 10_000) -> list[Path]:
    """Paths under `root` (itself included) that group or others may read or enter.
    Stops after `limit` entries: a doctor run stays fast on a year of keyframes."""
    if not root.exists():
        return []
    found: list[Path] = []
    seen = 0
    for here, dirs, files in os.walk(root):
        for p in [Path(here)] + [Path(here) / f for f in files]:
            seen += 1
            try:
                mode = p.lstat().st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                continue
            if mode & (stat.S_IRWXG | stat.S_IRWXO):
                found.append(p)
        dirs.sort()
        if seen >= limit:
            break
    return found
