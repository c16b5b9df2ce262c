"""Owns every task of the process: named, awaited, cancelled with a deadline.

The first task to fail stops the others; a stop request (Ctrl-C, SIGTERM) cancels the
sources first so nothing new enters, then gives the rest a short grace period to drain
before cancelling them. No task is ever left running or forgotten (RUF006).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class Supervisor:
    def __init__(self) -> None:
        self._tasks: dict[str, asyncio.Task[Any]] = {}
        self._sources: set[str] = set()
        self.stop_requested = asyncio.Event()

    def start(self, name: str, coro: Coroutine[Any, Any, Any], *, source: bool = False) -> asyncio.Task[Any]:
        if name in self._tasks:
            raise ValueError(f"task {name!r} already running")
        task = asyncio.create_task(coro, name=name)
        self._tasks[name] = task
        if source:
            self._sources.add(name)
        return task

    def request_stop(self) -> None:
        self.stop_requested.set()

    @property
    def names(self) -> list[str]:
        return list(self._tasks)

    async def wait(self, until_done: set[str]) -> None:
        """Wait until every task named in `until_done` finished, a task failed, or a stop was requested.

        Re-raises the first failure (after the others were stopped by the caller's shutdown).
        """
        stop = asyncio.ensure_future(self.stop_requested.wait())
        try:
            while True:
                for task in self._tasks.values():
                    if task.done() and not task.cancelled() and task.exception() is not None:
                        raise task.exception()  # type: ignore[misc]
                if stop.done() or all(self._tasks[n].done() for n in until_done):
                    return
                running = [t for t in self._tasks.values() if not t.done()]
                await asyncio.wait([*running, stop], return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await stop

    async def shutdown(self, grace_s: float, deadline_s: float) -> list[str]:
        """Stop sources, let the rest drain for `grace_s`, cancel what remains; all within `deadline_s`.

        Returns the names of tasks that had to be cancelled.
        """
        cancelled: list[str] = []
        for name in self._sources:
            task = self._tasks[name]
            if not task.done():
                task.cancel()
                cancelled.append(name)
        pending = [t for t in self._tasks.values() if not t.done()]
        if pending:
            await asyncio.wait(pending, timeout=grace_s)
        for name, task in self._tasks.items():
            if not task.done():
                task.cancel()
                cancelled.append(name)
        pending = [t for t in self._tasks.values() if not t.done()]
        if pending:
            _, still = await asyncio.wait(pending, timeout=max(0.0, deadline_s - grace_s))
            for t in still:
                log.warning("task %s did not stop within %.1f s", t.get_name(), deadline_s)
        for task in self._tasks.values():
            if task.done() and not task.cancelled() and task.exception() is not None:
                log.debug("task %s ended with %r", task.get_name(), task.exception())
        return cancelled
