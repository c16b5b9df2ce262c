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

from edge_assist.clock import Clock, RealClock, VirtualClock
from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError, SourceError
from edge_assist.inference.base import LLM, VLM, ImageEncoder, TextEncoder
from edge_assist.outputs.api import OutputSink
from edge_assist.outputs.console import ConsoleOutput
from edge_assist.outputs.decision_log import DecisionLog
from edge_assist.reasoning.api import Assistant
from edge_assist.runtime.app import Pipeline, RunResult, install_signal_handlers, run_sync
from edge_assist.runtime.devices import device_tasks
from edge_assist.runtime.lanes import ModelArbiter, ScheduledLLM, ScheduledVLM
from edge_assist.runtime.parts import MemoryParts, PipelineSettings, VideoSource
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


def open_replay_source(cfg: Config, path: str | Path) -> CaptionStream | FrameSource:
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{p} does not exist; give a video file or a caption stream (.jsonl/.srt)")
    if replay_kind(p) == "captions":
        return load_caption_stream(p, cfg.limits)
    from edge_assist.sources.video_file import VideoFileSource

    video = VideoFileSource(p, cfg.source.fps, max_side_px=cfg.limits.frame_side_px)
    # Decode the first frame now: a corrupt file is reported before any model loads.
    video.open()
    video.close()
    return video


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


@dataclass(frozen=True)
class Models:
    llm: LLM
    text_encoder: TextEncoder
    memory_llm: LLM  # the LLM the memory writer uses (a copy, or `llm` itself)
    vlm: VLM | None = None
    image_encoder: ImageEncoder | None = None


def load_models(cfg: Config, arbiter: ModelArbiter | None = None) -> Models:
    """The configured models, LLM and VLM behind the scheduler's arbiter when one is given."""
    from edge_assist.inference.loader import lazy_llm, load_image_encoder, load_text_encoder, load_vlm

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


def open_source(cfg: Config, *, live: bool, path: str | Path | None) -> CaptionStream | FrameSource:
    """The caption stream or video file to replay, or the camera when live."""
    if path is not None:
        return open_replay_source(cfg, path)
    if live:
        return open_camera(cfg)
    raise SourceError("nothing to replay: give a path")


def check_captioner_configured(cfg: Config, source: CaptionStream | FrameSource) -> None:
    """Video needs a VLM: said before any model loads."""
    if not isinstance(source, CaptionStream) and not cfg.models.vlm and cfg.models.backend == "local":
        raise EdgeAssistError(
            "video needs a VLM to caption it and none is configured: set models.vlm "
            "(see `edge-assist models list`, then `edge-assist models pull NAME`), "
            "or replay a caption stream (.jsonl/.srt)"
        )


def with_captioner(
    cfg: Config, source: CaptionStream | FrameSource, models: Models
) -> CaptionStream | VideoSource:
    """A video source with the VLM captioner that turns its clips into captions."""
    if isinstance(source, CaptionStream):
        return source
    if models.vlm is None:
        raise EdgeAssistError("video needs a VLM to caption it: set models.vlm, or replay a caption stream")
    from edge_assist.perception.vlm_captioner import VLMCaptioner

    return VideoSource(source, VLMCaptioner(models.vlm, cfg.captioner))


def open_memory(
    cfg: Config, models: Models, clock: Clock, wall_start: float | None
) -> tuple[MemoryParts, Callable[[], None]]:
    """The wearer's memory and its background writer, and the function that closes it.

    `wall_start` (epoch seconds): memory is stamped with wall_start + the pipeline's clock
    instead of today's wall clock, so a replayed day (or a simulated one) is filed on its
    own date and retention counts its days.
    """
    from edge_assist.memory.memory import Memory
    from edge_assist.memory.writer import MemoryWriter

    wall = None if wall_start is None else (lambda: float(wall_start) + clock.now())
    memory = Memory.open(cfg, models.memory_llm, models.text_encoder, models.image_encoder, wall=wall)
    return MemoryParts(memory, MemoryWriter(memory, clock, cfg)), memory.close


def default_assistant(cfg: Config, models: Models, memory: MemoryParts | None, clock: Clock) -> Assistant:
    from edge_assist.runtime.assistant import build_assistant

    if memory is None:
        raise EdgeAssistError("the assistant needs memory; build the pipeline with with_memory=True")
    return build_assistant(
        cfg,
        models.llm,
        models.text_encoder,
        memory.reader,
        vlm=models.vlm,
        image_encoder=models.image_encoder,
        clock=clock,
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

    `wall_start`: the epoch second stream time 0 is filed at in memory (see `open_memory`).
    """
    clock = clock or make_clock(cfg, live=live)
    opened = open_source(cfg, live=live, path=path)
    check_captioner_configured(cfg, opened)
    scheduler = Scheduler(cfg)
    models = load_models(cfg, scheduler.arbiter)
    scheduler.paths = tuple(p for p in scheduler.paths if p != "visual" or models.image_encoder is not None)
    source = with_captioner(cfg, opened, models)
    memory, close_memory = open_memory(cfg, models, clock, wall_start) if with_memory else (None, None)
    assistant = assistant or default_assistant(cfg, models, memory, clock)
    paced = live or cfg.source.realtime
    sink_list = list(sinks) if sinks is not None else default_sinks(cfg, speech=paced)
    # The glasses get decisions in every mode; a replay faster than real time waits for them
    # to connect and for their acknowledgements (devices.py). Voice only listens live.
    extra = device_tasks(cfg, clock, scheduler, sink_list, paced=paced)
    session_id = (
        source.session_id if isinstance(source, CaptionStream) else f"live-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    settings = PipelineSettings.from_config(cfg, session_id=session_id, live=live)
    pipeline = Pipeline(
        clock,
        assistant,
        sink_list,
        source,
        memory=memory,
        scheduler=scheduler,
        settings=settings,
        extra_tasks=extra,
        on_progress=on_progress,
    )

    def close() -> None:
        if close_memory is not None:
            with contextlib.suppress(Exception):
                close_memory()

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
