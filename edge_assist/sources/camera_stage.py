"""Stage: reads a FrameSource off the event loop and feeds the segmenter.

Live cameras never wait for us: when the segmenter's queue is full the newest frame is
dropped and counted. Files are paced on the clock (real time, or virtual time as fast as
possible) and, on virtual time, nothing is dropped, so replays are repeatable.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from edge_assist.clock import Clock, VirtualClock
from edge_assist.events import Frame, StreamEnd
from edge_assist.queues import DroppingQueue
from edge_assist.sources.base import FrameSource


class CameraStage:
    def __init__(
        self,
        clock: Clock,
        source: FrameSource,
        outbox: DroppingQueue[Frame | StreamEnd],
        *,
        pace: bool,
        on_progress: Callable[[float], None] | None = None,
    ) -> None:
        self.clock = clock
        self.source = source
        self.outbox = outbox
        self.pace = pace
        self.on_progress = on_progress
        self.frames = 0
        self._lossless = isinstance(clock, VirtualClock) and not source.live

    async def run(self) -> None:
        await self.clock.run_blocking(self.source.open)
        try:
            while True:
                raw = await self.clock.run_blocking(self.source.read)
                if raw is None:
                    break
                if self.pace:
                    await self.clock.sleep_until(raw.stream_t)
                frame = Frame(t=self.clock.now(), index=self.frames, stream_t=raw.stream_t, image=raw.image)
                self.frames += 1
                if self._lossless:
                    # Virtual-time replay: wait for room instead of dropping, for repeatable runs.
                    await self.outbox.wait_for_room()
                self.outbox.put_nowait(frame)
                if self.on_progress is not None:
                    self.on_progress(raw.stream_t)
            self.outbox.put_nowait(StreamEnd(self.clock.now()), force=True)
        finally:
            with contextlib.suppress(Exception):
                self.source.close()
