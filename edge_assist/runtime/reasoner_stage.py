"""Stage: one step per caption (or per wearer question) through the Assistant.

Captions fan out to the memory writer first (its queue makes us wait only when it is
full) and then become a step. With `memory_lockstep` (replay on a virtual clock) the step
waits until the writer has ingested its caption (stored it, updated the graph, written
every roll-up whose window the stream has now passed) and no earlier step is still
reading memory: memory changes only at fixed points of stream time, so two replays of
one recording send the same model requests and reach the same decisions. Live, memory is
written in the background and a step reads whatever is there (never anything after t).
In a step the current caption, the last few captions, the latest activity summary and
the task context go to the assistant; its decision goes to every output. A wearer's
question skips the line: it is served before the next caption.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import logging
import time
from collections.abc import Callable, Sequence

from edge_assist.clock import Clock, VirtualClock
from edge_assist.events import Caption, Decision, StreamEnd, UserQuery
from edge_assist.memory.api import MemoryReader
from edge_assist.outputs.api import OutputSink
from edge_assist.reasoning.api import Assistant, SearchGate, StepContext
from edge_assist.retrieval.api import SearchPlan
from edge_assist.runtime.budgets import CURRENT_STEP
from edge_assist.runtime.lanes import LANE, Lane, SearchPreempted
from edge_assist.runtime.scheduler import GrantedGate, Scheduler
from edge_assist.text.bounds import cut_text

log = logging.getLogger(__name__)


class StepInbox:
    """Captions in order (bounded: the source waits) and questions ahead of them."""

    def __init__(self, maxsize: int, *, question_chars: int = 0) -> None:
        self._question_chars = question_chars  # 0: no bound
        self._captions: asyncio.Queue[Caption | StreamEnd] = asyncio.Queue(maxsize)
        self._queries: collections.deque[UserQuery] = collections.deque()
        self._query_ready = asyncio.Event()

    async def put(self, item: Caption | StreamEnd) -> None:
        await self._captions.put(item)

    def put_query(self, query: UserQuery) -> None:
        limit = self._question_chars
        if limit and len(query.text) > limit:
            log.warning(
                "a %s question of %d characters was cut to limits.question_chars = %d",
                query.source,
                len(query.text),
                limit,
            )
            query = dataclasses.replace(query, text=cut_text(query.text, limit))
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
    """Runs steps through the assistant, under the scheduler when one is given.

    With a scheduler, steps may overlap: a step whose search is still running when the
    next caption arrives keeps going in the SEARCH lane while the new step's first pass
    takes the CPU (INSTANT lane), so a Safety alert is never queued behind a search. At
    most `MAX_STEPS_IN_FLIGHT` steps run at once; beyond that the source waits (and a
    live captioner skips clips, counted). A search the scheduler deferred, or one that
    was preempted, is re-run in the next idle slot.
    """

    MAX_STEPS_IN_FLIGHT = 2

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
        task: str = "",
        gate: SearchGate | None = None,
        scheduler: Scheduler | None = None,
        on_decision: Callable[[Decision], None] | None = None,
        memory_lockstep: bool = False,
    ) -> None:
        self.clock = clock
        self.assistant = assistant
        self.inbox = inbox
        self.sinks = list(sinks)
        self.memory_inbox = memory_inbox
        self.memory = memory
        self.task_context = task_context
        self.task = task
        self.scheduler = scheduler
        self.gate = gate if gate is not None else scheduler
        self.on_decision = on_decision
        self.memory_lockstep = memory_lockstep
        self._recent: collections.deque[Caption] = collections.deque(maxlen=max(recent_n, 1))
        self._recent_n = recent_n
        self._last: Caption | None = None
        self._in_flight: set[asyncio.Task[None]] = set()
        self._failed: list[BaseException] = []  # steps that raised, re-raised by the next _reap
        self._seq = 0
        self.steps = 0
        self.step_latencies_s: list[float] = []

    async def _context(self, caption: Caption, query: UserQuery | None = None) -> StepContext:
        recent = tuple(self._recent)[-self._recent_n :] if self._recent_n else ()
        summary = ""
        memory = self.memory
        if memory is not None:
            try:
                # A read under the store's lock: in a worker thread, as every other memory read.
                hit = await self.clock.run_blocking(
                    lambda: memory.latest_summary(caption.session_id, "activity", before_t=caption.t1)
                )
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
            task=self.task,
            query=query,
        )

    async def _deliver(self, decision: Decision) -> None:
        if self.on_decision is not None:
            self.on_decision(decision)
        for sink in self.sinks:
            await sink.emit(decision)

    async def _step(self, ctx: StepContext, *, deferred: bool = False) -> None:
        started = time.perf_counter()
        sched = self.scheduler
        if sched is None:
            decision = await self.assistant.step(ctx, self.gate)
        else:
            budget = sched.new_step(ctx, caption_latency_s=0.0 if deferred else ctx.caption.latency_s)
            CURRENT_STEP.set(budget)
            LANE.set(Lane.INSTANT)
            gate: SearchGate = (
                GrantedGate(SearchPlan(paths=sched.paths, top_k=sched.cfg.retrieval.top_k))
                if deferred
                else sched
            )
            sched.arbiter.step_started()
            try:
                decision = await self.assistant.step(ctx, gate)
            except SearchPreempted as e:
                # Overtaken by a newer clip or a question: try again when the CPU is idle.
                sched.counters["preempted_steps"] += 1
                sched.defer(ctx)
                decision = self._silent(ctx, f"search preempted ({e}); deferred to the next idle slot")
            finally:
                sched.arbiter.step_finished()
            if budget.plan_note and "plan" not in decision.trace:
                decision.trace["plan"] = budget.plan_note
            if deferred:
                sched.counters["deferred_run"] += 1
            sched.step_done(budget, decision.timings_s)
            if budget.deferred and not deferred:
                sched.defer(ctx)
        self.step_latencies_s.append(time.perf_counter() - started)
        self.steps += 1
        await self._deliver(decision)

    def _silent(self, ctx: StepContext, reason: str) -> Decision:
        c = ctx.caption
        return Decision(
            t=self.clock.now(),
            session_id=c.session_id,
            clip_index=c.index,
            stream_t0=c.t0,
            stream_t1=c.t1,
            speak=False,
            reason=reason,
            trigger="query" if ctx.query else "proactive",
            question=ctx.query.text if ctx.query else "",
        )

    def _launch(self, ctx: StepContext, *, deferred: bool = False) -> None:
        self._seq += 1
        step = self._step(ctx, deferred=deferred)
        if self.memory_lockstep and isinstance(self.clock, VirtualClock):
            # A step takes no stream time in replay (its cost is latency_s): stream time stays
            # still until its decision is out, so no await inside it that is not a model call
            # (a lock, a sink) lets the next caption in first and moves its timestamp.
            step = self.clock.wait_busy(step)
        task = asyncio.create_task(step, name=f"step-{self._seq}")
        self._in_flight.add(task)
        task.add_done_callback(self._step_done)

    def _step_done(self, task: asyncio.Task[None]) -> None:
        self._in_flight.discard(task)
        # Collected here, not only in _reap: a step may end while nobody waits on it.
        if not task.cancelled() and task.exception() is not None:
            self._failed.append(task.exception())  # type: ignore[arg-type]

    async def _reap(self, *, below: int) -> None:
        """Wait until fewer than `below` steps are in flight; re-raise a step's failure."""
        while True:
            if self._failed:
                raise self._failed.pop(0)
            if len(self._in_flight) < below:
                return
            await asyncio.wait(set(self._in_flight), return_when=asyncio.FIRST_COMPLETED)

    async def _run_deferred_when_idle(self) -> None:
        while (
            self.scheduler is not None
            and self.scheduler.deferred
            and not self._in_flight
            and self.inbox.qsize() == 0
        ):
            ctx = self.scheduler.deferred.popleft()
            self._launch(ctx, deferred=True)
            await self._reap(below=1)

    async def run(self) -> None:
        try:
            while True:
                await self._run_deferred_when_idle()
                item = await self.inbox.get()
                if isinstance(item, StreamEnd):
                    await self._reap(below=1)
                    # The end of a replay is the last idle slot: run what was deferred.
                    await self._run_deferred_when_idle()
                    if self.memory_inbox is not None:
                        await self.memory_inbox.put(item)
                    return
                limit = self.MAX_STEPS_IN_FLIGHT if self.scheduler is not None else 1
                await self._reap(below=limit)
                if isinstance(item, UserQuery):
                    caption = self._last or Caption(
                        t=self.clock.now(),
                        session_id="live",
                        index=-1,
                        t0=0.0,
                        t1=item.stream_t or 0.0,
                        text="(nothing seen yet)",
                    )
                    self._launch(await self._context(caption, item))
                    continue
                if self.memory_inbox is not None:
                    if self.memory_lockstep:
                        # Nothing may read memory while it changes, and the step sees it settled.
                        await self._reap(below=1)
                        await self.memory_inbox.put(item)
                        await self.memory_inbox.join()
                    else:
                        await self.memory_inbox.put(item)
                ctx = await self._context(item)
                self._recent.append(item)
                self._last = item
                self._launch(ctx)
        finally:
            for task in self._in_flight:
                task.cancel()
            if self._in_flight:
                await asyncio.gather(*self._in_flight, return_exceptions=True)
