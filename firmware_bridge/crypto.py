"""Keys and sealing for the glasses protocol, built on HMAC-SHA256 alone.

Why only HMAC-SHA256: every glasses SoC and microcontroller has SHA-256 in ROM or in a
few hundred bytes of C, and the stdlib has it, so neither side needs a crypto library.
Confidentiality is HMAC-SHA256 used as a PRF in counter mode (keystream block i of
message seq = HMAC(k_enc, seq || i)); integrity is encrypt-then-MAC over header and
ciphertext. Each (key, direction, seq) is used for one plaintext only: sequence numbers
never repeat within a sender's epoch, and every connection derives fresh keys from two
fresh nonces, so a frame recorded earlier neither decrypts nor verifies later.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass

from firmware_bridge.frames import TAG_LEN

KEY_LEN = 32
NONCE_LEN = 16
EPOCH_LEN = 8
_LABEL = b"edge-assist bridge v1 "


def _prf(key: bytes, *parts: bytes) -> bytes:
    return hmac.new(key, b"".join(parts), hashlib.sha256).digest()


def hello_key(pairing_key: bytes) -> bytes:
    """MAC key for HELLO frames, which come before any session exists."""
    return _prf(pairing_key, _LABEL, b"hello")


def mac(key: bytes, header: bytes, payload: bytes) -> bytes:
    return _prf(key, header, payload)[:TAG_LEN]


def verify(key: bytes, header: bytes, payload: bytes, tag: bytes) -> bool:
    return hmac.compare_digest(mac(key, header, payload), tag)


def keystream_xor(key: bytes, seq: int, data: bytes) -> bytes:
    """Encrypt or decrypt (the same operation) `data` sent with sequence number `seq`."""
    if not data:
        return b""
    out = bytearray(len(data))
    for block in range((len(data) + 31) // 32):
        ks = _prf(key, struct.pack(">II", seq, block))
        start = block * 32
        chunk = data[start : start + 32]
        out[start : start + len(chunk)] = bytes(a ^ b for a, b in zip(chunk, ks, strict=False))
    return bytes(out)


@dataclass(frozen=True)
class SessionKeys:
    """Per-connection keys; `g2h` = glasses to host, `h2g` = host to glasses."""

    session_id: int
    enc_g2h: bytes
    mac_g2h: bytes
    enc_h2g: bytes
    mac_h2g: bytes

    def for_role(self, role: str) -> tuple[bytes, bytes, bytes, bytes]:
        """(enc_out, mac_out, enc_in, mac_in) for the side playing `role`."""
        if role == "host":
            return self.enc_h2g, self.mac_h2g, self.enc_g2h, self.mac_g2h
        return self.enc_g2h, self.mac_g2h, self.enc_h2g, self.mac_h2g


def derive_session(pairing_key: bytes, nonce_glasses: bytes, nonce_host: bytes) -> SessionKeys:
    prk = _prf(pairing_key, _LABEL, b"session", nonce_glasses, nonce_host)
    sid = struct.unpack(">I", _prf(prk, b"id")[:4])[0] or 1  # 0 is reserved for HELLO
    return SessionKeys(
        session_id=sid,
        enc_g2h=_prf(prk, b"enc g2h"),
        mac_g2h=_prf(prk, b"mac g2h"),
        enc_h2g=_prf(prk, b"enc h2g"),
        mac_h2g=_prf(prk, b"mac h2g"),
    )


def fingerprint(pairing_key: bytes) -> str:
    """A short code both sides can show, so the wearer can check they hold the same key."""
    digest = _prf(pairing_key, _LABEL, b"fingerprint")[:4].hex().upper()
    return f"{digest[:4]}-{digest[4:]}"
