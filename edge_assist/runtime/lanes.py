"""Lanes and the model arbiter: which model call may use the CPU now.

Every model call runs in a lane: INSTANT (captions, first passes: Safety lives here),
ANSWER (the search behind a wearer's question), SEARCH (proactive retrieval,
reconstruction, second pass) and BACKGROUND (memory writes and roll-ups). `ModelArbiter`
lets one call at a time use the CPU-bound models, highest lane first; a higher lane
arriving stops a lower one between two tokens (StopFlag), so an instant decision never
waits behind a search. BACKGROUND work waits for an idle moment (no step in flight), so
roll-ups use idle time.

The lane of the current task travels in a context variable, so it follows a step into
the worker threads where the models run (asyncio.to_thread copies the context).
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, TypeVar

import numpy as np

from edge_assist.inference.base import LLM, VLM, GenerationCancelled, Message, StopFlag

T = TypeVar("T")


class Lane(IntEnum):
    BACKGROUND = 0
    SEARCH = 1
    ANSWER = 2
    INSTANT = 3


LANE: contextvars.ContextVar[Lane] = contextvars.ContextVar("edge_assist_lane", default=Lane.BACKGROUND)

# A background job (a roll-up) waits for an idle moment, but not forever: on a device
# that is never idle the memory must still be written. After this long it runs anyway.
BACKGROUND_MAX_WAIT_S = 20.0


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

    def __init__(self, llm: LLM, arbiter: ModelArbiter) -> None:
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

    def __init__(self, vlm: VLM, arbiter: ModelArbiter) -> None:
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
