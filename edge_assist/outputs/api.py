"""The one interface every output implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from edge_assist.events import Decision


class OutputSink(ABC):
    """An output of decisions. `emit` is each output's own; the others do nothing unless an
    output has something to do there, so the pipeline calls them on every output alike."""

    name: str

    @abstractmethod
    async def emit(self, decision: Decision) -> None:
        """Deliver one decision. Must return quickly: long work (speech) runs in the sink's own task."""

    def write_record(self, record: dict[str, Any]) -> None:
        """Keep a record that is not a decision (run statistics): logs write it, others ignore it."""
        return None

    async def drain(self) -> None:
        """Deliver what is still held, when a run ends by itself; each output bounds its own wait."""
        return None

    async def close(self) -> None:
        """Flush and release; called once at shutdown, within the shutdown deadline."""
        return None
