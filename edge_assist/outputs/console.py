"""Decisions on the console, one readable line each."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TextIO

from edge_assist.events import Decision
from edge_assist.outputs.api import OutputSink


def clock_text(seconds: float) -> str:
    s = int(max(0.0, seconds))
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def format_decision(d: Decision) -> str:
    when = clock_text(d.stream_t1)
    if d.speak:
        if d.trigger == "query" or d.sub_type is None:
            return f"[{when}] ANSWER: {d.text}"
        return f"[{when}] SPEAK {d.sub_type.label} ({d.sub_type.value}): {d.text}"
    if d.suppressed_by:
        return f"[{when}] held back ({d.suppressed_by}): {d.text}"
    return f"[{when}] silent" + (f" ({d.reason})" if d.reason else "")


class ConsoleOutput(OutputSink):
    name = "console"

    def __init__(self, *, show_silent: bool = False, stream: TextIO | None = None) -> None:
        self.show_silent = show_silent
        self.stream = stream or sys.stdout
        # Set by the app so lines do not tear the progress bar.
        self.write_hook: Callable[[str], None] | None = None

    async def emit(self, decision: Decision) -> None:
        if not (decision.speak or decision.suppressed_by or self.show_silent):
            return
        line = format_decision(decision)
        if self.write_hook is not None:
            self.write_hook(line)
        else:
            print(line, file=self.stream, flush=True)

    async def close(self) -> None:
        self.stream.flush()
