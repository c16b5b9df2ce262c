"""The captioner interface and the stage that turns clips into captions.

A `Captioner` is a plain synchronous object (a VLM behind it); `CaptionerStage` runs it
off the event loop, measures the real latency of every clip and, when the captioner
cannot keep up with the stream, skips the oldest waiting clip and counts it.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Protocol

from edge_assist.clock import Clock
from edge_assist.events import Caption, Clip, StreamEnd
from edge_assist.queues import DroppingQueue


class Captioner(Protocol):
    name: str

    def caption(self, clip: Clip) -> str:
        """Describe the clip from its keyframes. Blocking; called from a worker thread."""
        ...


class CaptionerStage:
    """Stage: clips in (a dropping queue: the oldest waiting clip is skipped), captions out."""

    def __init__(
        self,
        clock: Clock,
        captioner: Captioner,
        inbox: DroppingQueue[Clip | StreamEnd],
        outbox: asyncio.Queue[Caption | StreamEnd],
    ) -> None:
        self.clock = clock
        self.captioner = captioner
        self.inbox = inbox
        self.outbox = outbox
        self.captions = 0
        self.latencies_s: list[float] = []

    @property
    def skipped(self) -> int:
        return self.inbox.dropped

    async def run(self) -> None:
        while True:
            clip = await self.inbox.get()
            if isinstance(clip, StreamEnd):
                await self.outbox.put(clip)
                return
            started = time.perf_counter()
            if inspect.iscoroutinefunction(self.captioner.caption):
                # A remote or scripted captioner that waits on the clock rather than the CPU.
                text = await self.captioner.caption(clip)
            else:
                text = await self.clock.run_blocking(self.captioner.caption, clip)
            latency = time.perf_counter() - started
            self.latencies_s.append(latency)
            self.captions += 1
            await self.outbox.put(
                Caption(
                    t=self.clock.now(),
                    session_id=clip.session_id,
                    index=clip.index,
                    t0=clip.t0,
                    t1=clip.t1,
                    text=" ".join(text.split()),
                    source=self.captioner.name,
                    latency_s=latency,
                    image_count=len(clip.keyframes),
                    keyframes=clip.keyframes,
                )
            )
