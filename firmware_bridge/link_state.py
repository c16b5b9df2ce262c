"""What one end of the glasses link keeps: its timing, its counters, the session's ciphers,
the messages waiting for an acknowledgement, and the window of sequence numbers already seen."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field

from firmware_bridge.crypto import Inbound, Outbound, RekeyPolicy
from firmware_bridge.frames import AEAD_TAG_LEN, Header, MsgType, build
from firmware_bridge.transports import Address

# Sequence numbers accepted out of order behind the highest seen; older ones are replays.
REPLAY_WINDOW = 256


@dataclass(frozen=True)
class Timing:
    ack_timeout_s: float = 0.3
    max_retries: int = 5
    heartbeat_s: float = 2.0
    reopen_s: float = 1.0
    pending_max: int = 64
    # Noise Rekey() of each direction's key; a new handshake on every reconnect besides.
    rekey_after_frames: int = 10_000
    rekey_after_s: float = 120.0

    @property
    def rekey(self) -> RekeyPolicy:
        return RekeyPolicy(self.rekey_after_frames, self.rekey_after_s)

    @property
    def peer_timeout_s(self) -> float:
        # Three missed heartbeats and the host stops addressing the old session.
        return 3 * self.heartbeat_s + self.ack_timeout_s


@dataclass
class Counters:
    sent: int = 0
    delivered: int = 0
    retransmits: int = 0
    acked: int = 0
    sessions: int = 0
    corrupt: int = 0
    auth_failures: int = 0
    replays: int = 0
    unknown_session: int = 0
    version_errors: int = 0
    malformed: int = 0
    dropped_offline: int = 0
    dropped_pending: int = 0
    backpressure: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class Session:
    """A completed handshake: the id both ends derived from its hash, and one cipher per direction."""

    sid: int
    outbound: Outbound
    inbound: Inbound
    peer_epoch: bytes
    addr: Address

    def seal(self, mtype: int, flags: int, seq: int, payload: bytes, now: float) -> bytes:
        """One transport frame. A retransmission is sealed afresh under a new nonce: a nonce
        never covers two different frames (that would give away the Poly1305 key)."""
        phase, nonce = self.outbound.next(now)
        header = Header(mtype, flags, self.sid, seq, len(payload) + AEAD_TAG_LEN, nonce, phase)
        return build(header, self.outbound.seal(header.pack(), payload))


@dataclass
class Pending:
    seq: int
    mtype: MsgType
    payload: bytes
    keep_across_sessions: bool = True
    sent_at: float = -1.0
    tries: int = 0
    done: asyncio.Future[None] | None = field(default=None, repr=False)


@dataclass
class ReplayWindow:
    """The sequence numbers seen from one peer process (its epoch): a number seen before, or
    more than REPLAY_WINDOW behind the highest, is a duplicate or a replay."""

    epoch: bytes = b""
    highest: int = 0
    seen: set[int] = field(default_factory=set)

    def restart_for(self, epoch: bytes) -> None:
        if epoch != self.epoch:
            # A new peer process: its sequence numbers start again.
            self.epoch, self.highest, self.seen = epoch, 0, set()

    def is_replay(self, seq: int) -> bool:
        return seq <= self.highest - REPLAY_WINDOW or seq in self.seen

    def mark(self, seq: int) -> None:
        self.seen.add(seq)
        if seq > self.highest:
            self.highest = seq
        if len(self.seen) > 2 * REPLAY_WINDOW:
            floor = self.highest - REPLAY_WINDOW
            self.seen = {q for q in self.seen if q > floor}
