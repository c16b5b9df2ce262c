"""The one injected clock that stamps every event.

`RealClock` follows the monotonic wall clock for live use and real-time replay.
`VirtualClock` runs replay as fast as possible and drives tests: time only moves when
every task is waiting on the clock, so a scripted 3 s "inference" costs 3 virtual
seconds and no real time, and the ordering of events is the same as it would be live.

Compute latency (how long a model really took) is never read from this clock: stages
measure it with `time.perf_counter()`, so replay reports true costs.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Protocol, TypeVar

T = TypeVar("T")

# How many event-loop turns the virtual clock waits, with nobody runnable, before it
# jumps to the next deadline. Tasks that hop through several queues in one step need a
# few turns to settle; 50 is far more than any chain in the pipeline.
_IDLE_TURNS = 50


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on this clock (stream time for replay, monotonic time live)."""

    async def sleep(self, seconds: float) -> None: ...

    async def sleep_until(self, t: float) -> None: ...

    def skip_to(self, t: float) -> None:
        """Move forward to `t` at once, never back: stream time a resumed replay need not wait through."""

    async def run_blocking(self, fn: Callable[..., T], *args: object) -> T:
        """Run blocking work in a thread; a virtual clock does not advance meanwhile."""


class RealClock:
    def __init__(self) -> None:
        self._origin = time.monotonic()

    def now(self) -> float:
        return time.monotonic() - self._origin

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    async def sleep_until(self, t: float) -> None:
        await asyncio.sleep(max(0.0, t - self.now()))

    def skip_to(self, t: float) -> None:
        ahead = t - self.now()
        if ahead > 0:
            self._origin -= ahead

    async def run_blocking(self, fn: Callable[..., T], *args: object) -> T:
        return await asyncio.to_thread(fn, *args)


class VirtualClock:
    """Discrete-event time for replay and tests.

    Sleepers register a deadline; a driver task (`drive()`, started by the supervisor or
    the test) advances `now` to the earliest deadline once the loop has been idle for a
    few turns and no blocking work is in flight.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._busy = 0
        self._handoffs = 0  # busy sections ended: work that may hand on to more work
        self._wakeup: asyncio.Event | None = None

    def now(self) -> float:
        return self._now

    def _event(self) -> asyncio.Event:
        if self._wakeup is None:
            self._wakeup = asyncio.Event()
        return self._wakeup

    async def sleep(self, seconds: float) -> None:
        await self.sleep_until(self._now + max(0.0, seconds))

    async def sleep_until(self, t: float) -> None:
        if t <= self._now:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._heap, (t, next(self._seq), fut))
        self._event().set()
        await fut

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """Hold time still while real work (a thread, a subprocess) is in flight."""
        self._busy += 1
        try:
            yield
        finally:
            self._busy -= 1
            self._handoffs += 1
            self._event().set()

    async def run_blocking(self, fn: Callable[..., T], *args: object) -> T:
        with self.busy():
            return await asyncio.to_thread(fn, *args)

    async def wait_busy(self, aw: Awaitable[T]) -> T:
        with self.busy():
            return await aw

    def skip_to(self, t: float) -> None:
        if t > self._now:
            self.advance(t - self._now)

    def advance(self, seconds: float) -> None:
        """Move time forward by hand (tests) and wake every sleeper now due."""
        self._now += seconds
        self._release_due()

    def _release_due(self) -> None:
        while self._heap and self._heap[0][0] <= self._now:
            _, _, fut = heapq.heappop(self._heap)
            if not fut.done():
                fut.set_result(None)

    async def drive(self) -> None:
        """Advance time whenever everybody waits on the clock. Runs until cancelled."""
        while True:
            handoffs = self._handoffs
            for _ in range(_IDLE_TURNS):
                await asyncio.sleep(0)
            # Work that ended during those turns may be handing on to more (a thread's result
            # going through a queue to the next thread): only a whole quiet run of turns, with
            # nothing busy at any point, counts as idle, never a glimpse between two sections.
            if not self._busy and self._handoffs != handoffs:
                continue
            # Drop sleepers that were cancelled (a task shut down mid-sleep).
            while self._heap and self._heap[0][2].done():
                heapq.heappop(self._heap)
            if self._busy or not self._heap:
                ev = self._event()
                ev.clear()
                await ev.wait()
                continue
            self._now = max(self._now, self._heap[0][0])
            self._release_due()
