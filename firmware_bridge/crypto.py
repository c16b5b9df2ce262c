"""What a pairing produces, and the sealing of transport frames under Noise's CipherStates.

The pairing code (32 random bytes, `edge-assist pair`) is expanded with HKDF-BLAKE2s into
the pre-shared key and one X25519 static key pair per side; each side pins the other's
public key. The handshake itself is Noise (`noise.py`, `handshake.py`). After it, every
frame is ChaCha20-Poly1305 under the direction's CipherState with an explicit nonce in the
frame (the radio drops and reorders, so the receiver cannot count), checked against a
sliding replay window, and each direction steps its key with Noise's Rekey() every so many
frames or seconds; a key-phase byte in the header keeps the two sides in step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge.noise import TAGLEN, CipherState, KeyPair, NoiseError, hash_, hkdf

KEY_LEN = 32
EPOCH_LEN = 8
_LABEL = b"edge-assist glasses v2 "
PHASES = 256  # the key phase travels in one byte
_MAX_PHASE_STEP = 4  # phases a receiver follows forward (every frame of a phase may be lost)
NONCE_WINDOW = 1024  # transport nonces accepted out of order behind the highest seen


class ReplayedFrame(Exception):
    """A frame whose nonce was already accepted, or is too far behind the window."""


@dataclass(frozen=True)
class Pairing:
    """One side's share of a pairing: the PSK, its own static key pair, the peer's pinned key."""

    psk: bytes
    static: KeyPair
    peer_static: bytes

    @classmethod
    def from_secret(cls, secret: bytes, role: str) -> Pairing:
        if len(secret) != KEY_LEN:
            raise ValueError(f"the pairing secret has {KEY_LEN} bytes")
        psk, host_priv, glasses_priv = hkdf(secret, _LABEL + b"pairing", 3)
        host, glasses = KeyPair.from_private(host_priv), KeyPair.from_private(glasses_priv)
        if role == "host":
            return cls(psk, host, glasses.public)
        return cls(psk, glasses, host.public)


def fingerprint(secret: bytes) -> str:
    """A short code both sides show, so the wearer can check they paired with each other.

    It hashes the two public keys, so showing it reveals nothing of the secret."""
    host = Pairing.from_secret(secret, "host")
    digest = hash_(_LABEL + b"fingerprint" + host.static.public + host.peer_static)[:4].hex().upper()
    return f"{digest[:4]}-{digest[4:]}"


@dataclass(frozen=True)
class RekeyPolicy:
    after_frames: int = 10_000
    after_s: float = 120.0


class Outbound:
    """One direction's sending side: nonces count up from 0, the key steps forward by policy."""

    def __init__(self, cipher: CipherState, policy: RekeyPolicy, now: float) -> None:
        self._cipher = cipher
        self._policy = policy
        self.phase = 0
        self.rekeys = 0
        self._phase_start_n = 0
        self._phase_start_t = now

    def next(self, now: float) -> tuple[int, int]:
        """The (key phase, nonce) the next frame is sealed with; steps the key first when due."""
        c, p = self._cipher, self._policy
        if c.n - self._phase_start_n >= p.after_frames or now - self._phase_start_t >= p.after_s:
            c.rekey()
            self.phase = (self.phase + 1) % PHASES
            self.rekeys += 1
            self._phase_start_n, self._phase_start_t = c.n, now
        return self.phase, c.n

    def seal(self, header: bytes, plaintext: bytes) -> bytes:
        """Encrypt under the nonce `next()` gave; the header is the associated data."""
        return self._cipher.encrypt_with_ad(header, plaintext)


@dataclass
class NonceWindow:
    """Sliding window over transport nonces (a bitmap behind the highest, as in RFC 6479)."""

    size: int = NONCE_WINDOW
    highest: int = -1
    bits: int = 0

    def fresh(self, n: int) -> bool:
        if n > self.highest:
            return True
        behind = self.highest - n
        return behind < self.size and not (self.bits >> behind) & 1

    def mark(self, n: int) -> None:
        if n > self.highest:
            shift = n - self.highest
            self.bits = ((self.bits << shift) | 1) & ((1 << self.size) - 1) if shift < self.size else 1
            self.highest = n
        else:
            self.bits |= 1 << (self.highest - n)


@dataclass
class Inbound:
    """One direction's receiving side: the current key, the previous one (for frames still in
    flight when the sender stepped), and the replay window."""

    cipher: CipherState
    phase: int = 0
    previous: CipherState | None = None
    window: NonceWindow = field(default_factory=NonceWindow)
    rekeys: int = 0

    def open(self, phase: int, nonce: int, header: bytes, ciphertext: bytes) -> bytes:
        """Decrypt and authenticate; raises ReplayedFrame or NoiseError. Marks the nonce seen."""
        if not self.window.fresh(nonce):
            raise ReplayedFrame(f"nonce {nonce} already seen or too old")
        step = (phase - self.phase) % PHASES
        chain: list[CipherState] = []
        if step == 0:
            cipher = self.cipher
        elif step == PHASES - 1 and self.previous is not None:
            cipher = self.previous
        elif 1 <= step <= _MAX_PHASE_STEP:
            assert self.cipher.k is not None
            cipher = CipherState(self.cipher.k)
            for _ in range(step):
                cipher.rekey()
                chain.append(CipherState(cipher.k))
        else:
            raise NoiseError(f"key phase {phase} is out of step with {self.phase}")
        if len(ciphertext) < TAGLEN:
            raise NoiseError("ciphertext shorter than its tag")
        cipher.set_nonce(nonce)
        plaintext = cipher.decrypt_with_ad(header, ciphertext)
        if chain:  # authentic under a later key: the sender stepped, follow it
            self.previous = chain[-2] if len(chain) > 1 else self.cipher
            self.cipher, self.phase = chain[-1], phase
            self.rekeys += len(chain)
        self.window.mark(nonce)
        return plaintext
