"""Fuzz the glasses link's receive path with a seeded, structure-aware random fuzzer.

    python -m benchmarks.fuzz_bridge [--inputs 200000] [--seed 1] [--out FILE]

Each input is a mutation of a real frame (sealed data frames of every type, HELLO,
HELLO_REPLY, UPGRADE, a version-1 frame) or plain noise: bit flips, overwritten bytes,
truncation, extension, splices, random header fields; three in four get the CRC (and half
of those the length field) made right again, so the checks behind them are reached. Every
input goes the way the endpoint takes it: `frames.parse`, then the host's handshake
answer, the glasses' handshake finish, or the session's decryption and the message
decoder; one in four also goes through the serial path (COBS deframing). The only clean
outcomes are the documented refusals; anything else raised, or a frame that is not one of
the originals yet authenticates, is a failure.
Writes benchmarks/results/fuzz/bridge_protocol.json and exits non-zero on a failure.
"""

from __future__ import annotations

import argparse
import random
import struct
import sys
import time
import zlib
from collections import Counter
from typing import Any

from benchmarks import results_io
from firmware_bridge import handshake, messages
from firmware_bridge.crypto import Pairing, RekeyPolicy, ReplayedFrame
from firmware_bridge.frames import HEADER_LEN, FrameError, MsgType, StreamDeframer, cobs_decode, parse
from firmware_bridge.frames import stream_encode as cobs_frame
from firmware_bridge.handshake import HandshakeRefused, HostHandshakes, Initiation
from firmware_bridge.link_state import Session
from firmware_bridge.noise import NoiseError

DECODERS = {
    MsgType.HUD_TEXT: messages.HudText.decode,
    MsgType.AUDIO: messages.AudioChunk.decode,
    MsgType.BUTTON: messages.Button.decode,
    MsgType.TOUCH: messages.Touch.decode,
    MsgType.QUESTION: messages.Question.decode,
    MsgType.STATUS: messages.Status.decode,
}


AUTHENTIC = ("transport:opened", "message:malformed", "reply:accepted")


class Link:
    """A paired host and glasses, one live session, and the frames they really send."""

    def __init__(self, rng: random.Random) -> None:
        secret = rng.randbytes(32)
        self.host, self.glasses = Pairing.from_secret(secret, "host"), Pairing.from_secret(secret, "glasses")
        self.policy = RekeyPolicy(after_frames=50)
        init, hello = handshake.initiate(self.glasses, rng.randbytes(8))
        self.session, reply = handshake.answer(
            self.host, parse(hello), rng.randbytes(8), None, self.policy, 0
        )
        g_session = handshake.finish({init.echo: init}, parse(reply), None, self.policy, 0.0)
        self.book = HostHandshakes()
        self.corpus = [hello, reply, handshake.upgrade_frame("update the glasses' firmware"), _v1_frame(rng)]
        self.corpus += [self._sealed(g_session, rng, i) for i in range(120)]
        self.originals = set(self.corpus)

    def _sealed(self, s: Session, rng: random.Random, i: int) -> bytes:
        mtype = rng.choice([MsgType.QUESTION, MsgType.BUTTON, MsgType.STATUS, MsgType.ACK, MsgType.PING])
        payload = {
            MsgType.QUESTION: messages.Question(f"where did I put the keys {i}?").encode(),
            MsgType.BUTTON: messages.Button("main", "tap").encode(),
            MsgType.STATUS: messages.Status(50.0, False, 30.0, "normal").encode(),
            MsgType.ACK: struct.pack(">I", i),
            MsgType.PING: b"",
        }[mtype]
        return s.seal(int(mtype), rng.randrange(4), i + 1, payload, 0.0)

    def receive(self, frame: bytes) -> str:
        """What the endpoint would do with this frame: the name of the outcome."""
        try:
            raw = parse(frame)
        except FrameError as e:
            return f"frame:{e.kind}"
        try:
            if raw.header.type == MsgType.HELLO:
                self.book.answer(self.host, raw, b"H" * 8, None, self.policy, 0.0)
                return "hello:answered"
            if raw.header.type == MsgType.HELLO_REPLY:
                handshake.finish(self._initiations(), raw, None, self.policy, 0.0)
                return "reply:accepted"
            if raw.header.type == MsgType.UPGRADE:
                return "upgrade:ignored"
            h = raw.header
            plain = self.session.inbound.open(h.phase, h.nonce, raw.header_bytes, raw.payload)
        except HandshakeRefused as e:
            return f"handshake:{e.kind}"
        except ReplayedFrame:
            return "transport:replay"
        except NoiseError:
            return "transport:auth_failure"
        decode = DECODERS.get(MsgType(raw.header.type)) if raw.header.type in DECODERS else None
        if decode is not None:
            try:
                decode(plain)
            except ValueError:
                return "message:malformed"
        return "transport:opened"

    def _initiations(self) -> dict[bytes, Initiation]:
        init, _ = handshake.initiate(self.glasses, b"G" * 8)
        return {init.echo: init}


def _v1_frame(rng: random.Random) -> bytes:
    payload = rng.randbytes(24)
    body = struct.pack(">2sBBBBIIH", b"EA", 1, 1, 0, 0, 0, 0, len(payload)) + payload + bytes(16)
    return body + struct.pack(">I", zlib.crc32(body))


def _recrc(body: bytes) -> bytes:
    return body + struct.pack(">I", zlib.crc32(body))


def mutate(rng: random.Random, corpus: list[bytes]) -> bytes:
    base = bytearray(rng.choice(corpus))
    op = rng.randrange(8)
    if op == 0:
        return rng.randbytes(rng.randrange(0, 1200))
    if op == 1:
        for _ in range(rng.randrange(1, 9)):
            base[rng.randrange(len(base))] ^= 1 << rng.randrange(8)
    elif op == 2:
        for _ in range(rng.randrange(1, 5)):
            base[rng.randrange(len(base))] = rng.randrange(256)
    elif op == 3:
        del base[rng.randrange(len(base)) :]
    elif op == 4:
        base += rng.randbytes(rng.randrange(1, 64))
    elif op == 5:
        other = rng.choice(corpus)
        base = base[: rng.randrange(len(base) + 1)] + other[rng.randrange(len(other)) :]
    elif op == 6:  # a random value in one header field
        at = rng.randrange(min(HEADER_LEN, len(base)))
        base[at : at + 4] = rng.randbytes(4)
    else:  # the payload swapped for another frame's, header kept
        other = rng.choice(corpus)
        base = base[:HEADER_LEN] + other[HEADER_LEN:]
    if len(base) > 4 and rng.random() < 0.75:
        body = bytearray(base[:-4])
        if len(body) >= HEADER_LEN and rng.random() < 0.5:  # and the length field, to reach past it
            body[HEADER_LEN - 2 : HEADER_LEN] = struct.pack(">H", min(len(body) - HEADER_LEN, 0xFFFF))
        return _recrc(bytes(body))
    return bytes(base)


def run(inputs: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    link = Link(rng)
    outcomes: Counter[str] = Counter()
    deframer = StreamDeframer()
    failure = None
    slowest = 0.0
    started = time.perf_counter()
    for i in range(inputs):
        data = mutate(rng, link.corpus)
        t = time.perf_counter()
        try:
            outcome = link.receive(data)
            if (
                outcome in ("transport:opened", "message:malformed", "reply:accepted")
                and data not in link.originals
            ):
                raise AssertionError(f"a frame that is not an original authenticated: {outcome}")
            if rng.random() < 0.25:  # the serial path: COBS framing, split anywhere
                cut = rng.randrange(len(data) + 1)
                stream = cobs_frame(data)
                for part in (stream[:cut], stream[cut:]):
                    for encoded in deframer.feed(part):
                        try:
                            parse(cobs_decode(encoded))
                        except FrameError:
                            pass
        except Exception as e:  # noqa: BLE001 - recorded with the input that caused it
            failure = {"input": i, "hex": data.hex(), "error": f"{type(e).__name__}: {e}"}
            break
        slowest = max(slowest, time.perf_counter() - t)
        outcomes[outcome] += 1
    return {
        "target": "bridge receive path (frames.parse, handshake, transport open, message decode, COBS)",
        "seed": seed,
        "inputs": sum(outcomes.values()),
        "outcomes": dict(sorted(outcomes.items())),
        "forgeries_accepted": 0 if failure is None else None,
        "failure": failure,
        "slowest_input_ms": round(1000 * slowest, 3),
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": round(time.process_time(), 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--inputs", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="benchmarks/results/fuzz/bridge_protocol.json")
    args = ap.parse_args(argv)
    result = run(args.inputs, args.seed)
    path = results_io.write(args.out, result, results_io.command_line(argv))
    print(f"{result['inputs']} inputs, {result['wall_s']} s: {result['failure'] or 'clean'}; wrote {path}")
    return 1 if result["failure"] else 0


if __name__ == "__main__":
    sys.exit(main())
