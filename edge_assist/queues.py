"""Bounded queues between stages, with their overflow policy made explicit.

- `DroppingQueue`: a full queue drops (the newest item for frames, the oldest for clips,
  by choice) and counts every drop; the producer never waits, so a live camera never
  falls behind the world.
- `asyncio.Queue(maxsize)`: where nothing may be lost (memory writes) the producer waits.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Generic, TypeVar

T = TypeVar("T")


class DroppingQueue(Generic[T]):
    def __init__(self, maxsize: int, *, drop: str = "oldest") -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be >= 1")
        if drop not in ("oldest", "newest"):
            raise ValueError("drop must be 'oldest' or 'newest'")
        self.maxsize = maxsize
        self.drop = drop
        self.dropped = 0
        self._items: collections.deque[T] = collections.deque()
        self._not_empty = asyncio.Event()
        self._not_full = asyncio.Event()
        self._not_full.set()

    def put_nowait(self, item: T, *, force: bool = False) -> bool:
        """Add `item`; returns False when something had to be dropped.

        `force` always keeps `item` (dropping the oldest instead): for end-of-stream markers.
        """
        if len(self._items) >= self.maxsize:
            self.dropped += 1
            if self.drop == "newest" and not force:
                return False
            self._items.popleft()
            self._items.append(item)
            self._not_empty.set()
            return False
        self._items.append(item)
        self._not_empty.set()
        return True

    async def put(self, item: T) -> bool:
        return self.put_nowait(item)

    async def get(self) -> T:
        while not self._items:
            self._not_empty.clear()
            await self._not_empty.wait()
        item = self._items.popleft()
        self._not_full.set()
        return item

    async def wait_for_room(self) -> None:
        """For lossless producers (virtual-time replay): wait until a put would not drop."""
        while len(self._items) >= self.maxsize:
            self._not_full.clear()
            await self._not_full.wait()

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items
