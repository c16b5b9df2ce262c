"""Every step's decision trace appended to `traces.jsonl`, for `edge-assist trace`.

The line format belongs to `edge_assist.reasoning.trace`; this sink keeps the file open
for the run and flushes each line, so a crash loses at most the line being written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO

from edge_assist.errors import StoreError
from edge_assist.events import Decision
from edge_assist.reasoning.trace import trace_record


class TraceLog:
    name = "trace-log"

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh: IO[str] | None = path.open("a", encoding="utf-8")
        except OSError as e:
            raise StoreError(f"cannot write the trace log {path}: {e.strerror}; check general.data_dir and the disk") from None

    async def emit(self, decision: Decision) -> None:
        if self._fh is None:
            return
        try:
            self._fh.write(json.dumps(trace_record(decision), ensure_ascii=False, default=str) + "\n")
            self._fh.flush()
        except OSError as e:
            raise StoreError(f"cannot append to the trace log {self.path}: {e.strerror}; free disk space") from None

    async def close(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None
