"""The one interface every output implements."""

from __future__ import annotations

from typing import Protocol

from edge_assist.events import Decision


class OutputSink(Protocol):
    name: str

    async def emit(self, decision: Decision) -> None:
        """Deliver one decision. Must return quickly: long work (speech) runs in the sink's own task."""
        ...

    async def close(self) -> None:
        """Flush and release; called once at shutdown, within the shutdown deadline."""
        ...
