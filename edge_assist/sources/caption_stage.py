"""Stage: replays a caption stream as Caption events, each released when its clip ends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from edge_assist.clock import Clock
from edge_assist.events import Caption, StreamEnd
from edge_assist.sources.caption_stream import CaptionStream


class CaptionReplayStage:
    def __init__(
        self,
        clock: Clock,
        stream: CaptionStream,
        outbox: asyncio.Queue[Caption | StreamEnd],
        *,
        first_index: int = 0,
        on_progress: Callable[[float], None] | None = None,
    ) -> None:
        self.clock = clock
        self.stream = stream
        self.outbox = outbox
        self.first_index = first_index
        self.on_progress = on_progress
        self.captions = 0
        self.start_t = 0.0  # stream time this replay starts at (after what memory already holds)

    async def run(self) -> None:
        # Resume: clips already in memory (an earlier, interrupted replay) are not replayed,
        # and their stream time is not waited through either: the clock jumps to where
        # memory ends, so a --realtime resume paces only what is new.
        held = min(self.first_index, len(self.stream.captions))
        if held > 0:
            self.start_t = max(line.t1 for line in self.stream.captions[:held])
            self.clock.skip_to(self.start_t)
        for index, line in enumerate(self.stream.captions):
            if index < self.first_index:
                continue
            # A caption exists only once its clip has ended: release it at t1.
            await self.clock.sleep_until(line.t1)
            await self.outbox.put(
                Caption(
                    t=self.clock.now(),
                    session_id=self.stream.session_id,
                    index=index,
                    t0=line.t0,
                    t1=line.t1,
                    text=line.text,
                    source="replay",
                )
            )
            self.captions += 1
            if self.on_progress is not None:
                self.on_progress(line.t1)
        await self.outbox.put(StreamEnd(self.clock.now()))
