"""The captioner interface and the stage that turns clips into captions.

A `Captioner` is a plain synchronous object (a VLM behind it); `CaptionerStage` runs it
off the event loop, measures the real latency of every clip and, when the captioner
cannot keep up with the stream, skips the oldest waiting clip and counts it.
"""

from __future__ import annotations

from typing import Protocol

from edge_assist.events import Clip


class Captioner(Protocol):
    name: str

    def caption(self, clip: Clip) -> str:
        """Describe the clip from its keyframes. Blocking; called from a worker thread."""
        ...
