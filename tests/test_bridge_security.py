"""The glasses link's security over a real UDP loopback socket: downgrade, strangers, replays,
reordering and rekeying on a long session. Fake glasses speak the real protocol."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import struct
import zlib
from collections.abc import AsyncIterator, Callable

import pytest

from edge_assist.events import UserQuery
from edge_assist.outputs.glasses_link import BridgeLink
from firmware_bridge import handshake
from firmware_bridge.crypto import Pairing
from firmware_bridge.endpoint import Timing
from firmware_bridge.frames import MsgType, parse
from firmware_bridge.glasses import FakeGlasses
from firmware_bridge.keys import generate_key
from firmware_bridge.noise import KeyPair
from firmware_bridge.transports import UdpTransport
from tests.fakes import TapUdp

FAST = Timing(ack_timeout_s=0.05, max_retries=3, heartbeat_s=0.2, reopen_s=0.05, pending_max=32)
pytestmark = pytest.mark.timeout(30)


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


def _v1_hello() -> bytes:
    # What glasses on the version-1 firmware send: a 16-byte header, epoch and nonce, HMAC tag, CRC.
    payload = os.urandom(24)
    body = struct.pack(">2sBBBBIIH", b"EA", 1, 0x01, 0, 0, 0, 0, len(payload)) + payload + bytes(16)
    return body + struct.pack(">I", zlib.crc32(body))


async def test_old_firmware_gets_one_clear_line_and_an_answer_it_can_name(host, caplog) -> None:
    link, _key, port = host
    caplog.set_level(logging.WARNING, logger="firmware_bridge")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as old:
        old.settimeout(5)
        for _ in range(3):  # old glasses retry their HELLO
            old.sendto(_v1_hello(), ("127.0.0.1", port))
        answer, _ = await asyncio.to_thread(old.recvfrom, 4096)
    await _eventually(lambda: link.stats()["version_errors"] == 3)
    line = "the glasses speak protocol version 1, this assistant version 2: update the glasses' firmware"
    assert [r.getMessage() for r in caplog.records] == [f"bridge: {line}"]
    assert link.stats()["last_refusal"] == line and not link.connected
    # The answer is a version-2 frame, so the old side's own parser names the mismatch too
    # (version 1 checks the byte after the magic); it says the same line in its payload.
    assert answer[:3] == b"EA\x02"
    raw = parse(answer)
    assert raw.header.type == MsgType.UPGRADE and raw.payload == line.encode()


async def test_a_handshake_asking_for_another_pattern_is_refused(host) -> None:
    link, key, port = host
    _, hello = handshake.initiate(Pairing.from_secret(key, "glasses"), os.urandom(8), pattern_id=2)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(hello, ("127.0.0.1", port))
    await _eventually(lambda: link.stats()["version_errors"] == 1)
    assert "speaks only Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s" in link.stats()["last_refusal"]
    assert not link.connected


async def test_unpaired_glasses_and_a_wrong_psk_get_no_session(host) -> None:
    link, key, port = host
    paired = Pairing.from_secret(key, "glasses")
    for pairing, refused_by_host in (
        (Pairing(paired.psk, KeyPair.generate(), paired.peer_static), True),  # the PSK, not the key
        (Pairing(os.urandom(32), paired.static, paired.peer_static), False),  # the key, not the PSK
    ):
        g = FakeGlasses(TapUdp("127.0.0.1", port), pairing, timing=FAST)
        await g.start()
        try:
            assert not await g.wait_connected(0.5)
            await g.ask("inject this")
            if refused_by_host:
                await _eventually(lambda: "not the paired ones" in link.stats()["last_refusal"])
            else:  # psk2: the host answers, the glasses cannot read the answer, nothing commits
                await _eventually(lambda g=g: g.endpoint.counters.auth_failures >= 1)
            assert link.inbound.empty() and not link.connected
        finally:
            await g.close()


async def test_reordered_frames_are_delivered_once_and_replays_are_not(host) -> None:
    link, key, port = host
    tap = TapUdp("127.0.0.1", port)
    g = FakeGlasses(tap, key, timing=FAST)
    await g.start()
    try:
        assert await g.wait_connected(5)
        tap.drop = lambda frame: parse(frame).header.type == MsgType.QUESTION
        futures = [await g.ask(f"q{i}") for i in range(3)]
        await _eventually(lambda: sum(parse(f).header.type == MsgType.QUESTION for f in tap.sent) >= 3)
        held = [f for f in tap.sent if parse(f).header.type == MsgType.QUESTION][:3]
        tap.drop = lambda frame: True  # the radio holds everything else back while these arrive
        for frame in reversed(held):  # out of order, from the glasses' own socket
            await UdpTransport.send(tap, frame)
        await _eventually(lambda: link.inbound.qsize() == 3)
        got = sorted(link.inbound.get_nowait().text for _ in range(3))  # type: ignore[union-attr]
        assert got == ["q0", "q1", "q2"]
        replays = link.stats()["replays"]
        for frame in held:  # the same frames again: a replay, refused before decryption
            await UdpTransport.send(tap, frame)
        await _eventually(lambda: link.stats()["replays"] == replays + 3)
        assert link.inbound.empty()
        tap.drop = lambda frame: False
        for f in futures:
            assert f is not None
            await asyncio.wait_for(f, 5)
    finally:
        await g.close()


async def test_a_long_session_rekeys_in_step(host) -> None:
    link, key, port = host
    link.endpoint.timing = g_timing = Timing(
        ack_timeout_s=0.05, max_retries=3, heartbeat_s=0.2, reopen_s=0.05, rekey_after_frames=7
    )
    g = FakeGlasses(TapUdp("127.0.0.1", port), key, timing=g_timing)
    await g.start()
    try:
        assert await g.wait_connected(5) and await link.wait_connected(5)
        for i in range(30):
            fut = await link.send_hud(f"step {i}", priority=1, duration_s=1)
            assert fut is not None
            await asyncio.wait_for(fut, 5)
            ask = await g.ask(f"question {i}")
            assert ask is not None
            await asyncio.wait_for(ask, 5)
        texts = [g.hud.get_nowait().text for _ in range(g.hud.qsize())]
        assert texts == [f"step {i}" for i in range(30)]
        asked = [link.inbound.get_nowait() for _ in range(link.inbound.qsize())]
        assert [q.text for q in asked if isinstance(q, UserQuery)] == [f"question {i}" for i in range(30)]
        assert link.stats()["rekeys"] >= 8 and g.endpoint.describe()["rekeys"] >= 8
        assert link.stats()["auth_failures"] == 0
    finally:
        await g.close()
