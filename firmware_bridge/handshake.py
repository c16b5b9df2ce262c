"""The glasses link's handshake: Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s in two frames.

    HELLO        glasses -> host   pattern id (1) | Noise message 1: e, es, s, ss; payload = epoch
    HELLO_REPLY  host -> glasses   echo of the glasses' ephemeral (8) | message 2: e, ee, se, psk

IK is WireGuard's pattern: the glasses (initiator) know the host's static key from the
pairing, so the handshake takes one round trip; the host checks that the static key the
glasses send is the pinned one. Fresh ephemeral keys on both sides give forward secrecy;
the pre-shared key (psk2) means an attacker needs the pairing secret as well as a static
private key. The pattern id travels in the clear so a peer asking for another handshake
gets a clear refusal, and it is bound into the prologue so it cannot be changed in flight.
"""

from __future__ import annotations

import hmac
from collections import OrderedDict
from dataclasses import dataclass, field

from firmware_bridge.crypto import EPOCH_LEN, Inbound, Outbound, Pairing, RekeyPolicy
from firmware_bridge.frames import MAX_PAYLOAD, VERSION, Header, MsgType, RawFrame, build
from firmware_bridge.link_state import Session
from firmware_bridge.noise import CipherState, HandshakeState, NoiseError, protocol_name
from firmware_bridge.transports import Address

PATTERN = "IKpsk2"
PATTERN_ID = 1
# Ids a peer might ask for; only PATTERN_ID is spoken here. XXpsk3 is reserved for a
# firmware that learns the host's key in the handshake rather than at pairing.
PATTERN_IDS = {1: "IKpsk2", 2: "XXpsk3"}
ECHO_LEN = 8
_PROLOGUE = b"edge-assist glasses link"
_HALF_OPEN = 4  # sessions the host keeps answered but unconfirmed (a replayed HELLO costs one)
_SEEN_HELLOS = 64  # glasses' ephemeral keys the host remembers, so a replayed HELLO is dropped


class HandshakeRefused(Exception):
    """A handshake frame that leads nowhere; `kind` names the counter it increments."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


def prologue(pattern_id: int) -> bytes:
    return _PROLOGUE + bytes([VERSION, pattern_id])


def suite_name(pattern_id: int) -> str:
    name = PATTERN_IDS.get(pattern_id)
    return protocol_name(name).decode() if name else f"unknown handshake #{pattern_id}"


def handshake_frame(mtype: MsgType, session: int, payload: bytes) -> bytes:
    """HELLO and HELLO_REPLY: the frame is clear, the Noise messages inside carry their own tags."""
    return build(Header(int(mtype), 0, session, 0, len(payload)), payload)


@dataclass
class Initiation:
    """One HELLO the glasses sent and may get an answer to."""

    state: HandshakeState
    echo: bytes


def _check_header(raw: RawFrame, mtype: MsgType) -> None:
    # The handshake frame's header is not in the Noise transcript: every field that means
    # nothing here must be zero, so no bit of the frame can change without a refusal.
    h = raw.header
    if h.type != mtype or h.flags or h.phase or h.seq or h.nonce or (mtype == MsgType.HELLO and h.session):
        raise HandshakeRefused("malformed", f"{mtype.name} with header fields it does not use")


def initiate(pairing: Pairing, epoch: bytes, pattern_id: int = PATTERN_ID) -> tuple[Initiation, bytes]:
    hs = HandshakeState(
        PATTERN_IDS.get(pattern_id, PATTERN),
        True,
        prologue(pattern_id),
        s=pairing.static,
        rs=pairing.peer_static,
        psk=pairing.psk,
    )
    message, _ = hs.write_message(epoch)
    frame = handshake_frame(MsgType.HELLO, 0, bytes([pattern_id]) + message)
    return Initiation(hs, message[:ECHO_LEN]), frame


def _session(
    hs: HandshakeState,
    ciphers: tuple[CipherState, CipherState] | None,
    peer_epoch: bytes,
    addr: Address,
    policy: RekeyPolicy,
    now: float,
) -> Session:
    assert ciphers is not None
    to_responder, to_initiator = ciphers
    out, inn = (to_responder, to_initiator) if hs.initiator else (to_initiator, to_responder)
    sid = int.from_bytes(hs.handshake_hash[:4], "big") or 1  # 0 is reserved for HELLO
    return Session(sid, Outbound(out, policy, now), Inbound(inn), peer_epoch, addr)


def answer(
    pairing: Pairing, raw: RawFrame, epoch: bytes, addr: Address, policy: RekeyPolicy, now: float
) -> tuple[Session, bytes]:
    """The host's side: read HELLO, check the pinned key, return the half-open session and the reply."""
    _check_header(raw, MsgType.HELLO)
    if len(raw.payload) < 1 + ECHO_LEN:
        raise HandshakeRefused("malformed", "HELLO too short")
    pattern_id, message = raw.payload[0], raw.payload[1:]
    if pattern_id != PATTERN_ID:
        raise HandshakeRefused(
            "version_errors",
            f"the glasses asked for {suite_name(pattern_id)}; this assistant speaks only "
            f"{suite_name(PATTERN_ID)}: update the glasses' firmware",
        )
    hs = HandshakeState(PATTERN, False, prologue(pattern_id), s=pairing.static, psk=pairing.psk)
    try:
        peer_epoch, _ = hs.read_message(message)
    except NoiseError:
        raise HandshakeRefused(
            "auth_failures", "a HELLO that does not authenticate: another pairing"
        ) from None
    if hs.rs is None or not hmac.compare_digest(hs.rs, pairing.peer_static):
        raise HandshakeRefused(
            "auth_failures", "a HELLO from glasses that are not the paired ones; run `edge-assist pair`"
        )
    if len(peer_epoch) != EPOCH_LEN:
        raise HandshakeRefused("malformed", "HELLO payload is not an epoch")
    reply, ciphers = hs.write_message(epoch)
    session = _session(hs, ciphers, peer_epoch, addr, policy, now)
    return session, handshake_frame(MsgType.HELLO_REPLY, session.sid, message[:ECHO_LEN] + reply)


@dataclass
class HostHandshakes:
    """The host's half-open sessions and the HELLOs it has answered."""

    half_open: OrderedDict[int, Session] = field(default_factory=OrderedDict)
    seen: OrderedDict[bytes, None] = field(default_factory=OrderedDict)

    def answer(
        self, pairing: Pairing, raw: RawFrame, epoch: bytes, addr: Address, policy: RekeyPolicy, now: float
    ) -> bytes:
        echo = raw.payload[1 : 1 + ECHO_LEN]
        if echo in self.seen:
            raise HandshakeRefused("replays", "a HELLO answered before: replayed")
        half, reply = answer(pairing, raw, epoch, addr, policy, now)
        _put(self.seen, echo, None, _SEEN_HELLOS)
        _put(self.half_open, half.sid, half, _HALF_OPEN)
        return reply


def _put(book: OrderedDict, key: object, value: object, cap: int) -> None:
    book[key] = value
    while len(book) > cap:
        book.popitem(last=False)


def version_mismatch(role: str, peer_version: int) -> str:
    """The one line both sides print when the other speaks another protocol version."""
    host = role == "host"
    peer, me = ("the glasses speak", "this assistant") if host else ("the assistant speaks", "these glasses")
    update = "the glasses' firmware" if (peer_version < VERSION) == host else "edge-assist"
    return f"{peer} protocol version {peer_version}, {me} version {VERSION}: update {update}"


def upgrade_frame(why: str) -> bytes:
    text = why.encode()[:MAX_PAYLOAD]
    return build(Header(int(MsgType.UPGRADE), 0, 0, 0, len(text)), text)


def finish(
    initiations: dict[bytes, Initiation], raw: RawFrame, addr: Address, policy: RekeyPolicy, now: float
) -> Session:
    """The glasses' side: read HELLO_REPLY for one of the HELLOs still open."""
    _check_header(raw, MsgType.HELLO_REPLY)
    init = initiations.pop(raw.payload[:ECHO_LEN], None)
    if init is None:
        raise HandshakeRefused("replays", "an answer to a HELLO not sent, or already used")
    try:
        peer_epoch, ciphers = init.state.read_message(raw.payload[ECHO_LEN:])
    except NoiseError:
        raise HandshakeRefused("auth_failures", "a HELLO_REPLY that does not authenticate") from None
    session = _session(init.state, ciphers, peer_epoch, addr, policy, now)
    if session.sid != raw.header.session or len(peer_epoch) != EPOCH_LEN:
        raise HandshakeRefused("auth_failures", "HELLO_REPLY names another session")
    return session
