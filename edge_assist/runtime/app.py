"""Wires the stages into the one asyncio process and runs it.

    camera/replay ─▶ segmenter ─▶ captioner ─┐
    caption stream ──────────────────────────┼─▶ reasoner stage ─▶ outputs (log, console, speech, HUD)
                                             └─▶ memory writer (background)

`Pipeline` takes ready-made parts (so tests and benchmarks drive the real thing with
the parts they choose); `assembly.build_pipeline` makes them from a Config. Replay of a file on a
`VirtualClock` runs as fast as possible with the same event order as live.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from edge_assist.clock import Clock, VirtualClock
from edge_assist.errors import EdgeAssistError
from edge_assist.events import Caption, Clip, Decision, Frame, StreamEnd, UserQuery
from edge_assist.outputs.api import OutputSink
from edge_assist.perception.captioner import Captioner, CaptionerStage
from edge_assist.perception.segmenter import ClipBuilder, Segmenter
from edge_assist.queues import DroppingQueue
from edge_assist.reasoning.api import Assistant, SearchGate
from edge_assist.runtime.lanes import Lane, in_lane
from edge_assist.runtime.reasoner_stage import ReasonerStage, StepInbox
from edge_assist.runtime.run_stats import RunStats
from edge_assist.runtime.scheduler import Scheduler
from edge_assist.sources.base import FrameSource
from edge_assist.sources.camera_stage import CameraStage
from edge_assist.sources.caption_stage import CaptionReplayStage
from edge_assist.sources.caption_stream import CaptionStream

log = logging.getLogger(__name__)

# Ctrl-C / SIGTERM: everything is flushed and the process gone within this time.
SHUTDOWN_DEADLINE_S = 2.0
# Part of it given to stages to drain what they hold before they are cancelled.
SHUTDOWN_GRACE_S = 0.5
# Captions waiting for the reasoner before the source waits.
STEP_QUEUE = 8


@dataclass
class RunResult:
    decisions: list[Decision]
    stats: RunStats


class Pipeline:
    """One process, one run: a source, optional captioner and memory writer, an assistant, outputs."""

    def __init__(
        self,
        clock: Clock,
        assistant: Assistant,
        sinks: Sequence[OutputSink],
        *,
        frames: FrameSource | None = None,
        captions: CaptionStream | None = None,
        captioner: Captioner | None = None,
        session_id: str = "live",
        clip_s: float = 10.0,
        keyframes_per_clip: int = 3,
        scene_change_pick: bool = True,
        frame_queue: int = 8,
        clip_queue: int = 1,
        memory: Any = None,  # edge_assist.memory Memory facade (MemoryReader + next_clip_index)
        memory_writer: Any = None,  # a stage with `async run(inbox)` and a `written` counter
        memory_queue: int = 64,
        recent_n: int = 4,
        task_context: str = "",
        task: str = "",
        gate: SearchGate | None = None,
        scheduler: Scheduler | None = None,
        pace: bool = True,
        stats_interval_s: float = 0.0,
        extra_tasks: Sequence[tuple[str, Callable[[StepInbox], Any]]] = (),
        on_progress: Callable[[float], None] | None = None,
    ) -> None:
        if (frames is None) == (captions is None):
            raise ValueError("give exactly one of frames= or captions=")
        if frames is not None and captioner is None:
            raise EdgeAssistError(
                "video needs a captioner: set models.vlm to a VLM (see `edge-assist models list`), "
                "or replay a caption stream (.jsonl/.srt) instead"
            )
        self.clock = clock
        self.assistant = assistant
        self.sinks = list(sinks)
        self.frames = frames
        self.captions = captions
        self.captioner = captioner
        self.session_id = captions.session_id if captions is not None else session_id
        self.clip_s = clip_s
        self.keyframes_per_clip = keyframes_per_clip
        self.scene_change_pick = scene_change_pick
        self.frame_queue = frame_queue
        self.clip_queue = clip_queue
        self.memory = memory
        self.memory_writer = memory_writer
        self.memory_queue = memory_queue
        self.recent_n = recent_n
        self.task_context = task_context or (captions.task_context if captions is not None else "")
        # A stream may name its task of the library ("task"; CaptainCook4D streams say "recipe").
        meta = captions.meta if captions is not None else {}
        self.task = task or str(meta.get("task") or meta.get("recipe") or "")
        self.gate = gate
        self.scheduler = scheduler
        self.pace = pace
        self.stats_interval_s = stats_interval_s
        self.extra_tasks = list(extra_tasks)
        self.on_progress = on_progress
        # Replay on a virtual clock is bit-exact: memory is written at fixed points of stream
        # time (each caption's ingest, roll-ups included, completes before its step), and
        # search budgets follow stream time instead of measured compute time.
        self.memory_lockstep = isinstance(clock, VirtualClock) and memory_writer is not None
        if isinstance(clock, VirtualClock) and scheduler is not None:
            scheduler.use_stream_time(clock.now)
        self.decisions: list[Decision] = []
        self.stats = RunStats(session_id=self.session_id)
        self.inbox = StepInbox(STEP_QUEUE)
        self._supervisor: Any = None

    def _collect(
        self,
        reasoner: Any,
        camera: Any,
        segmenter: Any,
        captioner_stage: Any,
        replay: Any,
        writer: Any,
        started: float,
    ) -> None:
        self.stats.wall_s = time.perf_counter() - started
        self.stats.step_latency_s = reasoner.step_latencies_s
        if camera is not None:
            self.stats.frames = camera.frames
            self.stats.dropped_frames = segmenter.inbox.dropped
            self.stats.clips = segmenter.clips
            self.stats.skipped_clips = captioner_stage.skipped
            self.stats.captions = captioner_stage.captions
            self.stats.caption_latency_s = captioner_stage.latencies_s
        elif replay is not None:
            self.stats.captions = replay.captions
            self.stats.stream_start_s = replay.start_t
        # What was processed, not what was planned: up to the end of the last clip decided.
        done_to = max(
            (d.stream_t1 for d in self.decisions if d.clip_index >= 0), default=self.stats.stream_start_s
        )
        if (
            camera is not None
            and not self.stats.stopped_early
            and self.frames is not None
            and self.frames.duration_s
        ):
            done_to = max(done_to, self.frames.duration_s)  # a finished file was read to its end
        self.stats.stream_s = max(0.0, done_to - self.stats.stream_start_s)
        if writer is not None:
            self.stats.memory_written = int(getattr(writer, "written", 0))

    def ask(self, text: str, source: str = "cli") -> None:
        """A wearer's question, served before the next caption."""
        self.inbox.put_query(UserQuery(t=self.clock.now(), text=text, source=source))

    def request_stop(self) -> None:
        if self._supervisor is not None:
            self._supervisor.request_stop()

    def stats_record(self) -> dict[str, Any]:
        """Run statistics as one JSONL record (the decision log and `run --stats`)."""
        rec: dict[str, Any] = {"type": "stats", "t": round(self.clock.now(), 3)} | self.stats.to_json()
        if self.scheduler is not None:
            rec["scheduler"] = self.scheduler.stats()
        return rec

    def _log_stats(self) -> None:
        rec = self.stats_record()
        for sink in self.sinks:
            sink.write_record(rec)

    async def _stats_loop(self, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)  # wall time: statistics are about the device, not the stream
            self._log_stats()

    async def _drain_sinks(self) -> None:
        """A run that ended by itself lets outputs deliver what they hold (the HUD's acks),
        while the tasks they need (the glasses link) still run; each bounds its own wait."""
        for sink in self.sinks:
            await sink.drain()

    def _record(self, decision: Decision) -> None:
        self.decisions.append(decision)
        self.stats.decisions += 1
        if decision.speak:
            self.stats.spoken += 1
        elif decision.suppressed_by:
            self.stats.suppressed += 1

    async def run(self) -> RunResult:
        from edge_assist.runtime.supervisor import Supervisor

        sup = Supervisor()
        self._supervisor = sup
        started = time.perf_counter()
        first_index = 0
        if self.memory is not None and hasattr(self.memory, "next_clip_index"):
            first_index = int(await self.clock.run_blocking(self.memory.next_clip_index, self.session_id))
            self.stats.resumed_at = first_index

        if hasattr(self.assistant, "warm"):
            await self.assistant.warm(self.task, self.task_context)
        memory_inbox: asyncio.Queue[Caption | StreamEnd] | None = None
        writer = self.memory_writer
        if writer is not None:
            memory_inbox = asyncio.Queue(self.memory_queue)

        reasoner = ReasonerStage(
            self.clock,
            self.assistant,
            self.inbox,
            self.sinks,
            memory_inbox=memory_inbox,
            memory=self.memory,
            recent_n=self.recent_n,
            task_context=self.task_context,
            task=self.task,
            gate=self.gate,
            scheduler=self.scheduler,
            on_decision=self._record,
            memory_lockstep=self.memory_lockstep,
        )

        camera = segmenter = captioner_stage = replay = None
        if self.frames is not None:
            frame_q: DroppingQueue[Frame | StreamEnd] = DroppingQueue(self.frame_queue, drop="newest")
            clip_q: DroppingQueue[Clip | StreamEnd] = DroppingQueue(self.clip_queue, drop="oldest")
            camera = CameraStage(
                self.clock, self.frames, frame_q, pace=self.pace, on_progress=self.on_progress
            )
            builder = ClipBuilder(
                self.session_id, self.clip_s, self.keyframes_per_clip, self.scene_change_pick, first_index
            )
            segmenter = Segmenter(self.clock, builder, frame_q, clip_q)
            assert self.captioner is not None
            captioner_stage = CaptionerStage(self.clock, self.captioner, clip_q, self.inbox)  # type: ignore[arg-type]
            sup.start("camera", camera.run(), source=True)
            sup.start("segmenter", segmenter.run())
            # Captions start every step: their model calls run in the most urgent lane.
            sup.start("captioner", in_lane(Lane.INSTANT, captioner_stage.run()))
        else:
            assert self.captions is not None
            replay = CaptionReplayStage(
                self.clock,
                self.captions,
                self.inbox,  # type: ignore[arg-type]
                first_index=first_index,
                on_progress=self.on_progress,
            )
            sup.start("caption-replay", replay.run(), source=True)
        sup.start("reasoner", reasoner.run())
        if writer is not None:
            sup.start("memory-writer", writer.run(memory_inbox))
        for name, factory in self.extra_tasks:
            sup.start(name, factory(self.inbox), source=True)
        if self.stats_interval_s > 0:
            sup.start("stats", self._stats_loop(self.stats_interval_s), source=True)
        driver = None
        if isinstance(self.clock, VirtualClock):
            driver = asyncio.create_task(self.clock.drive(), name="virtual-clock")

        finish = {"reasoner"} | ({"memory-writer"} if writer is not None else set())
        error: BaseException | None = None
        try:
            await sup.wait(finish)
            if not sup.stop_requested.is_set():
                await self._drain_sinks()
        except BaseException as e:  # re-raised below, after an orderly shutdown
            error = e
        finally:
            self.stats.stopped_early = sup.stop_requested.is_set() or error is not None
            if self.scheduler is not None and self.stats.stopped_early:
                # Stop generations in worker threads now: the loop cannot close before they end.
                self.scheduler.arbiter.shutdown()
            await sup.shutdown(SHUTDOWN_GRACE_S, SHUTDOWN_DEADLINE_S - 0.2)
            if driver is not None:
                driver.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await driver
            self._collect(reasoner, camera, segmenter, captioner_stage, replay, writer, started)
            self._log_stats()
            for sink in self.sinks:
                try:
                    await asyncio.wait_for(sink.close(), timeout=0.5)
                except (TimeoutError, asyncio.TimeoutError):
                    log.warning("output %s did not close in time", sink.name)
        if error is not None:
            raise error
        return RunResult(self.decisions, self.stats)


def install_signal_handlers(pipeline: Pipeline) -> Callable[[], None]:
    """Ctrl-C and SIGTERM stop the pipeline cleanly; returns a function that removes them."""
    loop = asyncio.get_running_loop()
    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, pipeline.request_stop)
            installed.append(sig)

    def remove() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return remove


def run_sync(coro: Any) -> Any:
    """asyncio.run with the loop's default executor shut down promptly."""
    if sys.version_info >= (3, 11):
        with asyncio.Runner() as runner:
            return runner.run(coro)
    return asyncio.run(coro)  # pragma: no cover
