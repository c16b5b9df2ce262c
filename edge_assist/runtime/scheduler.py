"""Latency budgets, priorities and cancellation: what may run, and when.

On glasses the CPU is small and the world does not wait. Three mechanisms:

1. **Budgets.** Every step (one clip, or one wearer question) gets a `StepBudget`:
   `scheduler.step_budget_s` (shrunk while the glasses report heat or low battery), counted
   from the end of the clip, so the captioner's time is spent from it too. When the
   reasoner asks to search, `Scheduler.request` (the `SearchGate`) prices the search
   with measured section costs and grants it whole, degrades it (no reconstruction, then
   fewer paths, then fewer hits) or defers it to the next idle slot, and says which.
2. **Lanes.** Every model call runs in a lane: INSTANT (captions, first passes: Safety
   lives here), ANSWER (the search behind a wearer's question), SEARCH (proactive
   retrieval, reconstruction, second pass) and BACKGROUND (memory writes and roll-ups).
   `ModelArbiter` lets one call at a time use the CPU-bound models, highest lane first;
   a higher lane arriving stops a lower one between two tokens (StopFlag), so an
   instant decision never waits behind a search. BACKGROUND work waits for an idle
   moment (no step in flight), so roll-ups use idle time.
3. **Measurement.** Per-section latency histograms, real-time factor, degradations,
   deferrals, preemptions and drop counts (`stats()`), for `run --stats` and the log.

The lane of the current task travels in a context variable, so it follows a step into
the worker threads where the models run (asyncio.to_thread copies the context).
"""

from __future__ import annotations

import bisect
import contextlib
import contextvars
import itertools
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any, TypeVar

import numpy as np

from edge_assist.config import Config
from edge_assist.inference.base import GenerationCancelled, Message, StopFlag
from edge_assist.reasoning.api import StepContext
from edge_assist.retrieval.api import PATHS, SearchPlan

log = logging.getLogger(__name__)
T = TypeVar("T")


class Lane(IntEnum):
    BACKGROUND = 0
    SEARCH = 1
    ANSWER = 2
    INSTANT = 3


LANE: contextvars.ContextVar[Lane] = contextvars.ContextVar("edge_assist_lane", default=Lane.BACKGROUND)
CURRENT_STEP: contextvars.ContextVar[StepBudget | None] = contextvars.ContextVar(
    "edge_assist_step", default=None
)

# A background job (a roll-up) waits for an idle moment, but not forever: on a device
# that is never idle the memory must still be written. After this long it runs anyway.
BACKGROUND_MAX_WAIT_S = 20.0
# Measured section costs are smoothed so one slow call does not swing every plan.
EMA_WEIGHT = 0.3
# Histogram bucket bounds for latencies: 10 ms to 2 min, roughly x2 apart.
BUCKETS_S = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 60.0, 120.0)


async def in_lane(lane: Lane, coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` (in the current task) with its model calls in `lane`."""
    token = LANE.set(lane)
    try:
        return await coro
    finally:
        LANE.reset(token)


class SearchPreempted(GenerationCancelled):
    """A search-lane model call was stopped because something more urgent needed the CPU."""


# -- the model arbiter ------------------------------------------------------------------


class _AnyStop(StopFlag):
    """Stops when either the caller's flag or the arbiter's preemption flag is set."""

    def __init__(self, *flags: StopFlag | None) -> None:
        super().__init__()
        self._flags = [f for f in flags if f is not None]

    def is_set(self) -> bool:
        return super().is_set() or any(f.is_set() for f in self._flags)


@dataclass
class _Ticket:
    lane: Lane
    seq: int
    preempt: StopFlag = field(default_factory=StopFlag)


class ModelArbiter:
    """A priority mutex over the CPU-bound models, shared by threads."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self._holder: _Ticket | None = None
        self._waiting: list[_Ticket] = []
        self._seq = itertools.count()
        self._active_steps = 0
        self._closed = False
        self.preemptions = 0
        self.background_forced = 0

    def step_started(self) -> None:
        with self._cv:
            self._active_steps += 1

    def step_finished(self) -> None:
        with self._cv:
            self._active_steps = max(0, self._active_steps - 1)
            self._cv.notify_all()

    @property
    def holder_lane(self) -> Lane | None:
        """The lane of the call using the models now, if any (for stats and tests)."""
        holder = self._holder
        return holder.lane if holder is not None else None

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def idle(self) -> bool:
        return self._active_steps == 0

    def _first(self) -> _Ticket:
        return max(self._waiting, key=lambda t: (t.lane, -t.seq))

    def shutdown(self) -> None:
        """Stop the generation in flight and refuse new ones: the process is stopping."""
        with self._cv:
            self._closed = True
            if self._holder is not None:
                self._holder.preempt.set()
            self._cv.notify_all()

    def acquire(self, lane: Lane) -> _Ticket:
        ticket = _Ticket(lane, next(self._seq))
        waited_since = time.monotonic()
        with self._cv:
            if self._closed:
                raise GenerationCancelled("shutting down")
            self._waiting.append(ticket)
            if self._holder is not None and self._holder.lane < lane:
                self._holder.preempt.set()
                self.preemptions += 1
            while True:
                mine = self._holder is None and self._first() is ticket
                if mine and lane == Lane.BACKGROUND and self._active_steps:
                    if time.monotonic() - waited_since < BACKGROUND_MAX_WAIT_S:
                        mine = False
                    else:
                        self.background_forced += 1
                if mine:
                    break
                if self._closed:
                    self._waiting.remove(ticket)
                    raise GenerationCancelled("shutting down")
                self._cv.wait(timeout=0.05)
            self._waiting.remove(ticket)
            self._holder = ticket
            return ticket

    def release(self, ticket: _Ticket) -> None:
        with self._cv:
            if self._holder is ticket:
                self._holder = None
            self._cv.notify_all()

    @contextlib.contextmanager
    def hold(self, lane: Lane) -> Iterator[_Ticket]:
        ticket = self.acquire(lane)
        try:
            yield ticket
        finally:
            self.release(ticket)


class ScheduledLLM:
    """An LLM whose every call goes through the arbiter in the caller's lane."""

    def __init__(self, llm: Any, arbiter: ModelArbiter) -> None:
        self.inner = llm
        self.arbiter = arbiter
        self.name = llm.name

    def _call(self, fn: Callable[..., T], stop: StopFlag | None, **kwargs: Any) -> T:
        lane = LANE.get()
        while True:
            with self.arbiter.hold(lane) as ticket:
                flag = _AnyStop(stop, ticket.preempt)
                try:
                    return fn(stop=flag, **kwargs)
                except GenerationCancelled:
                    if (stop is not None and stop.is_set()) or self.arbiter.closed:
                        raise  # the caller cancelled, or we are stopping: not ours to retry
                    if lane == Lane.BACKGROUND:
                        continue  # memory work is idempotent: redo it when the CPU is free
                    raise SearchPreempted(f"{lane.name.lower()} call preempted by more urgent work") from None

    def chat(self, messages: Sequence[Message], *, stop: StopFlag | None = None, **kwargs: Any) -> str:
        return self._call(self.inner.chat, stop, messages=messages, **kwargs)

    def chat_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any],
        *,
        stop: StopFlag | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        return self._call(self.inner.chat_json, stop, messages=messages, schema=schema, **kwargs)


class ScheduledVLM:
    """A VLM whose calls go through the same arbiter (one CPU, one queue)."""

    def __init__(self, vlm: Any, arbiter: ModelArbiter) -> None:
        self.inner = vlm
        self.arbiter = arbiter
        self.name = vlm.name

    def describe(
        self, images: Sequence[np.ndarray], prompt: str, *, stop: StopFlag | None = None, **kwargs: Any
    ) -> str:
        lane = LANE.get()
        with self.arbiter.hold(lane) as ticket:
            try:
                return self.inner.describe(images, prompt, stop=_AnyStop(stop, ticket.preempt), **kwargs)
            except GenerationCancelled:
                if stop is not None and stop.is_set():
                    raise
                raise SearchPreempted(f"{lane.name.lower()} VLM call preempted by more urgent work") from None


# -- budgets ------------------------------------------------------------------------------


@dataclass
class StepBudget:
    total_s: float
    started: float  # timer() at the end of the clip
    is_query: bool = False
    plan_note: str = ""
    deferred: bool = False
    # perf_counter live; the virtual clock's now() in a replay (see Scheduler.use_stream_time).
    timer: Callable[[], float] = field(default=time.perf_counter, repr=False, compare=False)
    wall_started: float = field(default_factory=time.perf_counter, repr=False, compare=False)

    def elapsed_s(self) -> float:
        return self.timer() - self.started

    def remaining_s(self) -> float:
        return self.total_s - self.elapsed_s()


class Histogram:
    def __init__(self, bounds: Sequence[float] = BUCKETS_S) -> None:
        self.bounds = tuple(bounds)
        self.counts = [0] * (len(self.bounds) + 1)
        self.values: deque[float] = deque(maxlen=4096)  # recent raw values, for percentiles

    def add(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, seconds)] += 1
        self.values.append(seconds)

    def to_json(self) -> dict[str, Any]:
        v = sorted(self.values)
        n = sum(self.counts)

        def q(p: float) -> float | None:
            return round(v[min(len(v) - 1, int(p * len(v)))], 4) if v else None

        return {
            "count": n,
            "p50_s": q(0.5),
            "p95_s": q(0.95),
            "max_s": round(v[-1], 4) if v else None,
            "buckets": {f"<={b:g}s": c for b, c in zip(self.bounds, self.counts, strict=False) if c}
            | ({f">{self.bounds[-1]:g}s": self.counts[-1]} if self.counts[-1] else {}),
        }


class Scheduler:
    """The SearchGate handed to the assistant, plus budgets, lanes and statistics."""

    def __init__(
        self, cfg: Config, *, available_paths: Sequence[str] = PATHS, arbiter: ModelArbiter | None = None
    ) -> None:
        self.cfg = cfg
        self.arbiter = arbiter or ModelArbiter()
        enabled = {
            "temporal": cfg.retrieval.temporal,
            "graph": cfg.retrieval.graph,
            "visual": cfg.retrieval.visual,
        }
        self.paths = tuple(p for p in PATHS if enabled[p] and p in available_paths)
        self.estimates = {
            "retrieval": cfg.scheduler.retrieval_estimate_s,
            "reconstruction": cfg.scheduler.reconstruction_estimate_s,
            "pass2": cfg.scheduler.pass2_estimate_s,
        }
        # Fraction of the budget the glasses allow now (GlassesStatus.budget_factor: heat, battery).
        self.device_factor = 1.0
        self.histograms: dict[str, Histogram] = {}
        self.counters = {
            "steps": 0,
            "granted": 0,
            "degraded": 0,
            "deferred": 0,
            "deferred_run": 0,
            "preempted_steps": 0,
            "over_budget": 0,
        }
        self.deferred: deque[StepContext] = deque(maxlen=16)
        self.overhead_s = 0.0  # time spent inside the scheduler's own decisions
        self._timer: Callable[[], float] = time.perf_counter
        self._learn = True  # replace the estimates by measured section costs

    def use_stream_time(self, now: Callable[[], float]) -> None:
        """Price searches in stream time, with fixed estimates: what a replay on a virtual clock needs.

        Measured compute times differ from run to run, so a plan priced with them (degrade,
        defer) would make two replays of the same recording send different model requests.
        On a virtual clock compute costs no stream time; budgets then follow stream time
        (scripted delays in tests still count) and the configured estimates. Measurements
        still go to the statistics.
        """
        self._timer = now
        self._learn = False

    # -- device state ------------------------------------------------------------------
    def update_device(self, budget_factor: float) -> None:
        """The glasses report heat or a low battery: spend less per step (factor 0-1)."""
        if budget_factor != self.device_factor:
            log.info("step budget now %.0f%% (glasses status)", 100 * budget_factor)
        self.device_factor = min(1.0, max(0.05, budget_factor))

    def budget_s(self) -> float:
        return self.cfg.scheduler.step_budget_s * self.device_factor

    # -- steps -------------------------------------------------------------------------
    def new_step(self, ctx: StepContext, *, caption_latency_s: float = 0.0) -> StepBudget:
        wall_started = time.perf_counter() - caption_latency_s
        # A caption's latency is measured wall time: part of a live step, not of stream time.
        started = wall_started if self._timer is time.perf_counter else self._timer()
        return StepBudget(
            total_s=self.budget_s(),
            started=started,
            is_query=ctx.query is not None,
            timer=self._timer,
            wall_started=wall_started,
        )

    def record(self, section: str, seconds: float) -> None:
        self.histograms.setdefault(section, Histogram()).add(seconds)

    def step_done(self, budget: StepBudget, timings: dict[str, float]) -> None:
        t0 = time.perf_counter()
        self.counters["steps"] += 1
        for name, seconds in timings.items():
            self.record(name, seconds)
            if self._learn and name in self.estimates and seconds > 0:
                self.estimates[name] = (1 - EMA_WEIGHT) * self.estimates[name] + EMA_WEIGHT * seconds
        # The histogram is about the device (wall time); the budget about the step's own timer.
        self.record("step", time.perf_counter() - budget.wall_started)
        if budget.elapsed_s() > budget.total_s:
            self.counters["over_budget"] += 1
        self.overhead_s += time.perf_counter() - t0

    # -- the SearchGate ----------------------------------------------------------------
    def price(self, plan: SearchPlan) -> float:
        if not plan.paths:
            return self.estimates["pass2"]
        cost = self.estimates["retrieval"] + self.estimates["pass2"]
        if plan.reconstruction:
            # The estimate is for all configured paths (one account each); scale by how many run.
            cost += self.estimates["reconstruction"] * len(plan.paths) / max(1, len(self.paths))
        return cost

    def plan(self, remaining_s: float, *, is_query: bool) -> SearchPlan:
        """The largest search that fits `remaining_s`, or a deferral. Pure: easy to test."""
        k = self.cfg.retrieval.top_k
        full = SearchPlan(paths=self.paths, top_k=k, reconstruction=self.cfg.retrieval.reconstruction)
        if self.price(full) <= remaining_s:
            return full
        if self.cfg.scheduler.search_policy == "defer" and not is_query:
            return replace(
                full,
                deferred=True,
                note=f"deferred: needs ~{self.price(full):.1f} s, {remaining_s:.1f} s left",
            )
        # Degrade step by step: reconstruction is the dearest part, then the visual and
        # graph paths (temporal alone still finds the right moment), then fewer hits.
        order = [p for p in ("temporal", "graph", "visual") if p in self.paths]
        candidates = [replace(full, reconstruction=False)]
        for n in range(len(order) - 1, 0, -1):
            candidates.append(SearchPlan(paths=tuple(order[:n]), top_k=k, reconstruction=False))
        if order:
            candidates.append(SearchPlan(paths=tuple(order[:1]), top_k=max(1, k // 2), reconstruction=False))
        for c in candidates:
            if self.price(c) <= remaining_s:
                return replace(
                    c,
                    note=f"degraded to {'+'.join(c.paths)} k={c.top_k} reconstruction={c.reconstruction}: {remaining_s:.1f} s left",
                )
        if is_query:
            # A wearer waiting for an answer gets the smallest search rather than none.
            return replace(
                candidates[-1], note=f"over budget for a question: smallest search, {remaining_s:.1f} s left"
            )
        return replace(
            full, deferred=True, note=f"deferred: even the smallest search does not fit {remaining_s:.1f} s"
        )

    async def request(self, query: str, *, instant: bool = False) -> SearchPlan:
        t0 = time.perf_counter()
        budget = CURRENT_STEP.get()
        remaining = budget.remaining_s() if budget is not None else float("inf")
        is_query = budget.is_query if budget is not None else instant
        plan = self.plan(remaining, is_query=is_query)
        if plan.deferred:
            self.counters["deferred"] += 1
        elif plan.note:
            self.counters["degraded"] += 1
        else:
            self.counters["granted"] += 1
        if budget is not None:
            budget.plan_note = plan.note
            budget.deferred = plan.deferred
        if plan.note:
            log.info("search %r: %s", query[:60], plan.note)
        # From here on this step's model calls yield to new captions and questions.
        LANE.set(Lane.ANSWER if is_query else Lane.SEARCH)
        self.overhead_s += time.perf_counter() - t0
        return plan

    def defer(self, ctx: StepContext) -> None:
        self.deferred.append(ctx)

    def stats(self) -> dict[str, Any]:
        return {
            "budget_s": round(self.budget_s(), 3),
            "estimates_s": {k: round(v, 4) for k, v in self.estimates.items()},
            "counters": dict(self.counters)
            | {
                "model_preemptions": self.arbiter.preemptions,
                "background_forced": self.arbiter.background_forced,
            },
            "sections": {k: h.to_json() for k, h in sorted(self.histograms.items())},
            "overhead_s": round(self.overhead_s, 6),
        }


class GrantedGate:
    """A SearchGate for an idle slot: the whole search, no budget (deferred searches)."""

    def __init__(self, plan: SearchPlan) -> None:
        self._plan = plan

    async def request(self, query: str, *, instant: bool = False) -> SearchPlan:
        LANE.set(Lane.SEARCH)
        return self._plan
