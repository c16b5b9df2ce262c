"""HUD output: spoken decisions also shown as text on the glasses, through the bridge.

Each message carries its priority (Safety > answer > the rest: the firmware replaces a
lower-priority line on screen) and how long to show it, from the time a wearer needs to
read it. Delivery is acknowledged and resent by the link; `emit()` does not wait for it.
A text longer than a page (`PAGE_CHARS`) is cut between sentences or words and shown
page by page ("(1/2)"), each for its reading time; a new message of the same or higher
priority replaces the pages still to come, as the screen replaces what it shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from edge_assist.events import Decision, priority_of
from edge_assist.outputs.paging import pages
from firmware_bridge.link import BridgeLink

log = logging.getLogger(__name__)

# Reading speed on a small display, and the longest a line may stay up.
_READ_S_PER_WORD = 0.35
_MAX_DURATION_S = 20.0
# Characters on one HUD page: a glance, well under the protocol's 280-character cap.
PAGE_CHARS = 120


def display_duration_s(text: str, min_s: float = 3.0) -> float:
    return round(min(_MAX_DURATION_S, max(min_s, 1.0 + _READ_S_PER_WORD * len(text.split()))), 2)


class HudOutput:
    name = "hud"

    def __init__(
        self, link: BridgeLink, *, min_duration_s: float = 3.0, page_chars: int = PAGE_CHARS,
        page_wait_s: float | None = None,
    ) -> None:
        self.link = link
        self.page_wait_s = page_wait_s  # None: each page stays up for its reading time
        self.min_duration_s = min_duration_s
        self.page_chars = page_chars
        self.sent = 0
        self.not_connected = 0
        self._pager: asyncio.Task[None] | None = None
        self._pager_priority = -1

    async def emit(self, decision: Decision) -> None:
        if not decision.speak or not decision.text.strip():
            return
        if not self.link.connected:
            # Still queued (acked messages wait for the glasses), but say why nothing shows.
            self.not_connected += 1
            log.debug("HUD: glasses not connected; message kept for when they are")
        priority = priority_of(decision.sub_type, decision.trigger)
        parts = pages(decision.text, self.page_chars)
        if len(parts) > 1:
            parts = [f"{p} ({i}/{len(parts)})" for i, p in enumerate(parts, 1)]
        if priority >= self._pager_priority:
            await self._stop_pager()
        await self._send(parts[0], priority)
        if len(parts) > 1:
            self._pager_priority = priority
            self._pager = asyncio.create_task(self._rest(parts, priority), name="hud-pager")

    async def _send(self, text: str, priority: int) -> None:
        await self.link.send_hud(text, priority=priority, duration_s=display_duration_s(text, self.min_duration_s))
        self.sent += 1

    async def _rest(self, parts: list[str], priority: int) -> None:
        """The pages after the first, each once the one before has been read."""
        for shown, nxt in zip(parts, parts[1:], strict=False):
            wait = self.page_wait_s if self.page_wait_s is not None else display_duration_s(shown, self.min_duration_s)
            await asyncio.sleep(wait)
            await self._send(nxt, priority)
        self._pager_priority = -1

    async def _stop_pager(self) -> None:
        if self._pager is not None and not self._pager.done():
            self._pager.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pager
        self._pager, self._pager_priority = None, -1

    async def close(self) -> None:
        # The link belongs to the app (it also carries inbound questions): not closed here.
        await self._stop_pager()
