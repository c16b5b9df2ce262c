"""One end of the glasses link: handshake, sealing, sequence numbers, acks, retransmission.

The same class plays both roles. The glasses (`role="glasses"`) open each connection with
HELLO (a Noise IKpsk2 handshake, `handshake.py`); the host (`role="host"`, the assistant)
answers and never initiates, so a stranger cannot make it talk first.
Reliability is per message: a message sent with `ack=True` stays in the pending list until
its ACK arrives, is retransmitted after `ack_timeout_s`, and survives reconnects (it is
resealed under the new session's keys with its original sequence number, so the
receiver's window drops it if it had in fact arrived).

Counters say why frames were refused: `corrupt` (CRC/framing: a noisy line),
`auth_failures` (a tag that does not verify: another pairing, an unpaired static key or a
forgery), `replays` (a nonce already seen, or an authentic message whose sequence number
was: a replay or a duplicate, never delivered twice), `version_errors` (a peer of another
protocol version or handshake: one line says which side to update).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import struct
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from firmware_bridge import handshake
from firmware_bridge.crypto import EPOCH_LEN, Pairing, ReplayedFrame
from firmware_bridge.frames import MAX_PAYLOAD, Flag, FrameError, Header, MsgType, RawFrame, parse
from firmware_bridge.handshake import HandshakeRefused, Initiation
from firmware_bridge.link_state import Counters, Pending, ReplayWindow, Session, Timing
from firmware_bridge.noise import NoiseError
from firmware_bridge.transports import Address, Transport, TransportLost

log = logging.getLogger(__name__)

_HELLO_TRIES = 4  # HELLOs the glasses keep open (a slow answer may follow a retry)
_UPGRADE_EVERY_S = 1.0  # answers to frames of another version, at most this often

# A handler returns False when it has no room: the frame is then neither acked nor
# marked seen, so the sender retransmits it later instead of it being lost.
Handler = Callable[[MsgType, bytes], bool]


class Endpoint:
    def __init__(
        self,
        transport: Transport,
        pairing_key: bytes | Pairing,
        role: str,
        on_message: Handler,
        *,
        timing: Timing | None = None,
        name: str = "",
    ) -> None:
        if role not in ("host", "glasses"):
            raise ValueError(f"role must be host or glasses, not {role!r}")
        self.transport = transport
        self.role = role
        self.name = name or f"bridge-{role}"
        self.timing = timing or Timing()
        self.counters = Counters()
        self.epoch = secrets.token_bytes(EPOCH_LEN)
        self._pairing = (
            pairing_key if isinstance(pairing_key, Pairing) else Pairing.from_secret(pairing_key, role)
        )
        self.last_refusal = ""  # the latest one-line reason a peer was refused
        self._on_message = on_message
        self._next_seq = 1
        self._pending: OrderedDict[int, Pending] = OrderedDict()
        self._session: Session | None = None
        self._answered = handshake.HostHandshakes()
        self._initiations: OrderedDict[bytes, Initiation] = OrderedDict()
        self._warned_versions: set[int] = set()
        self._next_upgrade = 0.0
        self._next_hello = 0.0
        self._last_rx = 0.0
        self._last_tx_ping = 0.0
        self._rx = ReplayWindow()
        self._tx_lock = asyncio.Lock()
        self._carrier_up = asyncio.Event()
        self._connected = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    # -- public -------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._session is not None

    @property
    def peer_epoch(self) -> bytes | None:
        return self._session.peer_epoch if self._session else None

    @property
    def pending(self) -> int:
        return len(self._pending)

    async def start(self) -> None:
        """Open the carrier once (so a bad port fails here) and start the two loops."""
        if self._tasks:
            return
        await self.transport.open()
        self._carrier_up.set()
        self._tasks = [
            asyncio.create_task(self._rx_loop(), name=f"{self.name}-rx"),
            asyncio.create_task(self._timer_loop(), name=f"{self.name}-timer"),
        ]

    async def wait_connected(self, timeout_s: float) -> bool:
        try:
            await asyncio.wait_for(self._connected.wait(), timeout_s)
        except asyncio.TimeoutError:
            return False
        return True

    async def flush(self, timeout_s: float) -> int:
        """Wait up to `timeout_s` until the pending (acknowledged) messages are acked; returns those left."""
        waiting = [p.done for p in self._pending.values() if p.done is not None and not p.done.done()]
        if waiting:
            await asyncio.wait(waiting, timeout=timeout_s)
        return sum(1 for p in self._pending.values() if p.done is not None and not p.done.done())

    async def send(self, mtype: MsgType, payload: bytes, *, ack: bool) -> asyncio.Future[None] | None:
        """Queue one message. With ack=True returns a future resolved when the peer acknowledges."""
        if len(payload) > MAX_PAYLOAD:
            raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
        p = Pending(self._take_seq(), mtype, payload, keep_across_sessions=mtype is not MsgType.PING)
        if ack:
            p.done = asyncio.get_running_loop().create_future()
            while len(self._pending) >= self.timing.pending_max:
                _, old = self._pending.popitem(last=False)
                self.counters.dropped_pending += 1
                log.warning(
                    "%s: pending queue full, dropped unacknowledged %s #%d",
                    self.name,
                    old.mtype.name,
                    old.seq,
                )
                if old.done and not old.done.done():
                    old.done.cancel()
            self._pending[p.seq] = p
        if self._session is None:
            if not ack:
                self.counters.dropped_offline += 1
            return p.done
        await self._transmit(p, self._session)
        return p.done

    async def close(self) -> None:
        tasks, self._tasks = self._tasks, []
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t
        for p in self._pending.values():
            if p.done and not p.done.done():
                p.done.cancel()
        await self.transport.close()

    # -- sending ---------------------------------------------------------------------
    def _take_seq(self) -> int:
        seq = self._next_seq
        self._next_seq += 1
        return seq

    async def _tx(self, frame: bytes, addr: Address) -> None:
        async with self._tx_lock:
            try:
                await self.transport.send(frame, addr)
            except TransportLost as e:
                log.debug("%s: send failed: %s", self.name, e)

    async def _transmit(self, p: Pending, s: Session) -> None:
        flags = Flag.ACK_REQUIRED if p.done is not None else Flag.NONE
        if p.tries:
            flags |= Flag.RETRANSMIT
        p.sent_at = asyncio.get_running_loop().time()
        frame = s.seal(int(p.mtype), int(flags), p.seq, p.payload, p.sent_at)
        self.counters.sent += 1
        await self._tx(frame, s.addr)

    async def _send_unreliable(self, mtype: MsgType, payload: bytes, s: Session) -> None:
        await self._transmit(Pending(self._take_seq(), mtype, payload), s)

    async def _send_hello(self) -> None:
        init, frame = handshake.initiate(self._pairing, self.epoch)
        self._initiations[init.echo] = init
        while len(self._initiations) > _HELLO_TRIES:
            self._initiations.popitem(last=False)
        await self._tx(frame, None)

    # -- sessions --------------------------------------------------------------------
    async def _commit(self, s: Session) -> None:
        self._session = s
        self._answered.half_open.clear()
        self._initiations.clear()
        self._last_rx = asyncio.get_running_loop().time()
        self._rx.restart_for(s.peer_epoch)
        self.counters.sessions += 1
        self._connected.set()
        log.info("%s: session %08x up (peer %s)", self.name, s.sid, s.peer_epoch.hex())
        for p in list(self._pending.values()):
            p.tries = 0
            await self._transmit(p, s)

    def _drop_session(self, why: str) -> None:
        if self._session is not None:
            log.warning("%s: session %08x down: %s", self.name, self._session.sid, why)
        self._session = None
        self._connected.clear()
        self._next_hello = 0.0
        for seq in [q for q, p in self._pending.items() if not p.keep_across_sessions]:
            done = self._pending.pop(seq).done
            if done and not done.done():
                done.cancel()

    # -- receiving -------------------------------------------------------------------
    async def _rx_loop(self) -> None:
        while True:
            try:
                while True:
                    frame, addr = await self.transport.recv()
                    await self._handle(frame, addr)
            except TransportLost as e:
                log.warning("%s: %s; reopening", self.name, e)
                self._carrier_up.clear()
                self._drop_session("carrier lost")
            await asyncio.sleep(self.timing.reopen_s)
            await self.transport.open()
            self._carrier_up.set()

    async def _handle(self, frame: bytes, addr: Address) -> None:
        try:
            raw = parse(frame)
        except FrameError as e:
            if e.kind == "version" and e.peer_version is not None:
                await self._on_other_version(e.peer_version, addr)
            else:
                self.counters.corrupt += 1
            return
        mtype = raw.header.type
        if mtype in (MsgType.HELLO, MsgType.HELLO_REPLY, MsgType.UPGRADE):
            await self._on_handshake(raw, addr)
            return
        s = self._session
        if s is None or raw.header.session != s.sid:
            half = self._answered.half_open.get(raw.header.session)
            if half is None:
                self.counters.unknown_session += 1
                return
            plain = self._open(raw, half)
            if plain is None:
                return
            half.addr = addr
            await self._commit(half)
            s = half
        else:
            plain = self._open(raw, s)
            if plain is None:
                return
        s.addr = addr  # the peer may roam (new UDP port after a radio reconnect)
        self._last_rx = asyncio.get_running_loop().time()
        await self._on_data(raw.header, plain, s)

    def _open(self, raw: RawFrame, s: Session) -> bytes | None:
        h = raw.header
        try:
            return s.inbound.open(h.phase, h.nonce, raw.header_bytes, raw.payload)
        except ReplayedFrame:
            self.counters.replays += 1
        except NoiseError:
            self.counters.auth_failures += 1
        return None

    async def _on_data(self, h: Header, plain: bytes, s: Session) -> None:
        wants_ack = bool(h.flags & Flag.ACK_REQUIRED)
        if self._rx.is_replay(h.seq):
            self.counters.replays += 1
            if wants_ack:  # the first ACK may have been lost: answer again, deliver nothing
                await self._send_unreliable(MsgType.ACK, struct.pack(">I", h.seq), s)
            return
        try:
            mtype = MsgType(h.type)
        except ValueError:
            self.counters.malformed += 1
            mtype = None
        if mtype is MsgType.ACK:
            self._on_ack(plain)
        elif mtype in (MsgType.READY, MsgType.PING, None):
            pass
        else:
            assert mtype is not None
            try:
                accepted = self._on_message(mtype, plain)
            except ValueError as e:
                self.counters.malformed += 1
                log.warning("%s: malformed %s: %s", self.name, mtype.name, e)
                accepted = True  # authentic but unusable: ack it so it is not resent forever
            if not accepted:
                self.counters.backpressure += 1
                return
            self.counters.delivered += 1
        self._rx.mark(h.seq)
        if wants_ack:
            await self._send_unreliable(MsgType.ACK, struct.pack(">I", h.seq), s)

    def _on_ack(self, plain: bytes) -> None:
        if len(plain) != 4:
            self.counters.malformed += 1
            return
        p = self._pending.pop(struct.unpack(">I", plain)[0], None)
        if p is not None:
            self.counters.acked += 1
            if p.done and not p.done.done():
                p.done.set_result(None)

    # -- handshake and versions ------------------------------------------------------------
    def _refuse(self, kind: str, why: str) -> None:
        setattr(self.counters, kind, getattr(self.counters, kind) + 1)
        if why != self.last_refusal:  # one line per reason, not one per retried HELLO
            log.warning("%s: %s", self.name, why)
        self.last_refusal = why

    async def _on_handshake(self, raw: RawFrame, addr: Address) -> None:
        mtype, now = raw.header.type, asyncio.get_running_loop().time()
        try:
            if mtype == MsgType.HELLO and self.role == "host":
                reply = self._answered.answer(self._pairing, raw, self.epoch, addr, self.timing.rekey, now)
                await self._tx(reply, addr)
            elif mtype == MsgType.HELLO_REPLY and self.role == "glasses":
                s = handshake.finish(self._initiations, raw, addr, self.timing.rekey, now)
                # READY goes first so the host commits before our pending messages arrive.
                await self._send_unreliable(MsgType.READY, b"", s)
                await self._commit(s)
        except HandshakeRefused as e:
            self._refuse(e.kind, str(e))

    async def _on_other_version(self, peer_version: int, addr: Address) -> None:
        why = handshake.version_mismatch(self.role, peer_version)
        self.counters.version_errors += 1
        if peer_version not in self._warned_versions:
            self._warned_versions.add(peer_version)
            log.error("%s: %s", self.name, why)
        self.last_refusal = why
        now = asyncio.get_running_loop().time()
        if self.role == "host" and now >= self._next_upgrade:
            # An answer in our version, so the old side's parser names the mismatch too
            # instead of retrying into silence. Never from the glasses: no ping-pong.
            self._next_upgrade = now + _UPGRADE_EVERY_S
            await self._tx(handshake.upgrade_frame(why), addr)

    # -- timers ----------------------------------------------------------------------
    async def _timer_loop(self) -> None:
        t = self.timing
        tick = max(0.005, min(t.ack_timeout_s / 4, t.heartbeat_s / 4))
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(tick)
            now = loop.time()
            s = self._session
            if s is None:
                if self.role == "glasses" and self._carrier_up.is_set() and now >= self._next_hello:
                    self._next_hello = now + 2 * t.ack_timeout_s
                    await self._send_hello()
                continue
            if self.role == "host" and now - self._last_rx > t.peer_timeout_s:
                self._drop_session(f"no frame for {t.peer_timeout_s:.1f} s")
                continue
            lost = False
            for p in list(self._pending.values()):
                if p.sent_at >= 0 and now - p.sent_at >= t.ack_timeout_s:
                    if p.tries >= t.max_retries:
                        lost = True
                        break
                    p.tries += 1
                    self.counters.retransmits += 1
                    await self._transmit(p, s)
            if lost:
                self._drop_session(f"no acknowledgement after {t.max_retries} retries")
                continue
            if self.role == "glasses" and not self._pending and now - self._last_tx_ping >= t.heartbeat_s:
                self._last_tx_ping = now
                await self.send(MsgType.PING, b"", ack=True)

    def describe(self) -> dict[str, Any]:
        s = self._session
        return {
            "role": self.role,
            "rekeys": (s.outbound.rekeys + s.inbound.rekeys) if s else 0,
            "last_refusal": self.last_refusal,
            "transport": self.transport.name,
            "connected": self.connected,
            "pending": self.pending,
            **self.counters.as_dict(),
            "rx_dropped": self.transport.rx_dropped,
            "rx_malformed": self.transport.rx_malformed,
        }
