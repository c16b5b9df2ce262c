"""HudOutput: decisions reach the (fake) glasses' HUD over a real loopback socket."""

from __future__ import annotations

import asyncio

import pytest

from edge_assist.events import PRIORITY_ANSWER, PRIORITY_NORMAL, PRIORITY_SAFETY, Decision, SubType
from edge_assist.outputs.glasses_link import BridgeLink
from edge_assist.outputs.hud import (
    END_DURATION_S,
    END_TEXT,
    PRIORITY_STATUS,
    STATUS_DURATION_S,
    HudOutput,
    display_duration_s,
)
from firmware_bridge.endpoint import Timing
from firmware_bridge.glasses import FakeGlasses
from firmware_bridge.keys import generate_key
from firmware_bridge.transports import UdpTransport

FAST = Timing(ack_timeout_s=0.05, max_retries=3, heartbeat_s=0.2, reopen_s=0.05)
pytestmark = pytest.mark.timeout(30)


def _d(text: str, sub: SubType, trigger: str = "proactive", speak: bool = True) -> Decision:
    return Decision(
        t=1.0,
        session_id="s",
        clip_index=3,
        stream_t0=20.0,
        stream_t1=30.0,
        speak=speak,
        sub_type=sub,
        text=text,
        trigger=trigger,
    )


async def test_hud_output_sends_priority_and_duration() -> None:
    key = generate_key()
    server = UdpTransport("127.0.0.1", 0, mode="server")
    link = BridgeLink(server, key, timing=FAST)
    await link.start()
    hud = HudOutput(link, min_duration_s=3.0)
    # Sent before the glasses are up: kept and delivered once they connect.
    await hud.emit(_d("Knife near the edge of the counter", SubType.SAFETY))
    glasses = FakeGlasses(UdpTransport("127.0.0.1", server.local_address[1], mode="client"), key, timing=FAST)
    await glasses.start()
    try:
        assert await link.wait_connected(5)
        await hud.emit(_d("Your keys are in the blue bowl", SubType.MEMORY_RECALL, trigger="query"))
        await hud.emit(_d("Preheat the oven", SubType.NEXT_STEP_GUIDANCE))
        await hud.emit(_d("", SubType.NEXT_STEP_GUIDANCE, speak=False))
        got = [await asyncio.wait_for(glasses.hud.get(), 5) for _ in range(3)]
        assert [(m.text, m.priority) for m in got] == [
            ("Knife near the edge of the counter", PRIORITY_SAFETY),
            ("Your keys are in the blue bowl", PRIORITY_ANSWER),
            ("Preheat the oven", PRIORITY_NORMAL),
        ]
        assert got[0].duration_s == display_duration_s("Knife near the edge of the counter", 3.0)
        assert got[2].duration_s == 3.0  # short text: the minimum
        assert hud.sent == 3 and hud.not_connected == 1
        await asyncio.sleep(0.1)  # an absence: a grace for a datagram that should not be in flight
        assert glasses.hud.empty()
    finally:
        await hud.close()
        await glasses.close()
        await link.close()


def test_display_duration_grows_with_words_and_is_capped() -> None:
    assert display_duration_s("ok") == 3.0
    assert display_duration_s(" ".join(["word"] * 20)) == 8.0
    assert display_duration_s(" ".join(["word"] * 500)) == 20.0


async def test_a_long_answer_is_paged_at_word_boundaries_and_a_new_message_replaces_the_rest() -> None:
    key = generate_key()
    server = UdpTransport("127.0.0.1", 0, mode="server")
    link = BridgeLink(server, key, timing=FAST)
    await link.start()
    glasses = FakeGlasses(UdpTransport("127.0.0.1", server.local_address[1], mode="client"), key, timing=FAST)
    await glasses.start()
    hud = HudOutput(link, min_duration_s=0.5, page_chars=60, page_wait_s=0.05)
    answer = (
        "At 1:40 you cut the English muffin into two pieces with a knife. "
        "Right after that, at 2:30, you stirred the ramekin cup with a knife."
    )
    try:
        assert await link.wait_connected(5)
        await hud.emit(_d(answer, SubType.MEMORY_RECALL, trigger="query"))
        got = [await asyncio.wait_for(glasses.hud.get(), 5) for _ in range(3)]
        texts = [m.text for m in got]
        assert [t.rsplit(" (", 1)[1] for t in texts] == ["1/3)", "2/3)", "3/3)"]
        bodies = [t.rsplit(" (", 1)[0] for t in texts]
        assert " ".join(bodies).split() == answer.split()  # nothing lost, no word cut
        assert all(len(b) <= 60 for b in bodies) and {m.priority for m in got} == {PRIORITY_ANSWER}
        # A new answer while pages are pending replaces them.
        hud2 = HudOutput(link, min_duration_s=0.5, page_chars=60, page_wait_s=5.0)
        await hud2.emit(_d(answer, SubType.MEMORY_RECALL, trigger="query"))
        await hud2.emit(_d("Knife near the edge of the counter", SubType.SAFETY))
        first, alert = [await asyncio.wait_for(glasses.hud.get(), 5) for _ in range(2)]
        assert first.text.endswith("(1/3)") and alert.text == "Knife near the edge of the counter"
        assert hud2._pager is None
        await hud2.close()
    finally:
        await hud.close()
        await glasses.close()
        await link.close()


async def test_the_status_line_is_replaced_when_the_run_ends() -> None:
    key = generate_key()
    server = UdpTransport("127.0.0.1", 0, mode="server")
    link = BridgeLink(server, key, timing=FAST)
    await link.start()
    hud = HudOutput(link, min_duration_s=3.0, drain_s=2.0)
    glasses = FakeGlasses(UdpTransport("127.0.0.1", server.local_address[1], mode="client"), key, timing=FAST)
    await glasses.start()
    try:
        assert await link.wait_connected(5)
        step = _d("", SubType.NEXT_STEP_GUIDANCE, speak=False)
        step.trace["task"] = {"k": 5, "n": 7, "step_text": "Pour the eggs into the pan"}
        await hud.emit(step)
        status = await asyncio.wait_for(glasses.hud.get(), 5)
        assert status.text == "5/7 Pour the eggs into the pan" and status.duration_s == STATUS_DURATION_S
        await hud.drain()
        end = await asyncio.wait_for(glasses.hud.get(), 5)
        assert (end.text, end.priority, end.duration_s) == (END_TEXT, PRIORITY_STATUS, END_DURATION_S)
        await hud.close()  # the end was said once: nothing more
        await asyncio.sleep(0.1)
        assert glasses.hud.empty()
    finally:
        await hud.close()
        await glasses.close()
        await link.close()
