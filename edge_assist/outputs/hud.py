"""HUD output: spoken decisions also shown as text on the glasses, through the bridge.

Each message carries its priority (Safety > answer > the rest: the firmware replaces a
lower-priority line on screen) and how long to show it, from the time a wearer needs to
read it. Delivery is acknowledged and resent by the link; `emit()` does not wait for it.
A text longer than a page (`PAGE_CHARS`) is cut between sentences or words and shown
page by page ("(1/2)"), each for its reading time; a new message of the same or higher
priority replaces the pages still to come, as the screen replaces what it shows.

The task tracker's "k/n step" is a status line below every message, sent when it changes.

In a replay faster than real time (`wait_for_glasses_s` > 0) the first message waits, once,
for the glasses to connect, and says in one line when they do not; `drain()` (called by
the pipeline when a run ends by itself) waits for the acknowledgements still due.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from edge_assist.events import Decision, priority_of
from edge_assist.outputs.api import OutputSink
from edge_assist.outputs.glasses_link import BridgeLink
from edge_assist.outputs.paging import pages

log = logging.getLogger(__name__)

# Reading speed on a small display, and the longest a line may stay up.
_READ_S_PER_WORD = 0.35
_MAX_DURATION_S = 20.0
# Characters on one HUD page: a glance, well under the protocol's 280-character cap.
PAGE_CHARS = 120
# The task status line: below every spoken message (the firmware keeps the higher one on
# screen), unacknowledged (the next step's status replaces a lost one), up until replaced.
PRIORITY_STATUS = 0
STATUS_DURATION_S = 600.0
# At the end of a run the status line is replaced, not left up for STATUS_DURATION_S.
END_TEXT = "session ended"
END_DURATION_S = 5.0
STATUS_STEP_CHARS = 40


def display_duration_s(text: str, min_s: float = 3.0) -> float:
    return round(min(_MAX_DURATION_S, max(min_s, 1.0 + _READ_S_PER_WORD * len(text.split()))), 2)


class HudOutput(OutputSink):
    name = "hud"

    def __init__(
        self,
        link: BridgeLink,
        *,
        min_duration_s: float = 3.0,
        wait_for_glasses_s: float = 0.0,
        drain_s: float = 0.0,
        where: str = "the configured bridge",
        page_chars: int = PAGE_CHARS,
        page_wait_s: float | None = None,
    ) -> None:
        self.link = link
        self.min_duration_s = min_duration_s
        self.wait_for_glasses_s = wait_for_glasses_s
        self.drain_s = drain_s
        self.where = where
        self.page_chars = page_chars
        self.page_wait_s = page_wait_s  # None: each page stays up for its reading time
        self.sent = 0
        self.not_connected = 0
        self.status_sent = 0
        self._status = ""
        self._waited = False
        self._said_absent = False  # the one line about absent glasses was logged
        self._pager: asyncio.Task[None] | None = None
        self._pager_priority = -1

    async def _show_progress(self, decision: Decision) -> None:
        """The task tracker's "k/n step" as the lowest-priority line, when it changes."""
        task = decision.trace.get("task") if isinstance(decision.trace, dict) else None
        if not isinstance(task, dict) or not task.get("n"):
            return
        step = str(task.get("step_text") or "")
        short = step if len(step) <= STATUS_STEP_CHARS else step[:STATUS_STEP_CHARS].rsplit(" ", 1)[0] + "…"
        status = f"{task.get('k', 0)}/{task['n']} {short}".strip()
        if status == self._status:
            return
        self._status = status
        await self.link.send_hud(status, priority=PRIORITY_STATUS, duration_s=STATUS_DURATION_S, ack=False)
        self.status_sent += 1

    async def emit(self, decision: Decision) -> None:
        await self._show_progress(decision)
        if not decision.speak or not decision.text.strip():
            return
        if not self.link.connected and self.wait_for_glasses_s > 0 and not self._waited:
            self._waited = True
            if not await self.link.wait_connected(self.wait_for_glasses_s):
                self._said_absent = True
                log.warning(
                    "HUD: no glasses connected on %s within %g s; decisions wait for them in the link "
                    "(start the glasses or `edge-assist hud-emulator` first, or raise bridge.connect_wait_s)",
                    self.where,
                    self.wait_for_glasses_s,
                )
        if not self.link.connected:
            # Still queued (acked messages wait for the glasses), but say why nothing shows.
            self.not_connected += 1
            log.debug("HUD: glasses not connected; message kept for when they are")
        priority = priority_of(decision.sub_type, decision.trigger)
        parts = pages(decision.text.strip(), self.page_chars)
        if len(parts) > 1:
            parts = [f"{p} ({i}/{len(parts)})" for i, p in enumerate(parts, 1)]
        if priority >= self._pager_priority:
            await self._stop_pager()
        await self._send(parts[0], priority)
        if len(parts) > 1:
            self._pager_priority = priority
            self._pager = asyncio.create_task(self._rest(parts, priority), name="hud-pager")

    async def _send(self, text: str, priority: int) -> None:
        await self.link.send_hud(
            text, priority=priority, duration_s=display_duration_s(text, self.min_duration_s)
        )
        self.sent += 1

    async def _rest(self, parts: list[str], priority: int) -> None:
        """The pages after the first, each once the one before has been read."""
        for shown, nxt in zip(parts, parts[1:], strict=False):
            wait = (
                self.page_wait_s
                if self.page_wait_s is not None
                else display_duration_s(shown, self.min_duration_s)
            )
            await asyncio.sleep(wait)
            await self._send(nxt, priority)
        self._pager_priority = -1

    async def _stop_pager(self) -> None:
        if self._pager is not None and not self._pager.done():
            self._pager.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pager
        self._pager, self._pager_priority = None, -1

    async def _end_status(self) -> bool:
        """The run is over: a stale "5/7 Pour the eggs" must not stay up for ten minutes."""
        if not self._status:
            return False
        self._status = ""
        # Acknowledged, unlike the status lines: drain() then waits for it, so it is not lost as
        # the link closes behind it.
        await self.link.send_hud(END_TEXT, priority=PRIORITY_STATUS, duration_s=END_DURATION_S)
        self.status_sent += 1
        return True

    async def drain(self) -> None:
        """End the status line, then wait up to `drain_s` for the glasses to acknowledge what was sent."""
        ended = await self._end_status()
        if self.drain_s <= 0 or not (self.sent or ended):
            return
        left = await self.link.flush(self.drain_s)
        if left and not (self._said_absent and not self.link.connected):  # absent glasses: already said
            log.warning(
                "HUD: %d message(s) not acknowledged by the glasses on %s before the end", left, self.where
            )

    async def close(self) -> None:
        # The link belongs to the app (it also carries inbound questions): not closed here.
        await self._stop_pager()
        await self._end_status()  # a stopped run skips drain()
