"""Glasses-link latency: HUD text from `send_hud()` to the glasses' ACK, over UDP loopback
and a pty serial pair, plus the CPU cost of sealing one frame and of one Noise handshake
(both sides). Prints JSON, and writes it to --out.

    python -m benchmarks.bench_bridge [--n 200] [--out FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import tty

from benchmarks.results_io import write
from edge_assist.outputs.glasses_link import BridgeLink
from edge_assist.runtime.percentiles import percentile
from firmware_bridge import handshake
from firmware_bridge.crypto import Pairing, RekeyPolicy
from firmware_bridge.endpoint import Timing
from firmware_bridge.frames import MsgType, parse
from firmware_bridge.glasses import FakeGlasses
from firmware_bridge.keys import generate_key
from firmware_bridge.link_state import Session
from firmware_bridge.transports import FdStreamTransport, UdpTransport, serial_transport

TIMING = Timing(ack_timeout_s=0.2, max_retries=5, heartbeat_s=1.0, reopen_s=0.05)


def _summary(samples_ms: list[float]) -> dict[str, float | None]:
    return {
        "n": len(samples_ms),
        "p50_ms": percentile(samples_ms, 50, 3),
        "p95_ms": percentile(samples_ms, 95, 3),
        "max_ms": round(max(samples_ms), 3),
    }


async def _round_trips(link: BridgeLink, glasses: FakeGlasses, n: int) -> dict[str, float]:
    assert await glasses.wait_connected(5) and await link.wait_connected(5)
    samples = []
    for i in range(n):
        t0 = time.perf_counter()
        fut = await link.send_hud(f"message {i}: turn the heat down a little", priority=1, duration_s=3)
        assert fut is not None
        await fut
        samples.append(1000 * (time.perf_counter() - t0))
        await glasses.hud.get()
    return {**_summary(samples), "retransmits": link.stats()["retransmits"]}


async def bench_udp(n: int) -> dict[str, float]:
    key = generate_key()
    server = UdpTransport("127.0.0.1", 0, mode="server")
    link = BridgeLink(server, key, timing=TIMING)
    await link.start()
    g = FakeGlasses(UdpTransport("127.0.0.1", server.local_address[1], mode="client"), key, timing=TIMING)
    await g.start()
    try:
        return await _round_trips(link, g, n)
    finally:
        await g.close()
        await link.close()


async def bench_serial(n: int) -> dict[str, float]:
    key = generate_key()
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    link = BridgeLink(serial_transport(os.ttyname(slave), 115200, retry_s=0.05), key, timing=TIMING)
    await link.start()
    g = FakeGlasses(FdStreamTransport("pty", lambda: master, None), key, timing=TIMING)
    await g.start()
    try:
        return await _round_trips(link, g, n)
    finally:
        await g.close()
        await link.close()
        os.close(slave)
        os.close(master)


def _handshake(key: bytes) -> tuple[float, float, Session, Session]:
    """One handshake in memory: (glasses' CPU s, host's CPU s, the host's and glasses' sessions)."""
    glasses, host = Pairing.from_secret(key, "glasses"), Pairing.from_secret(key, "host")
    policy = RekeyPolicy()
    t0 = time.process_time()
    init, hello = handshake.initiate(glasses, os.urandom(8))
    t1 = time.process_time()
    session, reply = handshake.answer(host, parse(hello), os.urandom(8), None, policy, 0.0)
    t2 = time.process_time()
    glasses_session = handshake.finish({init.echo: init}, parse(reply), None, policy, 0.0)
    t3 = time.process_time()
    return (t1 - t0) + (t3 - t2), t2 - t1, session, glasses_session


def bench_seal(n: int) -> dict[str, float]:
    key = generate_key()
    glasses_s, host_s = [], []
    for _ in range(50):
        g, h, session, peer = _handshake(key)
        glasses_s.append(g)
        host_s.append(h)
    payload = b'{"id":1,"text":"Turn the burner down, the oil is smoking","priority":3,"duration_s":5}'
    t0, c0 = time.perf_counter(), time.process_time()
    frames = [session.seal(int(MsgType.HUD_TEXT), 1, seq, payload, 0.0) for seq in range(n)]
    t1, c1 = time.perf_counter(), time.process_time()
    raws = [parse(f) for f in frames]
    c2 = time.process_time()
    for raw in raws:
        h = raw.header
        peer.inbound.open(h.phase, h.nonce, raw.header_bytes, raw.payload)
    c3 = time.process_time()
    return {
        "n": n,
        "us_per_frame": round(1e6 * (t1 - t0) / n, 2),
        "cpu_us_per_frame": round(1e6 * (c1 - c0) / n, 2),
        "cpu_us_per_open": round(1e6 * (c3 - c2) / n, 2),
        "payload_bytes": len(payload),
        "handshake_cpu_ms_glasses": round(1000 * sum(glasses_s) / len(glasses_s), 3),
        "handshake_cpu_ms_host": round(1000 * sum(host_s) / len(host_s), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=200, help="HUD messages per transport")
    ap.add_argument("--out", default="", help="also write the JSON here")
    args = ap.parse_args()
    out = {
        "hud_ack_udp": asyncio.run(bench_udp(args.n)),
        "hud_ack_serial_pty": asyncio.run(bench_serial(args.n)),
        "seal_frame": bench_seal(5000),
    }
    if args.out:
        write(args.out, out)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
