"""What one end of the glasses link keeps: its timing, its counters, the session keys, the
messages waiting for an acknowledgement, and the window of sequence numbers already seen."""

from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field

from firmware_bridge import crypto
from firmware_bridge.frames import Header, MsgType, build
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
    sid: int
    enc_out: bytes
    mac_out: bytes
    enc_in: bytes
    mac_in: bytes
    peer_epoch: bytes
    addr: Address

    @classmethod
    def derive(
        cls, key: bytes, nonce_g: bytes, nonce_h: bytes, role: str, peer_epoch: bytes, addr: Address
    ) -> Session:
        """The session both ends derive from the pairing key and the two HELLO nonces."""
        keys = crypto.derive_session(key, nonce_g, nonce_h)
        enc_out, mac_out, enc_in, mac_in = keys.for_role(role)
        return cls(keys.session_id, enc_out, mac_out, enc_in, mac_in, peer_epoch, addr)


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


def handshake_frame(mtype: MsgType, session: int, payload: bytes, mac_key: bytes) -> bytes:
    """A HELLO or HELLO_REPLY: sent in the clear (nonces and epochs), authenticated by its MAC."""
    header = Header(int(mtype), 0, session, 0, len(payload))
    return build(header, payload, crypto.mac(mac_key, header.pack(), payload))
