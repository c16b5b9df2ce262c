"""Makes the pipeline's parts from a Config: clock, source, models, sinks, assistant.

`build_pipeline` is what `run`, `replay`, the benchmarks and the evaluation call;
`Pipeline` (app.py) runs what it is given, so tests can hand it the parts they choose.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edge_assist.clock import Clock, RealClock, VirtualClock
from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError, SourceError
from edge_assist.outputs.api import OutputSink
from edge_assist.outputs.console import ConsoleOutput
from edge_assist.outputs.decision_log import DecisionLog
from edge_assist.reasoning.api import Assistant
from edge_assist.runtime.app import Pipeline, RunResult, install_signal_handlers, run_sync
from edge_assist.runtime.devices import device_tasks
from edge_assist.runtime.scheduler import Scheduler
from edge_assist.sources.base import FrameSource
from edge_assist.sources.caption_stream import CaptionStream, load_caption_stream, replay_kind

log = logging.getLogger(__name__)


def default_sinks(cfg: Config, *, console: bool | None = None, speech: bool = True) -> list[OutputSink]:
    """The decision log, the console and (when installed and wanted) speech."""
    from edge_assist.outputs.trace_format import TRACES_FILE
    from edge_assist.outputs.trace_log import TraceLog

    sinks: list[OutputSink] = [
        DecisionLog(cfg.data_path(cfg.output.decision_log)),
        TraceLog(cfg.data_path(TRACES_FILE)),
    ]
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
    raise SourceError(
        f"source.kind = {kind!r} is a file: use `edge-assist replay PATH` "
        "(or set source.kind to opencv or picamera2)"
    )


@dataclass
class Models:
    llm: Any
    text_encoder: Any
    vlm: Any = None
    image_encoder: Any = None
    memory_llm: Any = None  # the LLM the memory writer uses (a copy, or `llm` itself)


def load_models(cfg: Config, arbiter: Any = None) -> Models:
    """The configured models, LLM and VLM behind the scheduler's arbiter when one is given."""
    from edge_assist.inference.loader import lazy_llm, load_image_encoder, load_text_encoder, load_vlm
    from edge_assist.runtime.lanes import ScheduledLLM, ScheduledVLM

    # Loaded on first use: the first decision (gate, template wording) needs no LLM.
    llm = lazy_llm(cfg)
    memory_llm = (
        lazy_llm(cfg, copy="memory") if cfg.models.memory_llm_copy and cfg.models.backend == "local" else llm
    )
    vlm = load_vlm(cfg)
    if arbiter is not None:
        # Copies still share the one CPU: every copy goes through the same arbiter.
        memory_llm = ScheduledLLM(memory_llm, arbiter)
        llm = ScheduledLLM(llm, arbiter)
        vlm = ScheduledVLM(vlm, arbiter) if vlm is not None else None
    return Models(
        llm=llm,
        text_encoder=load_text_encoder(cfg),
        vlm=vlm,
        image_encoder=load_image_encoder(cfg),
        memory_llm=memory_llm,
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
    wall_start: float | None = None,
) -> tuple[Pipeline, Callable[[], None]]:
    """A ready Pipeline from the config, and a function that releases what it opened.

    `wall_start` (epoch seconds): memory is stamped with wall_start + the pipeline's clock
    instead of today's wall clock, so a replayed day (or a simulated one) is filed on its
    own date and retention counts its days.
    """

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
            raise EdgeAssistError(
                "video needs a VLM to caption it: set models.vlm, or replay a caption stream"
            )
        from edge_assist.perception.vlm_captioner import VLMCaptioner

        captioner = VLMCaptioner(models.vlm, cfg.captioner)

    memory = writer = None
    closers: list[Callable[[], None]] = []
    if with_memory:
        from edge_assist.memory.memory import Memory
        from edge_assist.memory.writer import MemoryWriter

        wall = None if wall_start is None else (lambda: float(wall_start) + clock.now())
        memory = Memory.open(cfg, models.memory_llm, models.text_encoder, models.image_encoder, wall=wall)
        closers.append(memory.close)
        writer = MemoryWriter(memory, clock, cfg)
    if assistant is None:
        from edge_assist.runtime.assistant import build_assistant

        if memory is None:
            raise EdgeAssistError("the assistant needs memory; build the pipeline with with_memory=True")
        assistant = build_assistant(
            cfg,
            models.llm,
            models.text_encoder,
            memory,
            vlm=models.vlm,
            image_encoder=models.image_encoder,
            clock=clock,
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
        cfg,
        live=False,
        path=path,
        assistant=assistant,
        sinks=sinks if sinks is not None else [],
        on_progress=on_progress,
        with_memory=with_memory,
    )
    if bar is not None:
        total = (
            pipeline.captions.duration_s
            if pipeline.captions is not None
            else (pipeline.frames.duration_s if pipeline.frames else None)
        )
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
