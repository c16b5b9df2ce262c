"""`FakeGlasses`: the glasses' side of the link, in Python.

It speaks the real protocol over a real transport (the other end of a pty, a UDP socket),
so tests and the `hud-emulator` exercise exactly what firmware would. It is also the
reference a firmware author can read next to PROTOCOL.md.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from firmware_bridge import messages as m
from firmware_bridge.crypto import Pairing
from firmware_bridge.endpoint import Endpoint, Timing
from firmware_bridge.frames import MsgType
from firmware_bridge.transports import Transport


@dataclass
class AudioStream:
    stream_id: int
    sample_rate: int
    chunks: dict[int, bytes] = field(default_factory=dict)
    complete: bool = False

    @property
    def pcm(self) -> bytes:
        return b"".join(self.chunks[i] for i in sorted(self.chunks))


class FakeGlasses:
    def __init__(
        self, transport: Transport, pairing_key: bytes | Pairing, *, timing: Timing | None = None
    ) -> None:
        self.endpoint = Endpoint(
            transport, pairing_key, "glasses", self._on_message, timing=timing, name="glasses"
        )
        self.hud: asyncio.Queue[m.HudText] = asyncio.Queue()
        self.audio: dict[int, AudioStream] = {}
        self.audio_done: asyncio.Queue[AudioStream] = asyncio.Queue()

    async def start(self) -> None:
        await self.endpoint.start()

    async def close(self) -> None:
        await self.endpoint.close()

    async def wait_connected(self, timeout_s: float = 5.0) -> bool:
        return await self.endpoint.wait_connected(timeout_s)

    @property
    def connected(self) -> bool:
        return self.endpoint.connected

    # -- what the wearer does ------------------------------------------------------------
    async def ask(self, text: str) -> asyncio.Future[None] | None:
        return await self.endpoint.send(MsgType.QUESTION, m.Question(text).encode(), ack=True)

    async def press(self, button: str = "main", action: str = "tap") -> asyncio.Future[None] | None:
        return await self.endpoint.send(MsgType.BUTTON, m.Button(button, action).encode(), ack=True)

    async def touch(self, gesture: str) -> asyncio.Future[None] | None:
        return await self.endpoint.send(MsgType.TOUCH, m.Touch(gesture).encode(), ack=True)

    async def report(self, status: m.Status) -> None:
        # Status is sent often and only the newest matters: no ack, no retransmission.
        await self.endpoint.send(MsgType.STATUS, status.encode(), ack=False)

    # -- what the glasses receive -------------------------------------------------------
    def _on_message(self, mtype: MsgType, payload: bytes) -> bool:
        if mtype is MsgType.HUD_TEXT:
            self.hud.put_nowait(m.HudText.decode(payload))
        elif mtype is MsgType.AUDIO:
            c = m.AudioChunk.decode(payload)
            stream = self.audio.setdefault(c.stream_id, AudioStream(c.stream_id, c.sample_rate))
            stream.chunks[c.index] = c.pcm
            if c.last:
                stream.complete = True
                self.audio_done.put_nowait(stream)
        else:
            raise ValueError(f"{mtype.name} is not a message the host sends")
        return True
