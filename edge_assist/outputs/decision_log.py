"""The JSONL log of every decision: one line per step, flushed as it is written.

Each line is `Decision.to_json()`: time, silent/speak, service, text, latency, the
policy rule that suppressed it if any, and the measured sections of the step; an answer
also carries the wearer's question, and its time is when it was asked. Run statistics
are lines with `"type": "stats"`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from edge_assist.events import Decision
from edge_assist.outputs.api import OutputSink
from edge_assist.outputs.jsonl_file import JsonlFile


class DecisionLog(OutputSink):
    name = "decision-log"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = JsonlFile(path, "decision log", "output.decision_log")

    @property
    def lines(self) -> int:
        return self._file.lines

    def write_record(self, record: dict[str, Any]) -> None:
        self._file.append(record)

    async def emit(self, decision: Decision) -> None:
        self._file.append(decision.to_json())

    async def close(self) -> None:
        self._file.close()


def read_decision_log(path: Path) -> list[dict[str, Any]]:
    out = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                out.append(json.loads(line))
    return out
