"""The core of `edge-assist hud-emulator`: a pretend pair of glasses in a terminal.

It connects as the glasses (the real protocol, the real transport, the paired key),
keeps a HUD screen the way firmware would, and turns typed lines into what a wearer
does. Drawing is a plain function of `Screen`, so the logic is tested without a terminal.

Screen rule: a message stays up for its duration; a new one of the same or higher
priority replaces it at once; a lower-priority one waits until the screen is free.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_bridge import messages as m
from firmware_bridge.endpoint import Timing
from firmware_bridge.glasses import FakeGlasses
from firmware_bridge.messages import THERMAL_STATES
from firmware_bridge.transports import Transport

HELP = (
    "type a question and Enter to ask; commands: /b tap the button, /p press, /r release "
    "(push-to-talk), /t GESTURE touch, /s battery=15 thermal=hot charging=no temp=45, /q quit"
)
PRIORITY_NAMES = {0: "background", 1: "normal", 2: "answer", 3: "SAFETY"}


@dataclass
class Shown:
    msg: m.HudText
    since: float
    until: float


@dataclass
class Screen:
    current: Shown | None = None
    waiting: deque[m.HudText] = field(default_factory=deque)
    log: deque[str] = field(default_factory=lambda: deque(maxlen=8))

    def offer(self, msg: m.HudText, now: float) -> None:
        self.expire(now)
        if self.current is None or msg.priority >= self.current.msg.priority:
            self.current = Shown(msg, now, now + msg.duration_s)
        else:
            self.waiting.append(msg)

    def expire(self, now: float) -> bool:
        """Drop an expired message and show the most urgent waiting one; True if it changed."""
        changed = False
        if self.current is not None and now >= self.current.until:
            self.current = None
            changed = True
        if self.current is None and self.waiting:
            best = max(self.waiting, key=lambda x: x.priority)
            self.waiting.remove(best)
            self.current = Shown(best, now, now + best.duration_s)
            changed = True
        return changed


def render(screen: Screen, connected: bool, now: float, width: int = 60) -> str:
    bar = "-" * (width - 2)
    state = "connected" if connected else "searching for the assistant..."
    lines = [f"+{bar}+", f"| HUD  [{state}]".ljust(width - 1) + "|"]
    if screen.current is None:
        body = ["(nothing on screen)"]
        head = ""
    else:
        s = screen.current
        left = max(0.0, s.until - now)
        priority = PRIORITY_NAMES.get(s.msg.priority, s.msg.priority)
        head = f"{priority} · {s.msg.duration_s:g} s · {left:.0f} s left"
        body, line = [], ""
        for word in s.msg.text.split():
            if len(line) + len(word) + 1 > width - 4:
                body.append(line)
                line = word
            else:
                line = f"{line} {word}".strip()
        body.append(line)
    if head:
        lines.append(f"| {head}".ljust(width - 1) + "|")
    lines += [f"| {b}".ljust(width - 1) + "|" for b in body]
    if screen.waiting:
        lines.append(f"| (+{len(screen.waiting)} waiting)".ljust(width - 1) + "|")
    lines.append(f"+{bar}+")
    lines += [f"  {entry}" for entry in screen.log]
    return "\n".join(lines)


def parse_status(args: list[str]) -> m.Status:
    values = dict(a.split("=", 1) for a in args if "=" in a)
    unknown = set(values) - {"battery", "thermal", "charging", "temp"}
    if unknown or len(values) != len(args):
        raise ValueError("status takes battery=PCT thermal=STATE charging=yes|no temp=CELSIUS")
    thermal = values.get("thermal", "normal")
    if thermal not in THERMAL_STATES:
        raise ValueError(f"thermal must be one of {', '.join(THERMAL_STATES)}")
    batt = float(values["battery"]) if "battery" in values else None
    temp = float(values["temp"]) if "temp" in values else None
    charging = values.get("charging", "no").lower() in ("yes", "true", "1", "on")
    return m.Status(batt, charging, temp, thermal)


class HudEmulator:
    def __init__(
        self,
        transport: Transport,
        pairing_key: bytes,
        *,
        timing: Timing | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self.glasses = FakeGlasses(transport, pairing_key, timing=timing)
        self.screen = Screen()
        self.clock = clock
        self.on_change = on_change or (lambda: None)
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.glasses.start()
        self._task = asyncio.create_task(self._pump(), name="hud-emulator-pump")

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self.glasses.close()

    def render(self) -> str:
        return render(self.screen, self.glasses.connected, self.clock())

    async def _pump(self) -> None:
        was_connected = False
        while True:
            try:
                msg = await asyncio.wait_for(self.glasses.hud.get(), 0.25)
            except asyncio.TimeoutError:
                changed = self.screen.expire(self.clock())
            else:
                self.screen.offer(msg, self.clock())
                changed = True
            if self.glasses.connected != was_connected:
                was_connected = self.glasses.connected
                changed = True
            if changed:
                self.on_change()

    async def handle(self, line: str) -> bool:
        """Act on one typed line; False when the user asked to quit."""
        line = line.strip()
        if not line:
            return True
        if not line.startswith("/"):
            await self.glasses.ask(line)
            self.screen.log.append(f"you asked: {line}")
            return True
        cmd, *args = line[1:].split()
        try:
            if cmd == "q":
                return False
            if cmd == "b":
                await self.glasses.press("main", "tap")
            elif cmd == "p":
                await self.glasses.press("main", "press")
            elif cmd == "r":
                await self.glasses.press("main", "release")
            elif cmd == "t" and args:
                await self.glasses.touch(args[0])
            elif cmd == "s":
                status = parse_status(args)
                await self.glasses.report(status)
            else:
                self.screen.log.append(HELP)
                return True
            self.screen.log.append(f"sent /{cmd} {' '.join(args)}".rstrip())
        except ValueError as e:
            self.screen.log.append(f"error: {e}")
        return True
