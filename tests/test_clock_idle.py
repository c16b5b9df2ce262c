"""The virtual clock moves only after a whole quiet run of loop turns. Work that runs in
short busy sections with a few turns between them (a thread's result handed through a
queue to the next thread) must hold time still from its first section to its last, however
the clock's idle count happens to line up with the gaps."""

from __future__ import annotations

import asyncio

from edge_assist.clock import VirtualClock


async def _sectioned_work(clock: VirtualClock, seen: list[float]) -> None:
    # Every gap length from 1 to 40 turns, after busy sections of 1 to 5 turns: some gap
    # lands on the turn where a clock that only glances at `busy` would decide.
    for gap in range(1, 41):
        for length in range(1, 6):
            with clock.busy():
                for _ in range(length):
                    await asyncio.sleep(0)
            seen.append(clock.now())
            for _ in range(gap):
                await asyncio.sleep(0)


async def test_time_stays_still_across_short_gaps_between_busy_sections() -> None:
    clock = VirtualClock()
    seen: list[float] = []
    woke: list[float] = []

    async def sleeper() -> None:
        await clock.sleep_until(10.0)
        woke.append(clock.now())

    driver = asyncio.create_task(clock.drive())
    sleeping = asyncio.create_task(sleeper())
    await asyncio.sleep(0)  # the sleeper registers before the work starts
    try:
        await _sectioned_work(clock, seen)
        assert set(seen) == {0.0}  # no jump while the work went on
        await asyncio.wait_for(sleeping, timeout=5)  # and time moves once it is over
        assert woke == [10.0]
    finally:
        driver.cancel()
        sleeping.cancel()
