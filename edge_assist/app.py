"""Wires the stages into the one asyncio process and runs it.

    camera/replay ─▶ segmenter ─▶ captioner ─┐
    caption stream ──────────────────────────┼─▶ reasoner stage ─▶ outputs (log, console, speech, HUD)
                                             └─▶ memory writer (background)

`Pipeline` takes ready-made parts (so tests and benchmarks drive the real thing with
the parts they choose); `build_pipeline` makes them from a Config. Replay of a file on a
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
from pathlib import Path
from typing import Any

from edge_assist.clock import Clock, RealClock, VirtualClock
from edge_assist.config import Config
from edge_assist.devices import device_tasks
from edge_assist.errors import EdgeAssistError, SourceError
from edge_assist.events import Caption, Clip, Decision, Frame, StreamEnd, UserQuery
from edge_assist.outputs.api import OutputSink
from edge_assist.outputs.console import ConsoleOutput
from edge_assist.outputs.decision_log import DecisionLog
from edge_assist.perception.captioner import Captioner, CaptionerStage
from edge_assist.perception.segmenter import ClipBuilder, Segmenter
from edge_assist.queues import DroppingQueue
from edge_assist.reasoner_stage import ReasonerStage, StepInbox
from edge_assist.reasoning.api import Assistant, SearchGate
from edge_assist.run_stats import RunStats
from edge_assist.scheduler import Lane, Scheduler, in_lane
from edge_assist.sources.base import FrameSource
from edge_assist.sources.camera_stage import CameraStage
from edge_assist.sources.caption_stage import CaptionReplayStage
from edge_assist.sources.caption_stream import CaptionStream, load_caption_stream, replay_kind

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

    def _collect(self, reasoner: Any, camera: Any, segmenter: Any, captioner_stage: Any, replay: Any, writer: Any, started: float) -> None:
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
        done_to = max((d.stream_t1 for d in self.decisions if d.clip_index >= 0), default=self.stats.stream_start_s)
        if camera is not None and not self.stats.stopped_early and self.frames is not None and self.frames.duration_s:
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
            write = getattr(sink, "write_record", None)
            if write is not None:
                write(rec)

    async def _stats_loop(self, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)  # wall time: statistics are about the device, not the stream
            self._log_stats()

    async def _drain_sinks(self) -> None:
        """A run that ended by itself lets outputs deliver what they hold (the HUD's acks),
        while the tasks they need (the glasses link) still run; each bounds its own wait."""
        for sink in self.sinks:
            drain = getattr(sink, "drain", None)
            if drain is not None:
                await drain()

    def _record(self, decision: Decision) -> None:
        self.decisions.append(decision)
        self.stats.decisions += 1
        if decision.speak:
            self.stats.spoken += 1
        elif decision.suppressed_by:
            self.stats.suppressed += 1

    async def run(self) -> RunResult:
        from edge_assist.supervisor import Supervisor

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
            camera = CameraStage(self.clock, self.frames, frame_q, pace=self.pace, on_progress=self.on_progress)
            builder = ClipBuilder(self.session_id, self.clip_s, self.keyframes_per_clip, self.scene_change_pick, first_index)
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
                self.clock, self.captions, self.inbox, first_index=first_index, on_progress=self.on_progress  # type: ignore[arg-type]
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
                    log.warning("output %s did not close in time", getattr(sink, "name", sink))
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


def default_sinks(cfg: Config, *, console: bool | None = None, speech: bool = True) -> list[OutputSink]:
    """The decision log, the console and (when installed and wanted) speech."""
    from edge_assist.outputs.trace_log import TraceLog
    from edge_assist.reasoning.trace import TRACES_FILE

    sinks: list[OutputSink] = [DecisionLog(cfg.data_path(cfg.output.decision_log)), TraceLog(cfg.data_path(TRACES_FILE))]
    if cfg.output.console if console is None else console:
        sinks.append(ConsoleOutput(show_silent=cfg.output.console_silent))
    if speech:
        from edge_assist.outputs.speech import SpeechOutput, resolve_engine

        if resolve_engine(cfg.output) != "off":
            sinks.append(SpeechOutput(cfg.output))
    return sinks


def make_clock(cfg: Config, *, live: bool) -> Clock:
    return RealClock() if live or cfg.source.realtime else VirtualClock()


def open_replay_source(cfg: Config, path: str | Path) -> tuple[CaptionStream | None, FrameSource | None]:
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{p} does not exist; give a video file or a caption stream (.jsonl/.srt)")
    if replay_kind(p) == "captions":
        return load_caption_stream(p), None
    from edge_assist.sources.video_file import VideoFileSource

    video = VideoFileSource(p, cfg.source.fps)
    # Decode the first frame now: a corrupt file is reported before any model loads.
    video.open()
    video.close()
    return None, video


def open_camera(cfg: Config) -> FrameSource:
    kind = cfg.source.kind
    if kind == "opencv":
        from edge_assist.sources.opencv_camera import OpenCVCamera

        s = cfg.source
        return OpenCVCamera(s.device, s.width_px, s.height_px, s.fps, s.open_timeout_s)
    if kind == "picamera2":
        from edge_assist.sources.picamera import PiCamera

        s = cfg.source
        return PiCamera(s.width_px, s.height_px, s.fps, s.open_timeout_s)
    raise SourceError(f"source.kind = {kind!r} is a file: use `edge-assist replay PATH` (or set source.kind to opencv or picamera2)")


def run_sync(coro: Any) -> Any:
    """asyncio.run with the loop's default executor shut down promptly."""
    if sys.version_info >= (3, 11):
        with asyncio.Runner() as runner:
            return runner.run(coro)
    return asyncio.run(coro)  # pragma: no cover


@dataclass
class Models:
    llm: Any
    text_encoder: Any
    vlm: Any = None
    image_encoder: Any = None
    memory_llm: Any = None  # the LLM the memory writer uses (a copy, or `llm` itself)


def load_models(cfg: Config, arbiter: Any = None) -> Models:
    """The configured models, LLM and VLM behind the scheduler's arbiter when one is given."""
    from edge_assist.inference.loader import load_image_encoder, load_llm, load_text_encoder, load_vlm
    from edge_assist.scheduler import ScheduledLLM, ScheduledVLM

    llm = load_llm(cfg)
    memory_llm = load_llm(cfg, copy="memory") if cfg.models.memory_llm_copy and cfg.models.backend == "local" else llm
    vlm = load_vlm(cfg)
    if arbiter is not None:
        # Copies still share the one CPU: every copy goes through the same arbiter.
        memory_llm = ScheduledLLM(memory_llm, arbiter)
        llm = ScheduledLLM(llm, arbiter)
        vlm = ScheduledVLM(vlm, arbiter) if vlm is not None else None
    return Models(
        llm=llm, text_encoder=load_text_encoder(cfg), vlm=vlm, image_encoder=load_image_encoder(cfg), memory_llm=memory_llm
    )


def build_pipeline(
    cfg: Config,
    *,
    live: bool,
    path: str | Path | None = None,
    assistant: Assistant | None = None,
    sinks: Sequence[OutputSink] | None = None,
    clock: Clock | None = None,
    on_progress: Callable[[float], None] | None = None,
    with_memory: bool = True,
) -> tuple[Pipeline, Callable[[], None]]:
    """A ready Pipeline from the config, and a function that releases what it opened."""
    from edge_assist.scheduler import Scheduler

    clock = clock or make_clock(cfg, live=live)
    captions: CaptionStream | None = None
    frames: FrameSource | None = None
    if path is not None:
        captions, frames = open_replay_source(cfg, path)
    elif live:
        frames = open_camera(cfg)
    else:
        raise SourceError("nothing to replay: give a path")

    if frames is not None and not cfg.models.vlm and cfg.models.backend == "local":
        raise EdgeAssistError(
            "video needs a VLM to caption it and none is configured: set models.vlm "
            "(see `edge-assist models list`, then `edge-assist models pull NAME`), "
            "or replay a caption stream (.jsonl/.srt)"
        )
    scheduler = Scheduler(cfg)
    models = load_models(cfg, scheduler.arbiter)
    scheduler.paths = tuple(p for p in scheduler.paths if p != "visual" or models.image_encoder is not None)
    captioner = None
    if frames is not None:
        if models.vlm is None:
            raise EdgeAssistError("video needs a VLM to caption it: set models.vlm, or replay a caption stream")
        from edge_assist.perception.vlm_captioner import VLMCaptioner

        captioner = VLMCaptioner(models.vlm, cfg.captioner)

    memory = writer = None
    closers: list[Callable[[], None]] = []
    if with_memory:
        from edge_assist.memory.memory import Memory
        from edge_assist.memory.writer import MemoryWriter

        memory = Memory.open(cfg, models.memory_llm, models.text_encoder, models.image_encoder)
        closers.append(memory.close)
        writer = MemoryWriter(memory, clock, cfg)
    if assistant is None:
        from edge_assist.assistant import build_assistant

        if memory is None:
            raise EdgeAssistError("the assistant needs memory; build the pipeline with with_memory=True")
        assistant = build_assistant(
            cfg, models.llm, models.text_encoder, memory, vlm=models.vlm, image_encoder=models.image_encoder, clock=clock
        )
    sink_list = list(sinks) if sinks is not None else default_sinks(cfg, speech=live or cfg.source.realtime)
    # The glasses get decisions in every mode; a replay faster than real time waits for them
    # to connect and for their acknowledgements (devices.py). Voice only listens live.
    extra = device_tasks(cfg, clock, scheduler, sink_list, paced=live or cfg.source.realtime)
    s = cfg.segmenter
    pipeline = Pipeline(
        clock,
        assistant,
        sink_list,
        frames=frames,
        captions=captions,
        captioner=captioner,
        session_id=captions.session_id if captions is not None else f"live-{time.strftime('%Y%m%d-%H%M%S')}",
        clip_s=s.clip_s,
        keyframes_per_clip=s.keyframes_per_clip,
        scene_change_pick=s.scene_change_pick,
        frame_queue=s.frame_queue,
        clip_queue=cfg.captioner.queue,
        memory=memory,
        memory_writer=writer,
        memory_queue=cfg.memory.write_queue,
        recent_n=cfg.reasoner.context_captions,
        task_context=cfg.reasoner.task_context,
        task=cfg.reasoner.task,
        scheduler=scheduler,
        pace=True,
        stats_interval_s=cfg.scheduler.stats_interval_s if live else 0.0,
        extra_tasks=extra,
        on_progress=on_progress,
    )

    def close() -> None:
        for c in reversed(closers):
            with contextlib.suppress(Exception):
                c()

    return pipeline, close


def run_replay(
    cfg: Config,
    path: str | Path,
    *,
    assistant: Assistant | None = None,
    sinks: Sequence[OutputSink] | None = None,
    progress: bool = False,
    with_memory: bool = True,
) -> RunResult:
    """Replay a caption stream or a video through the whole pipeline and return its decisions.

    On the virtual clock unless `source.realtime` is set. Used by `edge-assist replay`,
    the evaluation harness and the benchmarks.
    """
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=None, unit="s", desc="replay", leave=False, dynamic_ncols=True, file=sys.stderr)

    def on_progress(t: float) -> None:
        if bar is not None:
            bar.update(max(0.0, t - bar.n))

    pipeline, close = build_pipeline(
        cfg, live=False, path=path, assistant=assistant, sinks=sinks if sinks is not None else [], on_progress=on_progress,
        with_memory=with_memory,
    )
    if bar is not None:
        total = pipeline.captions.duration_s if pipeline.captions is not None else (pipeline.frames.duration_s if pipeline.frames else None)
        bar.total = round(total, 1) if total else None
    try:
        return run_sync(_run_with_signals(pipeline))
    finally:
        if bar is not None:
            bar.close()
        close()


async def _run_with_signals(pipeline: Pipeline) -> RunResult:
    remove = install_signal_handlers(pipeline)
    try:
        return await pipeline.run()
    finally:
        remove()
