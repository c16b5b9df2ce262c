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
from typing import TYPE_CHECKING

from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.events import UserQuery
from edge_assist.outputs.api import OutputSink
from edge_assist.runtime.parts import ExtraTask, TaskFactory
from edge_assist.runtime.reasoner_stage import StepInbox
from edge_assist.runtime.scheduler import Scheduler

if TYPE_CHECKING:  # the glasses' modules load only when the glasses are configured
    from edge_assist.outputs.feedback import FeedbackLog
    from edge_assist.outputs.glasses_link import BridgeLink

log = logging.getLogger(__name__)


def device_tasks(
    cfg: Config, clock: Clock, scheduler: Scheduler, sinks: list[OutputSink], *, paced: bool = True
) -> list[ExtraTask]:
    """Tasks for the configured devices; a HUD sink is appended to `sinks` when the glasses are configured.

    `paced` is false for a replay faster than real time: the HUD then waits for the glasses
    before its first message, and voice input (a microphone on a virtual clock) stays off.
    In every mode a run that ends by itself lets the HUD drain (acknowledgements) first.
    """
    tasks: list[ExtraTask] = []
    link = None
    if cfg.bridge.transport != "off":
        from edge_assist.outputs.feedback import FILE as FEEDBACK_FILE
        from edge_assist.outputs.feedback import FeedbackLog
        from edge_assist.outputs.glasses_link import BridgeLink

        link = BridgeLink.from_config(cfg, clock)
        sinks.append(_hud(cfg, link, paced=paced))
        # "thanks" / "not now" on the glasses (or a spoken "stop") label the alert they answer.
        feedback = FeedbackLog(cfg.data_path(FEEDBACK_FILE))
        sinks.append(feedback)
        tasks.append(("bridge", _glasses_inbound(link, feedback, scheduler, clock)))
    if cfg.voice.enabled and paced:
        tasks.append(("voice", _voice(cfg, clock, link)))
    return tasks


def _hud(cfg: Config, link: BridgeLink, *, paced: bool) -> OutputSink:
    from edge_assist.outputs.hud import HudOutput

    b = cfg.bridge
    where = f"{b.transport} {b.host}:{b.port}" if b.transport == "udp" else f"{b.transport} {b.serial_device}"
    return HudOutput(
        link,
        min_duration_s=cfg.output.hud_min_duration_s,
        wait_for_glasses_s=0.0 if paced else b.connect_wait_s,
        drain_s=min(max(b.connect_wait_s, b.ack_timeout_s), b.ack_timeout_s * (b.max_retries + 1)),
        where=where,
    )


def _glasses_inbound(
    link: BridgeLink, feedback: FeedbackLog, scheduler: Scheduler, clock: Clock
) -> TaskFactory:
    """The link's own task: questions to the inbox, status to the scheduler, buttons to feedback."""
    from edge_assist.events import ButtonEvent, GlassesStatus
    from edge_assist.outputs.feedback import SIGNALS

    async def bridge(inbox: StepInbox) -> None:
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

    return bridge


def _voice(cfg: Config, clock: Clock, link: BridgeLink | None) -> TaskFactory:
    """Spoken questions to the inbox (push-to-talk on the glasses' button when configured)."""
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

    return listen
