"""What a `Pipeline` is built from: its source, its memory and its settings.

`assembly.build_pipeline` makes them from a Config; tests and benchmarks hand the
pipeline the parts they choose.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Protocol

from edge_assist.config import Config
from edge_assist.events import Caption, StreamEnd
from edge_assist.memory.api import MemoryReader
from edge_assist.perception.captioner import Captioner
from edge_assist.runtime.reasoner_stage import StepInbox
from edge_assist.sources.base import FrameSource

# A task beside the stages (the glasses link, planted questions), given the step inbox.
TaskFactory = Callable[[StepInbox], Coroutine[Any, Any, None]]
ExtraTask = tuple[str, TaskFactory]


@dataclass(frozen=True)
class VideoSource:
    """A camera or a video file, and the captioner that turns its clips into captions."""

    frames: FrameSource
    captioner: Captioner


class ResumableMemory(MemoryReader, Protocol):
    def next_clip_index(self, session_id: str) -> int:
        """Where a session resumes: one past its highest stored clip (0 for a new session)."""
        ...

    def note_session_task(self, session_id: str, task: str, task_context: str) -> None:
        """The task the session's stream names, for questions asked after the run."""
        ...


class MemoryWriting(Protocol):
    """The background stage that stores each caption and writes the roll-ups."""

    written: int  # captions newly stored

    async def run(self, inbox: asyncio.Queue[Caption | StreamEnd]) -> None: ...


@dataclass(frozen=True)
class MemoryParts:
    reader: ResumableMemory
    writer: MemoryWriting


@dataclass(frozen=True)
class PipelineSettings:
    """The pipeline's own numbers; the models, stores and outputs come built."""

    session_id: str = "live"  # a camera's session; a caption stream names its own
    clip_s: float = 10.0  # stream seconds per clip (one step each)
    keyframes_per_clip: int = 3
    scene_change_pick: bool = True  # keyframes at scene changes rather than evenly spaced
    frame_queue: int = 8  # frames waiting for the segmenter; beyond it the newest are dropped
    clip_queue: int = 1  # clips waiting for the captioner; beyond it the oldest are dropped
    memory_queue: int = 64  # captions waiting for the memory writer; beyond it the reasoner waits
    recent_n: int = 4  # earlier captions every step sees
    task_context: str = ""  # what the wearer is doing; a caption stream may say it instead
    task: str = ""  # the task library's name for it; a caption stream may name it instead
    pace: bool = True  # each frame waits on the clock for its stream time (off: as fast as read)
    stats_interval_s: float = 0.0  # a statistics line in the log this often; 0: only at the end
    question_chars: int = 0  # a longer question is cut (limits.question_chars); 0: no bound

    @classmethod
    def from_config(cls, cfg: Config, *, session_id: str, live: bool) -> PipelineSettings:
        s = cfg.segmenter
        return cls(
            session_id=session_id,
            clip_s=s.clip_s,
            keyframes_per_clip=s.keyframes_per_clip,
            scene_change_pick=s.scene_change_pick,
            frame_queue=s.frame_queue,
            clip_queue=cfg.captioner.queue,
            memory_queue=cfg.memory.write_queue,
            recent_n=cfg.reasoner.context_captions,
            task_context=cfg.reasoner.task_context,
            task=cfg.reasoner.task,
            stats_interval_s=cfg.scheduler.stats_interval_s if live else 0.0,
            question_chars=cfg.limits.question_chars,
        )
