"""The devices around the pipeline: the glasses link (HUD out; questions, buttons and
status in) and spoken questions, as configured.

The HUD receives decisions in every mode. Live and in a real-time replay it never holds
the pipeline up (messages wait in the link until the glasses are there). A replay faster
than real time would be over before the glasses have even connected, so there the HUD
waits once, up to `bridge.connect_wait_s`, for the glasses before its first message, and
the pipeline lets it drain (acknowledgements) before it shuts the link, as at the end of
any run that ends by itself; when no glasses come, one line says so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.events import UserQuery
from edge_assist.outputs.api import OutputSink
from edge_assist.runtime.reasoner_stage import StepInbox

log = logging.getLogger(__name__)


def device_tasks(
    cfg: Config, clock: Clock, scheduler: Any, sinks: list[OutputSink], *, paced: bool = True
) -> list[tuple[str, Callable[[StepInbox], Any]]]:
    """Tasks for the configured devices; a HUD sink is appended to `sinks` when the glasses are configured.

    `paced` is false for a replay faster than real time: the HUD then waits for the glasses
    before its first message, and voice input (a microphone on a virtual clock) stays off.
    In every mode a run that ends by itself lets the HUD drain (acknowledgements) first.
    """
    tasks: list[tuple[str, Callable[[StepInbox], Any]]] = []
    link = None
    if cfg.bridge.transport != "off":
        from edge_assist.events import ButtonEvent, GlassesStatus
        from edge_assist.outputs.feedback import FILE as FEEDBACK_FILE
        from edge_assist.outputs.feedback import SIGNALS, FeedbackLog
        from edge_assist.outputs.glasses_link import BridgeLink
        from edge_assist.outputs.hud import HudOutput

        link = BridgeLink.from_config(cfg, clock)
        b = cfg.bridge
        sinks.append(
            HudOutput(
                link,
                min_duration_s=cfg.output.hud_min_duration_s,
                wait_for_glasses_s=0.0 if paced else b.connect_wait_s,
                drain_s=min(max(b.connect_wait_s, b.ack_timeout_s), b.ack_timeout_s * (b.max_retries + 1)),
                where=f"{b.transport} {b.host}:{b.port}"
                if b.transport == "udp"
                else f"{b.transport} {b.serial_device}",
            )
        )

        # "thanks" / "not now" on the glasses (or a spoken "stop") label the alert they answer.
        feedback = FeedbackLog(cfg.data_path(FEEDBACK_FILE))
        sinks.append(feedback)

        async def bridge(inbox: StepInbox) -> None:
            assert link is not None
            # Starting waits for late glasses instead of failing (headless boot order).
            await link.start()
            try:
                while True:
                    event = await link.inbound.get()
                    if isinstance(event, UserQuery):
                        if event.text.strip().lower().rstrip(".!") == "stop":
                            feedback.label("stop", clock.now())
                            continue
                        inbox.put_query(event)
                    elif isinstance(event, GlassesStatus):
                        scheduler.update_device(event.budget_factor)
                    elif isinstance(event, ButtonEvent):
                        if event.button.lower() in SIGNALS and feedback.label(event.button, clock.now()):
                            log.info("feedback %s stored for the last alert", event.button)
                        else:
                            log.debug("button %s %s", event.button, event.action)
            finally:
                await link.close()

        tasks.append(("bridge", bridge))
    if cfg.voice.enabled and paced:
        from edge_assist.events import ButtonEvent
        from edge_assist.voice.questions import build_voice_questions

        buttons = link.subscribe(ButtonEvent) if link is not None and cfg.voice.push_to_talk else None
        voice = build_voice_questions(cfg, clock, buttons=buttons)

        async def listen(inbox: StepInbox) -> None:
            heard: asyncio.Queue[UserQuery] = asyncio.Queue(8)

            async def forward() -> None:
                while True:
                    inbox.put_query(await heard.get())

            # Two owned tasks; if one fails the other is cancelled (TaskGroup needs 3.11).
            parts = [
                asyncio.create_task(voice.run(heard), name="voice-listen"),
                asyncio.create_task(forward(), name="voice-forward"),
            ]
            try:
                await asyncio.gather(*parts)
            finally:
                for part in parts:
                    part.cancel()
                await asyncio.gather(*parts, return_exceptions=True)

        tasks.append(("voice", listen))
    return tasks
