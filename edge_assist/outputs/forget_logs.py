"""Forget in the logs too: remove from the decision log and the traces every line that
tells something the memory forgot.

A line goes when it belongs to a forgotten clip (its own session and clip index) or to a
session forgotten whole (its statistics too), when it
cites one (a `[session, clip index, ...]` reference anywhere in it, as retrieval and
reconstruction traces do), or when any of its strings quotes a forgotten caption or
summary verbatim. Like a summary that covered a forgotten clip, a trace built on one
still tells it.

Each file is rewritten crash-safe: the kept lines go to a temporary file beside it, which
is fsynced and renamed over the original, so a kill leaves either the old file or the new
one, never a mix, and no kept line is ever lost. A running edge-assist holds a shared lock
on the logs it appends to (`JsonlFile`); the rewrite needs the exclusive lock and refuses,
before anything is deleted, while one runs.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from edge_assist.errors import StoreError

# Shorter texts ("stir", "ok") would match inside unrelated words: they must be a whole string.
_MIN_SUBSTRING_CHARS = 12


@dataclass(frozen=True)
class Forgotten:
    """What was forgotten: (session id, clip index) pairs and the texts (captions, summaries)."""

    clips: frozenset[tuple[str, int]] = frozenset()
    texts: tuple[str, ...] = ()
    sessions: frozenset[str] = frozenset()  # sessions forgotten whole: even their statistics go
    _index: dict[tuple[str, ...], list[str]] = field(default_factory=dict, compare=False, repr=False)
    _loose: list[str] = field(default_factory=list, compare=False, repr=False)
    _whole: set[str] = field(default_factory=set, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Index each text by a run of its inner words (spaces on both sides inside the text,
        # so they are whole words wherever it is quoted), so a log line is checked against
        # the few texts that share words with it, not against every forgotten text.
        for raw in self.texts:
            text = " ".join(raw.split())
            words = text.split(" ")
            if len(words) >= 3:
                k = min(3, len(words) - 2)
                self._index.setdefault(tuple(words[1 : 1 + k]), []).append(text)
            elif len(text) >= _MIN_SUBSTRING_CHARS:
                self._loose.append(text)
            elif text:
                self._whole.add(text)

    def __bool__(self) -> bool:
        return bool(self.clips or self.texts or self.sessions)

    def quoted_in(self, s: str) -> bool:
        if s.strip() in self._whole or any(t in s for t in self._loose):
            return True
        if not self._index:
            return False
        words = s.split()
        flat = " ".join(words)
        for k in {len(key) for key in self._index}:
            for i in range(len(words) - k + 1):
                for text in self._index.get(tuple(words[i : i + k]), ()):
                    if text in flat:
                        return True
        return False

    def mentioned_in(self, record: object) -> bool:
        """True if this JSON record belongs to, cites or quotes anything forgotten."""
        for node in _walk(record):
            if isinstance(node, str):
                if self.quoted_in(node):
                    return True
            elif isinstance(node, dict):
                sid, idx = node.get("session_id"), node.get("clip_index")
                if sid in self.sessions or (
                    isinstance(sid, str) and isinstance(idx, int) and (sid, idx) in self.clips
                ):
                    return True
            elif (
                isinstance(node, list)
                and len(node) >= 2
                and isinstance(node[0], str)
                and isinstance(node[1], int)
                and not isinstance(node[1], bool)
                and (node[0], node[1]) in self.clips
            ):
                return True
        return False


def _walk(value: object) -> Iterator[object]:
    stack = [value]
    while stack:
        v = stack.pop()
        yield v
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _mentions(line: bytes, forgotten: Forgotten) -> bool:
    text = line.decode("utf-8", "replace")
    try:
        record = json.loads(text)
    except ValueError:
        # A damaged line (a kill mid-write) is kept unless it quotes something forgotten.
        return forgotten.quoted_in(text)
    return forgotten.mentioned_in(record)


def busy_error(path: Path) -> StoreError:
    return StoreError(
        f"{path} is being written by a running edge-assist; stop it, then run "
        "`edge-assist memory forget` again (nothing was deleted)"
    )


def scrub_jsonl(path: Path, forgotten: Forgotten) -> tuple[int, int]:
    """Rewrite `path` without the lines that mention what was forgotten: (kept, removed)."""
    if not forgotten or not path.exists():
        return 0, 0
    tmp = path.with_name(path.name + ".forget-tmp")
    kept = removed = 0
    try:
        with open(path, "rb") as src:
            try:
                fcntl.flock(src.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise busy_error(path) from None
            with open(tmp, "wb") as out:
                for line in src:
                    if line.strip() and _mentions(line, forgotten):
                        removed += 1
                        continue
                    out.write(line)
                    kept += 1
                out.flush()
                os.fsync(out.fileno())
            if removed:
                shutil.copymode(path, tmp)
                # Renamed while we still hold the lock on the old file: an appender that was
                # waiting for it sees the new file when it checks (JsonlFile reopens).
                os.replace(tmp, path)
                _fsync_dir(path.parent)
    except OSError as e:
        raise StoreError(
            f"cannot rewrite {path} without the forgotten lines: {e.strerror}; it was left as it was "
            "(free disk space, then forget again)"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)
    return kept, removed


def check_not_busy(paths: Iterable[Path]) -> None:
    """Refuse before anything is deleted if a running edge-assist is appending to a log."""
    for p in paths:
        if not p.exists():
            continue
        with open(p, "rb") as fh:
            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise busy_error(p) from None


def _fsync_dir(d: Path) -> None:
    fd = os.open(d, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
