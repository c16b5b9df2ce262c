"""Stage: reads a FrameSource off the event loop and feeds the segmenter.

Live cameras never wait for us: when the segmenter's queue is full the newest frame is
dropped and counted. Files are paced on the clock (real time, or virtual time as fast as
possible) and, on virtual time, nothing is dropped, so replays are repeatable.

A live camera that stops delivering (a loose cable, a USB reset, the glasses' camera
restarting) is closed and opened again, which waits up to `source.open_timeout_s` for it.
Each loss and each return is one log line; stream time keeps running through the gap (the
backend's own time restarts on reopen), so clips after it are not stamped over earlier
ones. A camera that does not come back ends the run with the backend's SourceError.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

from edge_assist.clock import Clock, VirtualClock
from edge_assist.errors import SourceError
from edge_assist.events import Frame, StreamEnd
from edge_assist.queues import DroppingQueue
from edge_assist.sources.base import FrameSource, RawFrame

log = logging.getLogger(__name__)
# A camera that fails again this soon after coming back is given up on (a dead device
# that opens but never delivers would otherwise loop forever).
MAX_RECONNECTS_IN_A_ROW = 5


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
        self.reconnects = 0
        self._lossless = isinstance(clock, VirtualClock) and not source.live
        self._offset_s = 0.0  # added to the backend's stream time after a reopen
        self._last_t = 0.0

    async def _read(self) -> RawFrame | None:
        failed_in_a_row = 0
        while True:
            try:
                raw = await self.clock.run_blocking(self.source.read)
            except SourceError as e:
                if (
                    not self.source.live
                    or not getattr(self.source, "reconnectable", True)
                    or failed_in_a_row >= MAX_RECONNECTS_IN_A_ROW
                ):
                    raise
                failed_in_a_row += 1
                lost_at = self.clock.now()
                log.warning("camera %s lost (%s); reconnecting", self.source.name, e)
                with contextlib.suppress(Exception):
                    self.source.close()
                await self.clock.run_blocking(
                    self.source.open
                )  # waits for it; SourceError if it never returns
                gap = self.clock.now() - lost_at
                self._offset_s = self._last_t + gap
                self.reconnects += 1
                log.warning("camera %s back after %.1f s; no frames for that time", self.source.name, gap)
                continue
            if raw is not None and self._offset_s:
                raw = RawFrame(raw.stream_t + self._offset_s, raw.image)
            if raw is not None:
                self._last_t = raw.stream_t
            return raw

    async def run(self) -> None:
        await self.clock.run_blocking(self.source.open)
        try:
            while True:
                raw = await self._read()
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
