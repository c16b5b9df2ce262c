"""The JSONL log of every decision: one line per step, flushed as it is written.

Each line is `Decision.to_json()`: time, silent/speak, service, text, latency, the
policy rule that suppressed it if any, and the measured sections of the step. A crash
loses at most the line being written; `close()` fsyncs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from edge_assist.errors import StoreError
from edge_assist.events import Decision


class DecisionLog:
    name = "decision-log"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = 0
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fh: IO[str] | None = path.open("a", encoding="utf-8")
        except OSError as e:
            raise StoreError(f"cannot write the decision log {path}: {e.strerror}; check output.decision_log and the disk") from None

    def write_record(self, record: dict[str, Any]) -> None:
        if self._fh is None:
            return
        try:
            self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._fh.flush()
        except OSError as e:
            raise StoreError(f"cannot append to the decision log {self.path}: {e.strerror}; free disk space") from None
        self.lines += 1

    async def emit(self, decision: Decision) -> None:
        self.write_record(decision.to_json())

    async def close(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None


def read_decision_log(path: Path) -> list[dict[str, Any]]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                out.append(json.loads(line))
    return out
