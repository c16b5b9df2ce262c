"""`BridgeLink`: the assistant's side of the glasses link.

Outbound: `send_hud()` (text with priority and duration) and `send_audio()`. Inbound:
wearer questions become `UserQuery(source="bridge")`, buttons and touch become
`ButtonEvent`, battery/thermal reports become `GlassesStatus`; all three arrive on
`link.inbound`, and the newest status is always at `link.status` (the scheduler reads it
to lower its budget). Other consumers (push-to-talk) take their own copy with
`link.subscribe(ButtonEvent)`.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import Any, TypeVar

from edge_assist.clock import Clock, RealClock
from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError
from edge_assist.events import ButtonEvent, GlassesStatus, UserQuery
from firmware_bridge import messages as m
from firmware_bridge.endpoint import Endpoint, Timing
from firmware_bridge.errors import BridgeError
from firmware_bridge.frames import MsgType
from firmware_bridge.keys import load_key
from firmware_bridge.transports import Transport, UdpTransport, serial_transport

log = logging.getLogger(__name__)

InboundEvent = UserQuery | ButtonEvent | GlassesStatus
E = TypeVar("E")


def timing_from_config(cfg: Config) -> Timing:
    b = cfg.bridge
    return Timing(
        ack_timeout_s=b.ack_timeout_s,
        max_retries=b.max_retries,
        heartbeat_s=b.heartbeat_s,
        reopen_s=b.reopen_s,
        pending_max=b.pending_max,
    )


def transport_from_config(cfg: Config, *, role: str) -> Transport:
    b = cfg.bridge
    if b.transport == "udp":
        return UdpTransport(b.host, b.port, mode="server" if role == "host" else "client")
    if b.transport == "serial":
        return serial_transport(b.serial_device, b.baud, retry_s=b.reopen_s)
    if b.transport == "off":
        raise EdgeAssistError("bridge.transport is off; set it to udp or serial to talk to the glasses")
    raise EdgeAssistError(f"bridge.transport {b.transport!r} is not built yet; use udp or serial")


class BridgeLink:
    def __init__(
        self,
        transport: Transport,
        pairing_key: bytes,
        *,
        clock: Clock | None = None,
        timing: Timing | None = None,
        inbound_max: int = 64,
    ) -> None:
        self.clock: Clock = clock or RealClock()
        self.endpoint = Endpoint(
            transport, pairing_key, "host", self._on_message, timing=timing, name="bridge"
        )
        self.inbound: asyncio.Queue[InboundEvent] = asyncio.Queue(inbound_max)
        self.status: GlassesStatus | None = None
        self._subscribers: list[tuple[type, asyncio.Queue[Any]]] = []
        self._hud_ids = itertools.count(1)
        self._audio_ids = itertools.count(1)
        self.dropped_subscriber = 0

    @classmethod
    def from_config(cls, cfg: Config, clock: Clock | None = None) -> BridgeLink:
        try:
            key = load_key(cfg.data_path(cfg.bridge.key_file))
            transport = transport_from_config(cfg, role="host")
        except BridgeError as e:
            raise EdgeAssistError(str(e)) from None
        return cls(transport, key, clock=clock, timing=timing_from_config(cfg))

    # -- lifecycle ---------------------------------------------------------------------
    async def start(self) -> None:
        """Open the transport and start listening; the glasses may connect at any time after."""
        try:
            await self.endpoint.start()
        except BridgeError as e:
            raise EdgeAssistError(str(e)) from None

    async def close(self) -> None:
        await self.endpoint.close()

    @property
    def connected(self) -> bool:
        return self.endpoint.connected

    async def wait_connected(self, timeout_s: float) -> bool:
        return await self.endpoint.wait_connected(timeout_s)

    async def flush(self, timeout_s: float) -> int:
        """Wait up to `timeout_s` for every acknowledged message sent so far; returns how many
        are still due."""
        return await self.endpoint.flush(timeout_s)

    def stats(self) -> dict[str, Any]:
        return {**self.endpoint.describe(), "dropped_subscriber": self.dropped_subscriber}

    # -- outbound ----------------------------------------------------------------------
    async def send_hud(
        self, text: str, *, priority: int = 1, duration_s: float = 5.0, ack: bool = True
    ) -> asyncio.Future[None] | None:
        """Show `text` on the HUD. Returns at once; the future resolves when the glasses ack."""
        msg = m.HudText(text, priority, duration_s, next(self._hud_ids))
        return await self.endpoint.send(MsgType.HUD_TEXT, msg.encode(), ack=ack)

    async def send_audio(self, pcm: bytes, sample_rate: int, *, ack: bool = False) -> int:
        """Stream 16-bit mono PCM to the glasses' speaker; returns the number of chunks."""
        chunks = m.split_audio(pcm, sample_rate, next(self._audio_ids))
        for c in chunks:
            await self.endpoint.send(MsgType.AUDIO, c.encode(), ack=ack)
        return len(chunks)

    # -- inbound -----------------------------------------------------------------------
    def subscribe(self, kind: type[E], maxsize: int = 32) -> asyncio.Queue[E]:
        """A private queue that receives a copy of every inbound event of `kind`."""
        q: asyncio.Queue[E] = asyncio.Queue(maxsize)
        self._subscribers.append((kind, q))
        return q

    def _on_message(self, mtype: MsgType, payload: bytes) -> bool:
        now = self.clock.now()
        event: InboundEvent
        if mtype is MsgType.QUESTION:
            event = UserQuery(t=now, text=m.Question.decode(payload).text, source="bridge")
        elif mtype is MsgType.BUTTON:
            b = m.Button.decode(payload)
            event = ButtonEvent(t=now, button=b.button, action=b.action)
        elif mtype is MsgType.TOUCH:
            event = ButtonEvent(t=now, button="touch", action=m.Touch.decode(payload).gesture)
        elif mtype is MsgType.STATUS:
            s = m.Status.decode(payload)
            event = GlassesStatus(
                t=now,
                battery_pct=s.battery_pct,
                charging=s.charging,
                temperature_c=s.temperature_c,
                thermal=s.thermal,
            )
            self.status = event
        else:
            raise ValueError(f"{mtype.name} is not a message the glasses send")
        if self.inbound.full():
            if isinstance(event, GlassesStatus):
                return True  # `status` already holds it; the queue copy is only a notification
            return False  # not acked: the glasses resend it once the app has caught up
        self.inbound.put_nowait(event)
        for kind, q in self._subscribers:
            if isinstance(event, kind):
                if q.full():
                    self.dropped_subscriber += 1
                else:
                    q.put_nowait(event)
        return True
