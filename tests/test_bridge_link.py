"""The glasses link over real local transports: a UDP loopback socket and a pty pair.

The fake glasses speak the real protocol from the other end; taps on the glasses' own
transport (record, drop, black-hole) stand in for a lossy radio.
"""

from __future__ import annotations

import asyncio
import os
import socket
import tty
from collections.abc import AsyncIterator, Callable

import pytest

from edge_assist.events import ButtonEvent, GlassesStatus, UserQuery
from edge_assist.outputs.glasses_link import BridgeLink
from firmware_bridge.endpoint import Timing
from firmware_bridge.frames import MsgType, parse
from firmware_bridge.glasses import FakeGlasses
from firmware_bridge.keys import generate_key
from firmware_bridge.messages import Status
from firmware_bridge.transports import FdStreamTransport, UdpTransport, serial_transport
from tests.fakes import TapUdp

FAST = Timing(ack_timeout_s=0.05, max_retries=3, heartbeat_s=0.2, reopen_s=0.05, pending_max=32)
pytestmark = pytest.mark.timeout(30)


def _type(frame: bytes) -> int:
    return parse(frame).header.type


async def _eventually(cond: Callable[[], bool], timeout_s: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout_s
    while not cond():
        if loop.time() > end:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


@pytest.fixture
async def host() -> AsyncIterator[tuple[BridgeLink, bytes, int]]:
    key = generate_key()
    transport = UdpTransport("127.0.0.1", 0, mode="server")
    link = BridgeLink(transport, key, timing=FAST)
    await link.start()
    yield link, key, transport.local_address[1]
    await link.close()


async def _glasses(key: bytes, port: int) -> tuple[FakeGlasses, TapUdp]:
    tap = TapUdp("127.0.0.1", port)
    g = FakeGlasses(tap, key, timing=FAST)
    await g.start()
    return g, tap


async def test_udp_round_trip_every_message_kind(host) -> None:
    link, key, port = host
    buttons = link.subscribe(ButtonEvent)
    g, _ = await _glasses(key, port)
    try:
        assert await g.wait_connected(5)
        assert await link.wait_connected(5)
        acked = await g.ask("where did I put my keys?")
        assert acked is not None
        await asyncio.wait_for(acked, 5)
        q = await asyncio.wait_for(link.inbound.get(), 5)
        assert isinstance(q, UserQuery) and q.text == "where did I put my keys?" and q.source == "bridge"

        await g.press("main", "press")
        ev = await asyncio.wait_for(buttons.get(), 5)
        assert (ev.button, ev.action) == ("main", "press")
        await g.touch("swipe_forward")
        await g.report(Status(battery_pct=12.0, charging=False, temperature_c=48.5, thermal="hot"))
        await _eventually(lambda: link.status is not None)
        assert isinstance(link.status, GlassesStatus)
        assert link.status.thermal == "hot" and link.status.budget_factor == 0.5 and link.status.constrained

        fut = await link.send_hud("Pan is smoking: turn the heat down", priority=3, duration_s=6.0)
        assert fut is not None
        await asyncio.wait_for(fut, 5)
        hud = await asyncio.wait_for(g.hud.get(), 5)
        assert (hud.text, hud.priority, hud.duration_s) == ("Pan is smoking: turn the heat down", 3, 6.0)

        pcm = os.urandom(4000)
        n = await link.send_audio(pcm, 16000, ack=True)
        stream = await asyncio.wait_for(g.audio_done.get(), 5)
        await _eventually(lambda: len(stream.chunks) == n)
        assert stream.pcm == pcm and stream.sample_rate == 16000
        assert link.stats()["auth_failures"] == 0 and link.stats()["replays"] == 0
    finally:
        await g.close()


async def test_frames_on_the_wire_do_not_show_the_text(host) -> None:
    link, key, port = host
    g, tap = await _glasses(key, port)
    try:
        assert await g.wait_connected(5)
        fut = await g.ask("what is my PIN code?")
        assert fut is not None
        await asyncio.wait_for(fut, 5)
        assert not any(b"PIN code" in f for f in tap.sent)
    finally:
        await g.close()


async def test_wrong_key_is_rejected_and_counted(host) -> None:
    link, _key, port = host
    g, _ = await _glasses(generate_key(), port)
    try:
        assert not await g.wait_connected(0.5)
        await g.ask("inject this")  # queued: there is no session to carry it
        await _eventually(lambda: link.stats()["auth_failures"] >= 1)
        assert link.inbound.empty() and not link.connected
    finally:
        await g.close()


async def test_replayed_frame_is_rejected_and_counted(host) -> None:
    link, key, port = host
    g, tap = await _glasses(key, port)
    try:
        assert await g.wait_connected(5)
        fut = await g.ask("open the door")
        assert fut is not None
        await asyncio.wait_for(fut, 5)
        assert (await link.inbound.get()).text == "open the door"  # type: ignore[union-attr]
        question = next(f for f in tap.sent if _type(f) == MsgType.QUESTION)
        # An eavesdropper replays the captured frame from its own socket.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _ in range(3):
                s.sendto(question, ("127.0.0.1", port))
        await _eventually(lambda: link.stats()["replays"] >= 3)  # each is counted as it is dropped
        assert link.inbound.empty()
    finally:
        await g.close()
    # After the glasses reconnect (new session keys) the old frame does not even verify.
    g2, _ = await _glasses(key, port)
    try:
        assert await g2.wait_connected(5)
        await _eventually(lambda: link.connected and link.endpoint.peer_epoch == g2.endpoint.epoch)
        before = link.stats()["unknown_session"]
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(question, ("127.0.0.1", port))
        await _eventually(lambda: link.stats()["unknown_session"] == before + 1)
        assert link.inbound.empty()
    finally:
        await g2.close()


async def test_corrupted_datagram_is_rejected_and_counted(host) -> None:
    link, key, port = host
    g, tap = await _glasses(key, port)
    try:
        assert await g.wait_connected(5)
        fut = await g.ask("first")
        assert fut is not None
        await asyncio.wait_for(fut, 5)
        frame = bytearray(next(f for f in tap.sent if _type(f) == MsgType.QUESTION))
        frame[20] ^= 0x40
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.sendto(bytes(frame), ("127.0.0.1", port))
            s.sendto(b"\x00garbage", ("127.0.0.1", port))
        await _eventually(lambda: link.stats()["corrupt"] == 2)
    finally:
        await g.close()


async def test_lost_acks_cause_resends_but_no_duplicates(host) -> None:
    link, key, port = host
    g, tap = await _glasses(key, port)
    try:
        assert await g.wait_connected(5)
        dropped = {"n": 0}

        def drop_two_acks(frame: bytes) -> bool:
            if _type(frame) == MsgType.ACK and dropped["n"] < 2:
                dropped["n"] += 1
                return True
            return False

        tap.drop = drop_two_acks
        fut = await link.send_hud("Next: add the eggs", priority=1, duration_s=3)
        assert fut is not None
        await asyncio.wait_for(fut, 5)
        assert link.stats()["retransmits"] >= 2
        assert g.endpoint.counters.replays >= 2
        assert g.hud.qsize() == 1
    finally:
        await g.close()


async def test_radio_outage_no_acked_message_lost_or_duplicated(host) -> None:
    link, key, port = host
    g, tap = await _glasses(key, port)
    try:
        assert await g.wait_connected(5)
        # The glasses hear the host but their transmitter is dead: acks never get out.
        tap.drop = lambda frame: True
        fut = await link.send_hud("one", priority=1, duration_s=3)
        assert fut is not None
        await asyncio.wait_for(g.hud.get(), 5)  # delivered once ...
        await _eventually(lambda: not g.connected and not link.connected, 5)  # ... then both give up
        more = [await link.send_hud(t, priority=1, duration_s=3) for t in ("two", "three")]
        questions = [await g.ask(t) for t in ("q1", "q2")]
        tap.drop = lambda frame: False  # the radio comes back: a new session
        for f in [fut, *more, *questions]:
            assert f is not None
            await asyncio.wait_for(f, 5)
        got = []
        while not g.hud.empty():
            got.append(g.hud.get_nowait().text)
        assert got == ["two", "three"]  # "one" was not shown a second time
        asked = [link.inbound.get_nowait().text for _ in range(link.inbound.qsize())]  # type: ignore[union-attr]
        assert asked == ["q1", "q2"]
        assert link.stats()["sessions"] >= 2 and link.endpoint.pending == 0
    finally:
        await g.close()


async def test_glasses_restart_and_host_restart(host) -> None:
    link, key, port = host
    g, _ = await _glasses(key, port)
    assert await g.wait_connected(5)
    first_epoch = g.endpoint.epoch
    await g.close()
    # While the glasses are off, acked HUD text waits in the host's pending list.
    fut = await link.send_hud("while you were away", priority=2, duration_s=5)
    g2, _ = await _glasses(key, port)
    try:
        assert fut is not None
        await asyncio.wait_for(fut, 5)
        assert (await asyncio.wait_for(g2.hud.get(), 5)).text == "while you were away"
        assert link.endpoint.peer_epoch == g2.endpoint.epoch != first_epoch
        # Now the host restarts on the same port; the glasses notice and reconnect.
        await link.close()
        link2 = BridgeLink(UdpTransport("127.0.0.1", port, mode="server"), key, timing=FAST)
        await link2.start()
        try:
            assert await link2.wait_connected(5)
            f2 = await g2.ask("are you back?")
            assert f2 is not None
            await asyncio.wait_for(f2, 5)
            assert (await asyncio.wait_for(link2.inbound.get(), 5)).text == "are you back?"  # type: ignore[union-attr]
        finally:
            await link2.close()
    finally:
        await g2.close()


# -- serial: a pseudo-terminal pair stands in for the USB cable ---------------------------


@pytest.fixture
def pty_pair() -> AsyncIterator[tuple[int, str]]:
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    # The slave stays open here so the master never sees EIO while the host reopens it.
    yield master, os.ttyname(slave)
    os.close(slave)
    os.close(master)


def _glasses_on(master: int, key: bytes) -> FakeGlasses:
    return FakeGlasses(FdStreamTransport("pty master", lambda: master, None), key, timing=FAST)


async def test_serial_round_trip_corruption_and_glasses_restart(pty_pair) -> None:
    master, slave_path = pty_pair
    key = generate_key()
    link = BridgeLink(serial_transport(slave_path, 115200, retry_s=0.05), key, timing=FAST)
    await link.start()
    g = _glasses_on(master, key)
    await g.start()
    try:
        assert await g.wait_connected(5)
        fut = await g.ask("how long do the eggs boil?")
        assert fut is not None
        await asyncio.wait_for(fut, 5)
        q = await asyncio.wait_for(link.inbound.get(), 5)
        assert q.text == "how long do the eggs boil?"  # type: ignore[union-attr]
        hf = await link.send_hud("Eight minutes", priority=2, duration_s=4)
        assert hf is not None
        await asyncio.wait_for(hf, 5)
        assert (await asyncio.wait_for(g.hud.get(), 5)).text == "Eight minutes"

        # Line noise: a frame with a flipped byte and raw garbage, then a good frame still gets through.
        from firmware_bridge.frames import Header, build, stream_encode

        h = Header(int(MsgType.QUESTION), 1, 1, 999, 19)
        bad = bytearray(build(h, b"abc" + bytes(16)))
        bad[25] ^= 1
        os.write(master, stream_encode(bytes(bad)) + b"\x07\x07\x00")
        await _eventually(lambda: link.stats()["corrupt"] + link.stats()["rx_malformed"] >= 2)
        f2 = await g.ask("still there?")
        assert f2 is not None
        await asyncio.wait_for(f2, 5)
        assert (await asyncio.wait_for(link.inbound.get(), 5)).text == "still there?"  # type: ignore[union-attr]

        # The glasses reboot (all their state is lost) on the same cable.
        await g.endpoint._tx_lock.acquire()  # stop it mid-flight, as a power cut would
        for t in g.endpoint._tasks:
            t.cancel()
        g2 = _glasses_on(master, key)
        pending = await link.send_hud("after reboot", priority=1, duration_s=2)
        await g2.start()
        try:
            assert pending is not None
            await asyncio.wait_for(pending, 5)
            assert (await asyncio.wait_for(g2.hud.get(), 5)).text == "after reboot"
            assert g2.hud.empty()
        finally:
            await g2.close()
    finally:
        g.endpoint._tx_lock.release()
        await g.close()
        await link.close()


async def test_serial_waits_for_a_port_that_appears_late(tmp_path) -> None:
    key = generate_key()
    link_path = tmp_path / "ttyGLASSES"
    link = BridgeLink(serial_transport(str(link_path), 115200, retry_s=0.05), key, timing=FAST)
    start = asyncio.create_task(link.start(), name="late-serial-start")
    await asyncio.sleep(0.2)  # the behaviour: four retries' worth of a missing port
    assert not start.done()  # still waiting, not failing
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    os.symlink(os.ttyname(slave), link_path)
    try:
        await asyncio.wait_for(start, 5)
        g = _glasses_on(master, key)
        await g.start()
        try:
            assert await g.wait_connected(5)
        finally:
            await g.close()
    finally:
        await link.close()
        os.close(slave)
        os.close(master)
