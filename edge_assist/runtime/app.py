"""Wires the stages into the one asyncio process and runs it.

    camera/replay ─▶ segmenter ─▶ captioner ─┐
    caption stream ──────────────────────────┼─▶ reasoner stage ─▶ outputs (log, console, speech, HUD)
                                             └─▶ memory writer (background)

`Pipeline` takes ready-made parts (`parts.py`: the source, the memory, the settings), so
tests and benchmarks drive the real thing with the parts they choose;
`assembly.build_pipeline` makes them from a Config. Replay of a file on a `VirtualClock`
runs as fast as possible with the same event order as live.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from edge_assist.clock import Clock, VirtualClock
from edge_assist.events import Caption, Clip, Decision, Frame, StreamEnd, UserQuery
from edge_assist.outputs.api import OutputSink
from edge_assist.perception.captioner import CaptionerStage
from edge_assist.perception.segmenter import ClipBuilder, Segmenter
from edge_assist.queues import DroppingQueue
from edge_assist.reasoning.api import Assistant
from edge_assist.reasoning.held_alerts import behind_weaker, spoken_after_held
from edge_assist.runtime.lanes import Lane, in_lane
from edge_assist.runtime.parts import ExtraTask, MemoryParts, PipelineSettings, VideoSource
from edge_assist.runtime.reasoner_stage import ReasonerStage, StepInbox
from edge_assist.runtime.run_stats import RunStats
from edge_assist.runtime.scheduler import Scheduler
from edge_assist.runtime.stop_deadline import stop_signal
from edge_assist.runtime.supervisor import Supervisor
from edge_assist.sources.base import FrameSource
from edge_assist.sources.camera_stage import CameraStage
from edge_assist.sources.caption_stage import CaptionReplayStage
from edge_assist.sources.caption_stream import CaptionStream
from edge_assist.tasks.library import stream_task

log = logging.getLogger(__name__)
T = TypeVar("T")

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


@dataclass
class _Stages:
    """The stages of one run, read for its statistics at the end."""

    reasoner: ReasonerStage
    camera: CameraStage | None = None
    segmenter: Segmenter | None = None
    captioner: CaptionerStage | None = None
    replay: CaptionReplayStage | None = None


class Pipeline:
    """One process, one run: a source, optional memory, an assistant and its outputs."""

    def __init__(
        self,
        clock: Clock,
        assistant: Assistant,
        sinks: Sequence[OutputSink],
        source: CaptionStream | VideoSource,
        *,
        memory: MemoryParts | None = None,
        scheduler: Scheduler | None = None,
        settings: PipelineSettings = PipelineSettings(),
        extra_tasks: Sequence[ExtraTask] = (),
        on_progress: Callable[[float], None] | None = None,
    ) -> None:
        self.clock = clock
        self.assistant = assistant
        self.sinks = list(sinks)
        self.source = source
        self.memory = memory
        self.scheduler = scheduler
        self.settings = settings
        self.extra_tasks = list(extra_tasks)
        self.on_progress = on_progress
        captions = self.captions
        self.session_id = captions.session_id if captions is not None else settings.session_id
        self.task_context = settings.task_context or (captions.task_context if captions is not None else "")
        # A stream may name its task of the library ("task"; CaptainCook4D streams say "recipe"),
        # or say its task is the list in its task context ("task_list": true).
        meta = captions.meta if captions is not None else {}
        self.task = settings.task or stream_task(meta)
        # Replay on a virtual clock is bit-exact: memory is written at fixed points of stream
        # time (each caption's ingest, roll-ups included, completes before its step), and
        # search budgets follow stream time instead of measured compute time.
        self.memory_lockstep = isinstance(clock, VirtualClock) and memory is not None
        if isinstance(clock, VirtualClock) and scheduler is not None:
            scheduler.use_stream_time(clock.now)
        self.decisions: list[Decision] = []
        self.stats = RunStats(session_id=self.session_id)
        self.inbox = StepInbox(STEP_QUEUE, question_chars=settings.question_chars)
        self._supervisor: Supervisor | None = None

    @property
    def captions(self) -> CaptionStream | None:
        return self.source if isinstance(self.source, CaptionStream) else None

    @property
    def frames(self) -> FrameSource | None:
        return self.source.frames if isinstance(self.source, VideoSource) else None

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

    async def _close_sinks(self) -> None:
        for sink in self.sinks:
            try:
                await asyncio.wait_for(sink.close(), timeout=0.5)
            except (TimeoutError, asyncio.TimeoutError):
                log.warning("output %s did not close in time", sink.name)

    def _record(self, decision: Decision) -> None:
        self.decisions.append(decision)
        self.stats.decisions += 1
        if decision.speak:
            self.stats.spoken += 1
            self.stats.spoken_after_held += spoken_after_held(decision.reason)
        elif decision.suppressed_by:
            self.stats.suppressed += 1
            self.stats.held_behind_weaker += behind_weaker(decision.suppressed_by)

    async def _resume_point(self) -> int:
        """The first clip index of this run: where memory of this session ends."""
        if self.memory is None:
            return 0
        first_index = int(await self.clock.run_blocking(self.memory.reader.next_clip_index, self.session_id))
        self.stats.resumed_at = first_index
        if self.task or self.task_context:
            note = self.memory.reader.note_session_task
            await self.clock.run_blocking(note, self.session_id, self.task, self.task_context)
        return first_index

    def _start_video(
        self, sup: Supervisor, video: VideoSource, first_index: int, reasoner: ReasonerStage
    ) -> _Stages:
        s = self.settings
        frame_q: DroppingQueue[Frame | StreamEnd] = DroppingQueue(s.frame_queue, drop="newest")
        clip_q: DroppingQueue[Clip | StreamEnd] = DroppingQueue(s.clip_queue, drop="oldest")
        camera = CameraStage(self.clock, video.frames, frame_q, pace=s.pace, on_progress=self.on_progress)
        builder = ClipBuilder(
            self.session_id, s.clip_s, s.keyframes_per_clip, s.scene_change_pick, first_index
        )
        segmenter = Segmenter(self.clock, builder, frame_q, clip_q)
        captioner = CaptionerStage(self.clock, video.captioner, clip_q, self.inbox)  # type: ignore[arg-type]
        sup.start("camera", camera.run(), source=True)
        sup.start("segmenter", segmenter.run())
        # Captions start every step: their model calls run in the most urgent lane.
        sup.start("captioner", in_lane(Lane.INSTANT, captioner.run()))
        return _Stages(reasoner, camera, segmenter, captioner)

    def _start(self, sup: Supervisor, first_index: int) -> _Stages:
        """Every stage and task of the run, started in the order events must flow."""
        memory_inbox: asyncio.Queue[Caption | StreamEnd] | None = (
            asyncio.Queue(self.settings.memory_queue) if self.memory is not None else None
        )
        reasoner = ReasonerStage(
            self.clock,
            self.assistant,
            self.inbox,
            self.sinks,
            memory_inbox=memory_inbox,
            memory=self.memory.reader if self.memory is not None else None,
            recent_n=self.settings.recent_n,
            task_context=self.task_context,
            task=self.task,
            scheduler=self.scheduler,
            on_decision=self._record,
            memory_lockstep=self.memory_lockstep,
        )
        if isinstance(self.source, VideoSource):
            stages = self._start_video(sup, self.source, first_index, reasoner)
        else:
            replay = CaptionReplayStage(
                self.clock,
                self.source,
                self.inbox,  # type: ignore[arg-type]
                first_index=first_index,
                on_progress=self.on_progress,
            )
            sup.start("caption-replay", replay.run(), source=True)
            stages = _Stages(reasoner, replay=replay)
        sup.start("reasoner", reasoner.run())
        if self.memory is not None:
            assert memory_inbox is not None
            sup.start("memory-writer", self.memory.writer.run(memory_inbox))
        for name, factory in self.extra_tasks:
            sup.start(name, factory(self.inbox), source=True)
        if self.settings.stats_interval_s > 0:
            sup.start("stats", self._stats_loop(self.settings.stats_interval_s), source=True)
        return stages

    def _collect(self, stages: _Stages, started: float) -> None:
        stats = self.stats
        stats.wall_s = time.perf_counter() - started
        stats.step_latency_s = stages.reasoner.step_latencies_s
        if stages.camera is not None and stages.segmenter is not None and stages.captioner is not None:
            stats.frames = stages.camera.frames
            stats.dropped_frames = stages.segmenter.inbox.dropped
            stats.clips = stages.segmenter.clips
            stats.skipped_clips = stages.captioner.skipped
            stats.captions = stages.captioner.captions
            stats.caption_latency_s = stages.captioner.latencies_s
        elif stages.replay is not None:
            stats.captions = stages.replay.captions
            stats.stream_start_s = stages.replay.start_t
        # What was processed, not what was planned: up to the end of the last clip decided.
        done_to = max(
            (d.stream_t1 for d in self.decisions if d.clip_index >= 0), default=stats.stream_start_s
        )
        frames = self.frames
        if stages.camera is not None and not stats.stopped_early and frames is not None and frames.duration_s:
            done_to = max(done_to, frames.duration_s)  # a finished file was read to its end
        stats.stream_s = max(0.0, done_to - stats.stream_start_s)
        if self.memory is not None:
            stats.memory_written = self.memory.writer.written

    async def run(self) -> RunResult:
        sup = Supervisor()
        self._supervisor = sup
        started = time.perf_counter()
        first_index = await self._resume_point()
        if hasattr(self.assistant, "warm"):
            await self.assistant.warm(self.task, self.task_context)
        stages = self._start(sup, first_index)
        driver = None
        if isinstance(self.clock, VirtualClock):
            driver = asyncio.create_task(self.clock.drive(), name="virtual-clock")
        finish = {"reasoner"} | ({"memory-writer"} if self.memory is not None else set())
        error: BaseException | None = None
        try:
            await sup.wait(finish)
            if not sup.stop_requested.is_set():
                await self._drain_sinks()
        except BaseException as e:  # re-raised below, after an orderly shutdown
            error = e
        finally:
            self.stats.stopped_early = sup.stop_requested.is_set() or error is not None
            await self._shut_down(sup, driver)
            self._collect(stages, started)
            self._log_stats()
            await self._close_sinks()
        if error is not None:
            raise error
        return RunResult(self.decisions, self.stats)

    async def _shut_down(self, sup: Supervisor, driver: asyncio.Task[None] | None) -> None:
        if self.scheduler is not None and self.stats.stopped_early:
            # Stop generations in worker threads now: the loop cannot close before they end.
            self.scheduler.arbiter.shutdown()
        await sup.shutdown(SHUTDOWN_GRACE_S, SHUTDOWN_DEADLINE_S - 0.2)
        if driver is not None:
            driver.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await driver


def install_signal_handlers(pipeline: Pipeline) -> Callable[[], None]:
    """Ctrl-C and SIGTERM stop the pipeline cleanly; returns a function that removes them."""
    loop = asyncio.get_running_loop()
    installed = []

    def on_signal() -> None:
        pipeline.request_stop()
        stop_signal()

    for sig in (signal.SIGINT, signal.SIGTERM):
        # Not on Windows' loop (NotImplementedError) nor off the main thread (RuntimeError, e.g. a
        # pipeline run by a test's or an evaluation worker's thread): there the caller stops it.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, on_signal)
            installed.append(sig)

    def remove() -> None:
        for sig in installed:
            loop.remove_signal_handler(sig)

    return remove


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """asyncio.run with the loop's default executor shut down promptly."""
    if sys.version_info >= (3, 11):
        with asyncio.Runner() as runner:
            return runner.run(coro)
    return asyncio.run(coro)  # pragma: no cover
