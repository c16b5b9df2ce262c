"""`MemoryWriter`: the background stage that writes captions into memory.

It reads `Caption` events from one bounded queue (the producer waits when it is full,
so nothing is lost to a slow roll-up) and runs the synchronous `Memory.ingest` in a
worker thread through the clock, so the event loop and the decision path never wait for
an embedding, an entity extraction or a roll-up. `StreamEnd` flushes the last, partial
windows and ends the stage.

The LLM is shared with the reasoner under one lock; a background generation can be
pre-empted with `preempt()` (the scheduler calls it when the reasoner needs the model):
the generation stops at the next token, and the same caption is retried later, which
is safe because ingest is idempotent.
"""

from __future__ import annotations

import asyncio
import logging
import time

from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.events import Caption, StreamEnd
from edge_assist.inference.base import GenerationCancelled, StopFlag
from edge_assist.memory.heap import release_freed
from edge_assist.memory.memory import IngestResult, Memory
from edge_assist.memory.store import BadCaptionError

log = logging.getLogger(__name__)

# After a pre-emption, let the reasoner take the model before the writer asks again.
PREEMPT_BACKOFF_S = 0.2
# Keyframe retention is enforced this often while running (captions); freed heap is returned too.
SWEEP_EVERY = 360
# One idle-time piece of text-index work (training, backfill); a caption waits at most this long.
INDEX_STEP_S = 0.5


class MemoryWriter:
    def __init__(self, memory: Memory, clock: Clock, cfg: Config) -> None:
        self.memory = memory
        self.clock = clock
        self.cfg = cfg
        self.written = 0  # captions newly stored
        self.duplicates = 0  # captions already in memory (a replay resumed over stored clips)
        self.dropped = 0  # captions refused as invalid
        self.summaries = 0
        self.preemptions = 0
        self.busy_s = 0.0  # compute time spent ingesting (perf_counter, not the injected clock)
        self._stop = StopFlag()

    def preempt(self) -> None:
        """Stop the background LLM generation in flight, if any (called from the loop or any thread)."""
        self._stop.set()

    def ingest(self, caption: Caption) -> IngestResult:
        """The synchronous path, for offline tools: the same work `run` does per caption."""
        return self.memory.ingest(caption)

    async def _blocking(self, fn: object, *args: object) -> object:
        # Retry what a pre-emption stopped; every step is idempotent, so retrying is safe.
        while True:
            try:
                return await self.clock.run_blocking(fn, *args)  # type: ignore[arg-type]
            except GenerationCancelled:
                self.preemptions += 1
                self._stop.clear()
                await self.clock.sleep(PREEMPT_BACKOFF_S)

    async def run(self, inbox: asyncio.Queue[Caption | StreamEnd]) -> None:
        """Consume the queue until `StreamEnd`. A `StoreError` (full disk) ends the stage: ingest stops."""
        await self._blocking(self.memory.catch_up, self._stop)
        index_pending = bool(await self._blocking(self.memory.index_pending))
        while True:
            # Idle: build or re-balance the text index in short steps, stopping when a caption arrives.
            while index_pending and inbox.empty():
                index_pending = bool(await self._blocking(self.memory.maintain_index, INDEX_STEP_S))
            event = await inbox.get()
            try:
                if isinstance(event, StreamEnd):
                    flushed = await self._blocking(self.memory.flush, None, self._stop)
                    self.summaries += len(flushed)  # type: ignore[arg-type]
                    return
                if not isinstance(event, Caption):
                    log.warning("memory writer ignored a %s", type(event).__name__)
                    continue
                t = time.perf_counter()
                try:
                    res = await self._blocking(self.memory.ingest, event, self._stop)
                except BadCaptionError as e:
                    self.dropped += 1
                    log.warning("memory writer dropped a caption: %s", e)
                    continue
                finally:
                    self.busy_s += time.perf_counter() - t
                assert isinstance(res, IngestResult)
                if res.stored:
                    self.written += 1
                else:
                    self.duplicates += 1
                self.summaries += len(res.summaries)
                index_pending = res.index_pending
                if (self.written + 1) % SWEEP_EVERY == 0:
                    await self._blocking(self.memory.sweep_keyframes)
                    # An hour of ingest leaves freed pages in glibc's heaps that RSS keeps counting
                    # (28-50 MB on the week's store); malloc_trim gives them back in about 1 ms.
                    await self._blocking(release_freed)
            finally:
                inbox.task_done()
