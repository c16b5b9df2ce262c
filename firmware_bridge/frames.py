"""Wire format of the glasses protocol: header, frame layout, COBS framing for byte streams.

A frame is `header (24 B) | payload | crc32 (4 B)`; see PROTOCOL.md. The payload is a Noise
handshake message or a ChaCha20-Poly1305 ciphertext with its 16-byte tag. This module only
packs and unpacks bytes: what the fields mean (sessions, keys, acks) lives in `endpoint.py`.
Parsing never trusts a length it has not checked, and reads the version before anything
that version may have changed, so a peer of another version gets a clear error.
"""

from __future__ import annotations

import enum
import struct
import zlib
from dataclasses import dataclass

MAGIC = b"EA"
VERSION = 2
# magic, version, type, flags, key phase, session, seq, nonce, length
HEADER = struct.Struct(">2sBBBBIIQH")
HEADER_LEN = HEADER.size
AEAD_TAG_LEN = 16  # Poly1305, inside the payload of every sealed frame
CRC_LEN = 4
OVERHEAD = HEADER_LEN + CRC_LEN
# Small enough for a BLE-serial bridge or one UDP datagram without fragmentation.
MAX_PAYLOAD = 1024  # plaintext of one message
MAX_BODY = MAX_PAYLOAD + AEAD_TAG_LEN  # what the length field may say
_VERSION_AT = len(MAGIC)


class MsgType(enum.IntEnum):
    HELLO = 0x01  # glasses -> host: pattern id, Noise message 1 (clear framing, sealed inside)
    HELLO_REPLY = 0x02  # host -> glasses: echo of the glasses' ephemeral, Noise message 2
    READY = 0x03  # glasses -> host: completes the handshake
    ACK = 0x04  # either way: payload = the acknowledged sequence number
    PING = 0x05  # glasses -> host heartbeat (ack required)
    UPGRADE = 0x06  # either way, in the clear: "your frames are of another version"
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

    def __init__(self, kind: str, detail: str, peer_version: int | None = None) -> None:
        super().__init__(detail)
        self.kind = kind
        self.peer_version = peer_version


@dataclass(frozen=True)
class Header:
    type: int
    flags: int
    session: int
    seq: int
    length: int
    nonce: int = 0
    phase: int = 0
    version: int = VERSION

    def pack(self) -> bytes:
        return HEADER.pack(
            MAGIC,
            self.version,
            self.type,
            self.flags,
            self.phase,
            self.session,
            self.seq,
            self.nonce,
            self.length,
        )


@dataclass(frozen=True)
class RawFrame:
    header: Header
    header_bytes: bytes  # the associated data of the sealed payload
    payload: bytes  # a handshake message or a ciphertext with its tag


def build(header: Header, payload: bytes) -> bytes:
    if len(payload) != header.length:
        raise ValueError("header length does not match the payload")
    body = header.pack() + payload
    return body + struct.pack(">I", zlib.crc32(body))


def parse(frame: bytes) -> RawFrame:
    """Check CRC, magic, version, then size; return the parts. Raises FrameError."""
    if len(frame) < _VERSION_AT + 1 + CRC_LEN:
        raise FrameError("corrupt", f"frame of {len(frame)} bytes is too short")
    body, crc = frame[:-CRC_LEN], frame[-CRC_LEN:]
    if struct.unpack(">I", crc)[0] != zlib.crc32(body):
        raise FrameError("corrupt", "CRC mismatch")
    if body[:_VERSION_AT] != MAGIC:
        raise FrameError("corrupt", "bad magic")
    version = body[_VERSION_AT]
    if version != VERSION:
        raise FrameError("version", f"protocol version {version}, this side speaks {VERSION}", version)
    if len(body) < HEADER_LEN:
        raise FrameError("corrupt", f"frame of {len(frame)} bytes is shorter than {OVERHEAD}")
    _magic, _v, mtype, flags, phase, session, seq, nonce, length = HEADER.unpack_from(body)
    if length > MAX_BODY or HEADER_LEN + length != len(body):
        raise FrameError("corrupt", "length field does not match the frame")
    header = Header(mtype, flags, session, seq, length, nonce, phase, version)
    return RawFrame(header, body[:HEADER_LEN], body[HEADER_LEN:])


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

    def __init__(self, max_frame: int = 2 * (MAX_BODY + OVERHEAD)) -> None:
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
