"""Wire format and sealing of the glasses protocol, byte by byte."""

from __future__ import annotations

import os
import random
import stat
import struct
import zlib

import pytest

from firmware_bridge.frames import (
    HEADER_LEN,
    OVERHEAD,
    FrameError,
    Header,
    MsgType,
    StreamDeframer,
    build,
    cobs_decode,
    cobs_encode,
    parse,
    stream_encode,
)
from firmware_bridge.keys import PairingError, format_key, generate_key, load_key, parse_key, store_key
from firmware_bridge.messages import AudioChunk, HudText, Status, split_audio


def test_cobs_round_trip_and_no_zero_bytes() -> None:
    rng = random.Random(7)
    cases = [b"", b"\x00", b"\x00\x00", bytes(range(256)), bytes(300), bytes([1]) * 254, bytes([1]) * 255]
    cases += [bytes(rng.randrange(256) for _ in range(rng.randrange(0, 1200))) for _ in range(50)]
    for data in cases:
        enc = cobs_encode(data)
        assert 0 not in enc
        assert cobs_decode(enc) == data


def test_deframer_reassembles_across_arbitrary_splits() -> None:
    frames = [os.urandom(n) for n in (40, 1, 700, 0, 90)]
    stream = b"".join(stream_encode(f) for f in frames if f)
    rng = random.Random(3)
    d = StreamDeframer()
    got: list[bytes] = []
    i = 0
    while i < len(stream):
        n = rng.randrange(1, 30)
        got += [cobs_decode(x) for x in d.feed(stream[i : i + n])]
        i += n
    assert got == [f for f in frames if f]


def _frame(payload: bytes = b"hello") -> bytes:
    h = Header(int(MsgType.QUESTION), 1, 0xABCD, 42, len(payload), nonce=7, phase=1)
    return build(h, payload)


def test_parse_round_trip_and_every_single_bit_flip_is_caught() -> None:
    frame = _frame()
    raw = parse(frame)
    h = raw.header
    assert (h.type, h.seq, h.session, h.nonce, h.phase, raw.payload) == (
        MsgType.QUESTION,
        42,
        0xABCD,
        7,
        1,
        b"hello",
    )
    assert raw.header_bytes == frame[:HEADER_LEN] and len(frame) == OVERHEAD + 5
    for i in range(len(frame)):
        for bit in range(8):
            bad = bytearray(frame)
            bad[i] ^= 1 << bit
            with pytest.raises(FrameError) as e:
                parse(bytes(bad))
            assert e.value.kind == "corrupt"


def _v1_frame(payload: bytes) -> bytes:
    # Version 1's layout (16-byte header, payload, 16-byte HMAC tag, CRC), as old glasses send it.
    body = struct.pack(">2sBBBBIIH", b"EA", 1, int(MsgType.HELLO), 0, 0, 0, 0, len(payload))
    body += payload + bytes(16)
    return body + struct.pack(">I", zlib.crc32(body))


def test_other_version_is_reported_as_such() -> None:
    for frame, version in ((_v1_frame(bytes(24)), 1), (build(Header(5, 0, 1, 1, 1, version=3), b"x"), 3)):
        with pytest.raises(FrameError) as e:
            parse(frame)
        assert e.value.kind == "version" and e.value.peer_version == version
    with pytest.raises(FrameError):
        parse(b"short")


def test_key_file_is_private_and_round_trips(tmp_path) -> None:
    key = generate_key()
    path = tmp_path / "sub" / "pairing.key"
    store_key(path, key)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_key(path) == key
    assert parse_key(format_key(key)) == key
    with pytest.raises(PairingError, match="--force"):
        store_key(path, generate_key())
    os.chmod(path, 0o644)
    with pytest.raises(PairingError, match="chmod 600"):
        load_key(path)
    with pytest.raises(PairingError, match="edge-assist pair"):
        load_key(tmp_path / "missing.key")
    with pytest.raises(PairingError, match="64 hex"):
        parse_key("not a key")


def test_messages_validate() -> None:
    hud = HudText("Careful: knife", priority=3, duration_s=4.0, id=7)
    assert HudText.decode(hud.encode()) == hud
    assert len(HudText.decode(HudText("x" * 1000).encode()).text) <= 280
    with pytest.raises(ValueError):
        HudText.decode(b'{"text": "", "priority": 1}')
    with pytest.raises(ValueError):
        Status.decode(b'{"battery_pct": 140}')
    with pytest.raises(ValueError):
        Status.decode(b"\xff\xfe")
    pcm = os.urandom(5000) + b"\x00"
    chunks = split_audio(pcm[: len(pcm) // 2 * 2], 16000, 1)
    assert chunks[-1].last and not chunks[0].last
    assert b"".join(AudioChunk.decode(c.encode()).pcm for c in chunks) == pcm[: len(pcm) // 2 * 2]
