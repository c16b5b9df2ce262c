"""Stage: one step per caption (or per wearer question) through the Assistant.

Captions fan out to the memory writer first (its queue makes us wait only when it is
full) and then become a step: the current caption, the last few captions, the latest
activity summary and the task context go to the assistant; its decision goes to every
output. A wearer's question skips the line: it is served before the next caption.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable, Sequence

from edge_assist.clock import Clock
from edge_assist.events import Caption, Decision, StreamEnd, UserQuery
from edge_assist.memory.api import MemoryReader
from edge_assist.outputs.api import OutputSink
from edge_assist.reasoning.api import Assistant, SearchGate, StepContext

log = logging.getLogger(__name__)


class StepInbox:
    """Captions in order (bounded: the source waits) and questions ahead of them."""

    def __init__(self, maxsize: int) -> None:
        self._captions: asyncio.Queue[Caption | StreamEnd] = asyncio.Queue(maxsize)
        self._queries: collections.deque[UserQuery] = collections.deque()
        self._query_ready = asyncio.Event()

    async def put(self, item: Caption | StreamEnd) -> None:
        await self._captions.put(item)

    def put_query(self, query: UserQuery) -> None:
        self._queries.append(query)
        self._query_ready.set()

    def qsize(self) -> int:
        return self._captions.qsize() + len(self._queries)

    async def get(self) -> Caption | StreamEnd | UserQuery:
        while True:
            if self._queries:
                return self._queries.popleft()
            if not self._captions.empty():
                return self._captions.get_nowait()
            self._query_ready.clear()
            caption_task = asyncio.ensure_future(self._captions.get())
            query_task = asyncio.ensure_future(self._query_ready.wait())
            try:
                await asyncio.wait([caption_task, query_task], return_when=asyncio.FIRST_COMPLETED)
            finally:
                query_task.cancel()
                if not caption_task.done():
                    caption_task.cancel()
            if caption_task.done() and not caption_task.cancelled():
                item = caption_task.result()
                if self._queries:
                    # A question arrived at the same moment: serve it first, keep the caption.
                    self._requeue_front(item)
                    continue
                return item

    def _requeue_front(self, item: Caption | StreamEnd) -> None:
        # asyncio.Queue has no push-front; rebuild it (rare: only on a tie with a question).
        rest = [item]
        while not self._captions.empty():
            rest.append(self._captions.get_nowait())
        for x in rest:
            self._captions.put_nowait(x)


class ReasonerStage:
    def __init__(
        self,
        clock: Clock,
        assistant: Assistant,
        inbox: StepInbox,
        sinks: Sequence[OutputSink],
        *,
        memory_inbox: asyncio.Queue[Caption | StreamEnd] | None = None,
        memory: MemoryReader | None = None,
        recent_n: int = 4,
        task_context: str = "",
        gate: SearchGate | None = None,
        on_decision: Callable[[Decision], None] | None = None,
    ) -> None:
        self.clock = clock
        self.assistant = assistant
        self.inbox = inbox
        self.sinks = list(sinks)
        self.memory_inbox = memory_inbox
        self.memory = memory
        self.task_context = task_context
        self.gate = gate
        self.on_decision = on_decision
        self._recent: collections.deque[Caption] = collections.deque(maxlen=max(recent_n, 0) or 1)
        self._recent_n = recent_n
        self._last: Caption | None = None
        self.steps = 0
        self.step_latencies_s: list[float] = []

    def _context(self, caption: Caption, query: UserQuery | None = None) -> StepContext:
        recent = tuple(self._recent)[-self._recent_n :] if self._recent_n else ()
        recent = tuple(c for c in recent if c is not caption)
        summary = ""
        if self.memory is not None:
            try:
                hit = self.memory.latest_summary(caption.session_id, "activity", before_t=caption.t1)
            except Exception as e:  # a read failure must not stop the assistant
                log.warning("cannot read the latest activity summary: %s", e)
                hit = None
            summary = hit.text if hit is not None else ""
        return StepContext(
            session_id=caption.session_id,
            caption=caption,
            recent=recent,
            activity_summary=summary,
            task_context=self.task_context,
            query=query,
        )

    async def _deliver(self, decision: Decision) -> None:
        if self.on_decision is not None:
            self.on_decision(decision)
        for sink in self.sinks:
            await sink.emit(decision)

    async def _step(self, ctx: StepContext) -> None:
        started = time.perf_counter()
        decision = await self.assistant.step(ctx, self.gate)
        self.step_latencies_s.append(time.perf_counter() - started)
        self.steps += 1
        await self._deliver(decision)

    async def run(self) -> None:
        while True:
            item = await self.inbox.get()
            if isinstance(item, StreamEnd):
                if self.memory_inbox is not None:
                    await self.memory_inbox.put(item)
                return
            if isinstance(item, UserQuery):
                caption = self._last or Caption(
                    t=self.clock.now(), session_id="live", index=-1, t0=0.0, t1=item.stream_t or 0.0, text="(nothing seen yet)"
                )
                await self._step(self._context(caption, item))
                continue
            if self.memory_inbox is not None:
                await self.memory_inbox.put(item)
            ctx = self._context(item)
            self._recent.append(item)
            self._last = item
            await self._step(ctx)
