"""In replay on a virtual clock, a step takes no stream time: its decision is stamped with the
end of its clip even when the step waits on the loop (a lock, a sink) for many turns while
the next caption is due. Otherwise the stamp depends on how loaded the machine is."""

from __future__ import annotations

import asyncio

from edge_assist.clock import VirtualClock
from edge_assist.events import Caption, Decision, StreamEnd
from edge_assist.reasoning.api import SearchGate, StepContext
from edge_assist.runtime.reasoner_stage import ReasonerStage, StepInbox


class LoopWaitingAssistant:
    """Waits on the event loop, not on a model thread, before it decides: as a step does when
    it queues for a lock another coroutine holds."""

    name = "loop-waiting"

    def __init__(self, clock: VirtualClock, turns: int) -> None:
        self.clock, self.turns = clock, turns

    async def step(self, ctx: StepContext, gate: SearchGate | None = None) -> Decision:
        for _ in range(self.turns):
            await asyncio.sleep(0)
        c = ctx.caption
        return Decision(self.clock.now(), ctx.session_id, c.index, c.t0, c.t1, False, reason="waited")


async def _memory_writer(inbox: asyncio.Queue[Caption | StreamEnd]) -> None:
    while True:
        item = await inbox.get()
        inbox.task_done()
        if isinstance(item, StreamEnd):
            return


async def _source(clock: VirtualClock, inbox: StepInbox, ends: list[float]) -> None:
    start = 0.0
    for i, end in enumerate(ends):
        await clock.sleep_until(end)
        await inbox.put(Caption(clock.now(), "s", i, start, end, f"clip {i}"))
        start = end
    await inbox.put(StreamEnd(clock.now()))


async def test_a_step_that_waits_on_the_loop_is_stamped_at_its_clip_end() -> None:
    clock = VirtualClock()
    inbox = StepInbox(8)
    memory_inbox: asyncio.Queue[Caption | StreamEnd] = asyncio.Queue(8)
    decisions: list[Decision] = []
    stage = ReasonerStage(
        clock,
        LoopWaitingAssistant(clock, turns=500),  # type: ignore[arg-type]
        inbox,
        [],
        memory_inbox=memory_inbox,
        on_decision=decisions.append,
        memory_lockstep=True,
    )
    ends = [10.0, 20.0, 30.0]
    driver = asyncio.create_task(clock.drive())
    try:
        await asyncio.wait_for(
            asyncio.gather(_source(clock, inbox, ends), stage.run(), _memory_writer(memory_inbox)), 30
        )
    finally:
        driver.cancel()
    assert [d.t for d in decisions] == ends
