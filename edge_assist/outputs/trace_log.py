"""Every step's decision trace appended to `traces.jsonl`, for `edge-assist trace`.

The line format belongs to `edge_assist.outputs.trace_format`.
"""

from __future__ import annotations

from pathlib import Path

from edge_assist.events import Decision
from edge_assist.outputs.api import OutputSink
from edge_assist.outputs.jsonl_file import JsonlFile
from edge_assist.outputs.trace_format import trace_record


class TraceLog(OutputSink):
    name = "trace-log"

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = JsonlFile(path, "trace log", "general.data_dir")

    async def emit(self, decision: Decision) -> None:
        self._file.append(trace_record(decision))

    async def close(self) -> None:
        self._file.close()
