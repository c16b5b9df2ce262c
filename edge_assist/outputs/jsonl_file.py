"""An append-only JSONL file for logs: opened once, each line flushed as written.

A crash loses at most the line being written; `close()` fsyncs. Errors (a full disk, a
read-only folder) become one-line StoreErrors that name the file and the setting. The
writer holds a shared lock on the file for its lifetime, so `memory forget` (which
rewrites the logs, see `forget_logs`) never replaces a file under a running writer.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import IO, Any

from edge_assist.errors import StoreError


class JsonlFile:
    def __init__(self, path: Path, what: str, setting: str) -> None:
        self.path = path
        self.what = what
        self.lines = 0
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh: IO[str] | None = self._open_locked(path)
        except OSError as e:
            raise StoreError(
                f"cannot write the {what} {path}: {e.strerror}; check {setting} and the disk"
            ) from None

    @staticmethod
    def _open_locked(path: Path) -> IO[str]:
        while True:
            fh = path.open("a", encoding="utf-8")
            fcntl.flock(fh.fileno(), fcntl.LOCK_SH)  # waits while a forget rewrites the file
            try:
                same = os.fstat(fh.fileno()).st_ino == os.stat(path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fh
            fh.close()  # the file was replaced while we waited: append to the new one

    def append(self, record: dict[str, Any]) -> None:
        if self._fh is None:
            return
        try:
            self._fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            self._fh.flush()
        except OSError as e:
            raise StoreError(
                f"cannot append to the {self.what} {self.path}: {e.strerror}; free disk space"
            ) from None
        self.lines += 1

    def close(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None
