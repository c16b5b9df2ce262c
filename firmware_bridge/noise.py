"""The Noise Protocol Framework (revision 34), for one suite: 25519, ChaChaPoly, BLAKE2s.

Written from the specification's pseudocode, section by section, so that a firmware author
can hold it next to noise-c or the spec: `CipherState` (5.1), `SymmetricState` (5.2) with
HKDF over HMAC-BLAKE2s (4.3), and `HandshakeState` (5.3) with the psk modifier (9).
The primitives come from `cryptography` (X25519, ChaCha20-Poly1305) and the stdlib
(BLAKE2s); nothing here is our own cryptography. What the glasses link does with it (which
pattern, which keys, the frames) lives in `crypto.py` and `handshake.py`.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

DHLEN = 32
HASHLEN = 32
TAGLEN = 16
MAX_NONCE = 2**64 - 1  # reserved by the spec (Rekey uses it); never sent
MAX_MESSAGE = 65535


class NoiseError(Exception):
    """A handshake or transport message that does not authenticate, or a misuse of a state."""


# -- the suite's functions (section 12) ---------------------------------------------------


def hash_(data: bytes) -> bytes:
    return hashlib.blake2s(data).digest()


def hmac_hash(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.blake2s).digest()


def hkdf(chaining_key: bytes, ikm: bytes, num_outputs: int) -> tuple[bytes, ...]:
    """HKDF as the spec defines it (4.3): two or three HASHLEN outputs."""
    temp_key = hmac_hash(chaining_key, ikm)
    out1 = hmac_hash(temp_key, b"\x01")
    out2 = hmac_hash(temp_key, out1 + b"\x02")
    if num_outputs == 2:
        return out1, out2
    return out1, out2, hmac_hash(temp_key, out2 + b"\x03")


@dataclass(frozen=True)
class KeyPair:
    private: bytes
    public: bytes

    @classmethod
    def from_private(cls, private: bytes) -> KeyPair:
        if len(private) != DHLEN:
            raise ValueError(f"an X25519 private key has {DHLEN} bytes")
        pub = X25519PrivateKey.from_private_bytes(private).public_key().public_bytes_raw()
        return cls(private, pub)

    @classmethod
    def generate(cls) -> KeyPair:
        return cls.from_private(X25519PrivateKey.generate().private_bytes_raw())


def dh(key_pair: KeyPair, public: bytes) -> bytes:
    try:
        return X25519PrivateKey.from_private_bytes(key_pair.private).exchange(
            X25519PublicKey.from_public_bytes(public)
        )
    except ValueError as e:  # a low-order point gives the all-zero secret: refused
        raise NoiseError(f"invalid public key: {e}") from None


def _nonce(n: int) -> bytes:
    # ChaChaPoly (12.3): 32 bits of zeros, then the 64-bit nonce little-endian.
    return b"\x00\x00\x00\x00" + struct.pack("<Q", n)


# -- 5.1 CipherState -------------------------------------------------------------------


class CipherState:
    def __init__(self, key: bytes | None = None) -> None:
        self.k: bytes | None = None
        self.n = 0
        self._aead: ChaCha20Poly1305 | None = None
        self.initialize_key(key)

    def initialize_key(self, key: bytes | None) -> None:
        self.k = key
        self.n = 0
        self._aead = ChaCha20Poly1305(key) if key is not None else None

    def has_key(self) -> bool:
        return self.k is not None

    def set_nonce(self, n: int) -> None:
        self.n = n

    def encrypt_with_ad(self, ad: bytes, plaintext: bytes) -> bytes:
        if self._aead is None:
            return plaintext
        if self.n >= MAX_NONCE:
            raise NoiseError("nonce exhausted: a new handshake is needed")
        ct = self._aead.encrypt(_nonce(self.n), plaintext, ad)
        self.n += 1
        return ct

    def decrypt_with_ad(self, ad: bytes, ciphertext: bytes) -> bytes:
        if self._aead is None:
            return ciphertext
        if self.n >= MAX_NONCE:
            raise NoiseError("nonce exhausted: a new handshake is needed")
        try:
            pt = self._aead.decrypt(_nonce(self.n), ciphertext, ad)
        except InvalidTag:
            raise NoiseError("message does not authenticate") from None
        self.n += 1  # only on success, as the spec says
        return pt

    def rekey(self) -> None:
        """REKEY(k) = ENCRYPT(k, maxnonce, zerolen, zeros)[:32]; n is left as it is."""
        assert self._aead is not None and self.k is not None
        new_key = self._aead.encrypt(_nonce(MAX_NONCE), bytes(32), b"")[:32]
        n = self.n
        self.initialize_key(new_key)
        self.n = n


# -- 5.2 SymmetricState --------------------------------------------------------------------


class SymmetricState:
    def __init__(self, protocol_name: bytes) -> None:
        self.h = (
            protocol_name.ljust(HASHLEN, b"\x00") if len(protocol_name) <= HASHLEN else hash_(protocol_name)
        )
        self.ck = self.h
        self.cipher = CipherState()

    def mix_key(self, ikm: bytes) -> None:
        self.ck, temp_k = hkdf(self.ck, ikm, 2)
        self.cipher.initialize_key(temp_k)

    def mix_hash(self, data: bytes) -> None:
        self.h = hash_(self.h + data)

    def mix_key_and_hash(self, ikm: bytes) -> None:
        self.ck, temp_h, temp_k = hkdf(self.ck, ikm, 3)
        self.mix_hash(temp_h)
        self.cipher.initialize_key(temp_k)

    def encrypt_and_hash(self, plaintext: bytes) -> bytes:
        ct = self.cipher.encrypt_with_ad(self.h, plaintext)
        self.mix_hash(ct)
        return ct

    def decrypt_and_hash(self, ciphertext: bytes) -> bytes:
        pt = self.cipher.decrypt_with_ad(self.h, ciphertext)
        self.mix_hash(ciphertext)
        return pt

    def split(self) -> tuple[CipherState, CipherState]:
        temp_k1, temp_k2 = hkdf(self.ck, b"", 2)
        return CipherState(temp_k1), CipherState(temp_k2)


# -- 5.3 HandshakeState, 7 patterns, 9 the psk modifier ---------------------------------------

# pattern name -> (pre-messages of initiator, of responder; message patterns). The one the
# glasses speak, plus XXpsk3 for a firmware that cannot hold the host's key beforehand.
PATTERNS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, ...], ...]]] = {
    "IKpsk2": ((), ("s",), (("e", "es", "s", "ss"), ("e", "ee", "se", "psk"))),
    "XXpsk3": ((), (), (("e",), ("e", "ee", "s", "es"), ("s", "se", "psk"))),
}


def protocol_name(pattern: str) -> bytes:
    return f"Noise_{pattern}_25519_ChaChaPoly_BLAKE2s".encode()


@dataclass
class HandshakeState:
    """One side of a handshake. Call write_message/read_message in the pattern's order;
    the last one returns the pair of transport CipherStates (initiator->responder first)."""

    pattern: str
    initiator: bool
    prologue: bytes = b""
    s: KeyPair | None = None
    e: KeyPair | None = None  # preset only by test vectors; otherwise generated
    rs: bytes | None = None
    re: bytes | None = None
    psk: bytes | None = None
    symmetric: SymmetricState = field(init=False)
    messages: list[tuple[str, ...]] = field(init=False)

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise NoiseError(f"pattern {self.pattern} is not supported")
        if "psk" in self.pattern and (self.psk is None or len(self.psk) != 32):
            raise NoiseError("a psk pattern needs a 32-byte pre-shared key")
        pre_i, pre_r, msgs = PATTERNS[self.pattern]
        self.symmetric = SymmetricState(protocol_name(self.pattern))
        self.symmetric.mix_hash(self.prologue)
        for token in pre_i:
            self._mix_pre(token, self.s if self.initiator else None, None if self.initiator else self.rs)
        for token in pre_r:
            self._mix_pre(token, None if self.initiator else self.s, self.rs if self.initiator else None)
        self.messages = [tuple(m) for m in msgs]

    def _mix_pre(self, token: str, mine: KeyPair | None, theirs: bytes | None) -> None:
        public = mine.public if mine is not None else theirs
        if token != "s" or public is None:
            raise NoiseError("a pre-message static key is missing")
        self.symmetric.mix_hash(public)

    @property
    def handshake_hash(self) -> bytes:
        return self.symmetric.h

    @property
    def finished(self) -> bool:
        return not self.messages

    def _is_psk(self) -> bool:
        return "psk" in self.pattern

    def _dh_token(self, token: str) -> None:
        a, b = token[0], token[1]
        # es: initiator's e with responder's s; se: initiator's s with responder's e.
        if not self.initiator:
            a, b = b, a
        local = self.e if a == "e" else self.s
        remote = self.re if b == "e" else self.rs
        if local is None or remote is None:
            raise NoiseError(f"token {token} needs a key this side does not have")
        self.symmetric.mix_key(dh(local, remote))

    def write_message(self, payload: bytes) -> tuple[bytes, tuple[CipherState, CipherState] | None]:
        if not self.messages:
            raise NoiseError("the handshake is already finished")
        out = bytearray()
        for token in self.messages.pop(0):
            if token == "e":
                if self.e is None:
                    self.e = KeyPair.generate()
                out += self.e.public
                self.symmetric.mix_hash(self.e.public)
                if self._is_psk():
                    self.symmetric.mix_key(self.e.public)
            elif token == "s":
                assert self.s is not None
                out += self.symmetric.encrypt_and_hash(self.s.public)
            elif token == "psk":
                assert self.psk is not None
                self.symmetric.mix_key_and_hash(self.psk)
            else:
                self._dh_token(token)
        out += self.symmetric.encrypt_and_hash(payload)
        if len(out) > MAX_MESSAGE:
            raise NoiseError("handshake message too long")
        return bytes(out), (self.symmetric.split() if not self.messages else None)

    def read_message(self, message: bytes) -> tuple[bytes, tuple[CipherState, CipherState] | None]:
        if not self.messages:
            raise NoiseError("the handshake is already finished")
        message = bytes(message)
        pos = 0
        for token in self.messages.pop(0):
            if token == "e":
                self.re = message[pos : pos + DHLEN]
                pos += DHLEN
                if len(self.re) != DHLEN:
                    raise NoiseError("handshake message too short")
                self.symmetric.mix_hash(self.re)
                if self._is_psk():
                    self.symmetric.mix_key(self.re)
            elif token == "s":
                n = DHLEN + (TAGLEN if self.symmetric.cipher.has_key() else 0)
                if len(message) < pos + n:
                    raise NoiseError("handshake message too short")
                self.rs = self.symmetric.decrypt_and_hash(message[pos : pos + n])
                pos += n
            elif token == "psk":
                assert self.psk is not None
                self.symmetric.mix_key_and_hash(self.psk)
            else:
                self._dh_token(token)
        payload = self.symmetric.decrypt_and_hash(message[pos:])
        return payload, (self.symmetric.split() if not self.messages else None)
