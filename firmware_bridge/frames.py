"""Wire format of the glasses protocol: header, frame layout, COBS framing for byte streams.

A frame is `header (16 B) | payload | tag (16 B) | crc32 (4 B)`; see PROTOCOL.md. This
module only packs and unpacks bytes: what the fields mean (sessions, keys, acks) lives in
`endpoint.py`. Parsing never trusts a length it has not checked.
"""

from __future__ import annotations

import enum
import struct
import zlib
from dataclasses import dataclass

MAGIC = b"EA"
VERSION = 1
HEADER = struct.Struct(">2sBBBBIIH")  # magic, version, type, flags, reserved, session, seq, length
HEADER_LEN = HEADER.size
TAG_LEN = 16  # HMAC-SHA256 truncated to 128 bits
CRC_LEN = 4
OVERHEAD = HEADER_LEN + TAG_LEN + CRC_LEN
# Small enough for a BLE-serial bridge or one UDP datagram without fragmentation.
MAX_PAYLOAD = 1024


class MsgType(enum.IntEnum):
    HELLO = 0x01  # glasses -> host: epoch, nonce (MAC with the pairing key)
    HELLO_REPLY = 0x02  # host -> glasses: epoch, nonce, echoed nonce (MAC with the session key)
    READY = 0x03  # glasses -> host: completes the handshake
    ACK = 0x04  # either way: payload = the acknowledged sequence number
    PING = 0x05  # glasses -> host heartbeat (ack required)
    HUD_TEXT = 0x10  # host -> glasses, JSON
    AUDIO = 0x11  # host -> glasses, binary PCM chunk
    BUTTON = 0x20  # glasses -> host, JSON
    TOUCH = 0x21  # glasses -> host, JSON
    QUESTION = 0x22  # glasses -> host, JSON
    STATUS = 0x23  # glasses -> host, JSON


class Flag(enum.IntFlag):
    NONE = 0
    ACK_REQUIRED = 0x01
    RETRANSMIT = 0x02  # informational: this is not the first transmission of this seq


class FrameError(Exception):
    """A frame that cannot be parsed; `kind` names the counter it increments."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


@dataclass(frozen=True)
class Header:
    type: int
    flags: int
    session: int
    seq: int
    length: int
    version: int = VERSION

    def pack(self) -> bytes:
        return HEADER.pack(MAGIC, self.version, self.type, self.flags, 0, self.session, self.seq, self.length)


@dataclass(frozen=True)
class RawFrame:
    header: Header
    header_bytes: bytes
    payload: bytes  # still encrypted for data frames
    tag: bytes


def build(header: Header, payload: bytes, tag: bytes) -> bytes:
    if len(payload) != header.length:
        raise ValueError("header length does not match the payload")
    body = header.pack() + payload + tag
    return body + struct.pack(">I", zlib.crc32(body))


def parse(frame: bytes) -> RawFrame:
    """Check size, CRC, magic and version; return the parts. Raises FrameError."""
    if len(frame) < OVERHEAD:
        raise FrameError("corrupt", f"frame of {len(frame)} bytes is shorter than {OVERHEAD}")
    body, crc = frame[:-CRC_LEN], frame[-CRC_LEN:]
    if struct.unpack(">I", crc)[0] != zlib.crc32(body):
        raise FrameError("corrupt", "CRC mismatch")
    magic, version, mtype, flags, _res, session, seq, length = HEADER.unpack_from(body)
    if magic != MAGIC:
        raise FrameError("corrupt", "bad magic")
    if version != VERSION:
        raise FrameError("version", f"protocol version {version}, this side speaks {VERSION}")
    if length > MAX_PAYLOAD or HEADER_LEN + length + TAG_LEN != len(body):
        raise FrameError("corrupt", "length field does not match the frame")
    header = Header(mtype, flags, session, seq, length, version)
    return RawFrame(
        header, body[:HEADER_LEN], body[HEADER_LEN : HEADER_LEN + length], body[HEADER_LEN + length :]
    )


# -- COBS: byte-stuffing so 0x00 can delimit frames on a serial line --------------------
# A corrupted or truncated frame then costs only itself: the reader resyncs at the next 0x00.


def cobs_encode(data: bytes) -> bytes:
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out += block
            block.clear()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out += block
                block.clear()
    out.append(len(block) + 1)
    out += block
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("corrupt", "zero byte inside a COBS block")
        end = i + code
        if end > n:
            raise FrameError("corrupt", "truncated COBS block")
        out += data[i + 1 : end]
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


class StreamDeframer:
    """Split a byte stream into COBS-decoded frames at 0x00 delimiters."""

    def __init__(self, max_frame: int = 2 * (MAX_PAYLOAD + OVERHEAD)) -> None:
        self._buf = bytearray()
        self._max = max_frame
        self.overflows = 0

    def feed(self, data: bytes) -> list[bytes]:
        """Return the COBS-encoded frames completed by `data` (decode each with cobs_decode)."""
        frames: list[bytes] = []
        parts = data.split(b"\x00")
        for part in parts[:-1]:
            self._buf += part
            if self._buf:
                frames.append(bytes(self._buf))
            self._buf.clear()
        self._buf += parts[-1]
        if len(self._buf) > self._max:
            # Line noise without a delimiter: drop it rather than grow without bound.
            self._buf.clear()
            self.overflows += 1
        return frames


def stream_encode(frame: bytes) -> bytes:
    return cobs_encode(frame) + b"\x00"
