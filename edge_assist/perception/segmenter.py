"""Cuts the frame stream into non-overlapping clips and picks their keyframes.

A clip is [k*L, (k+1)*L) in stream time. Keyframes are the frames nearest to N evenly
spaced instants of the clip, plus the frame where the picture changed most from the one
before it (a cut, a turn of the head, something new in view). Only the candidates are
kept, never the whole clip, so memory per clip is O(N) whatever the frame rate.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import numpy as np

from edge_assist.clock import Clock
from edge_assist.events import Clip, Frame, Keyframe, StreamEnd
from edge_assist.queues import DroppingQueue

# Scene change is measured on a tiny grey thumbnail: enough to see a cut, cheap on a Pi.
_THUMB = (32, 18)


def _thumb(image: np.ndarray) -> np.ndarray:
    import cv2  # only video needs it: a caption stream starts without loading OpenCV

    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return cv2.resize(grey, _THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)


@dataclass
class _Candidate:
    distance: float
    frame: Frame | None = None


class ClipBuilder:
    """Synchronous core of the segmenter: feed frames in order, get finished clips."""

    def __init__(
        self, session_id: str, clip_s: float, keyframes: int, scene_change: bool, first_index: int = 0
    ) -> None:
        self.session_id = session_id
        self.clip_s = clip_s
        self.n_even = keyframes
        self.scene_change = scene_change
        self.next_index = first_index
        self._k: int | None = None  # slot number k of the clip being built
        self._frames = 0
        self._dropped_at_start = 0
        self._even: list[_Candidate] = []
        self._scene: tuple[float, Frame] | None = None
        self._prev_thumb: np.ndarray | None = None
        self._last_t = 0.0

    def _start(self, k: int, dropped: int) -> None:
        self._k = k
        self._frames = 0
        self._dropped_at_start = dropped
        self._even = [_Candidate(float("inf")) for _ in range(self.n_even)]
        self._scene = None

    def _targets(self) -> list[float]:
        assert self._k is not None
        t0 = self._k * self.clip_s
        return [t0 + (i + 0.5) * self.clip_s / self.n_even for i in range(self.n_even)]

    def add(self, frame: Frame, dropped_so_far: int, now: float) -> Clip | None:
        """Add one frame; returns the previous clip when this frame starts a new one."""
        k = int(frame.stream_t // self.clip_s)
        done: Clip | None = None
        if self._k is None:
            self._start(k, dropped_so_far)
        elif k != self._k:
            done = self._finish(now, dropped_so_far, full=True)
            self._start(k, dropped_so_far)
        self._frames += 1
        self._last_t = frame.stream_t
        for cand, target in zip(self._even, self._targets(), strict=True):
            d = abs(frame.stream_t - target)
            if d < cand.distance:
                cand.distance, cand.frame = d, frame
        if self.scene_change:
            thumb = _thumb(frame.image)
            if self._prev_thumb is not None:
                change = float(np.mean(np.abs(thumb - self._prev_thumb)))
                if self._scene is None or change > self._scene[0]:
                    self._scene = (change, frame)
            self._prev_thumb = thumb
        return done

    def flush(self, now: float, dropped_so_far: int) -> Clip | None:
        """The last, possibly partial, clip at the end of the stream."""
        if self._k is None or self._frames == 0:
            return None
        clip = self._finish(now, dropped_so_far, full=False)
        self._k = None
        return clip

    def _finish(self, now: float, dropped_so_far: int, full: bool) -> Clip:
        assert self._k is not None
        t0 = self._k * self.clip_s
        t1 = t0 + self.clip_s if full else max(self._last_t, t0)
        chosen: dict[int, Keyframe] = {}
        for cand in self._even:
            if cand.frame is not None and cand.frame.index not in chosen:
                chosen[cand.frame.index] = Keyframe(cand.frame.stream_t, cand.frame.image, "even")
        if self._scene is not None and self._scene[1].index not in chosen:
            f = self._scene[1]
            chosen[f.index] = Keyframe(f.stream_t, f.image, "scene-change")
        keyframes = tuple(sorted(chosen.values(), key=lambda kf: kf.stream_t))
        clip = Clip(
            t=now,
            session_id=self.session_id,
            index=self.next_index,
            t0=t0,
            t1=t1,
            keyframes=keyframes,
            frame_count=self._frames,
            dropped_frames=dropped_so_far - self._dropped_at_start,
        )
        self.next_index += 1
        return clip


class Segmenter:
    """Stage: frames in (bounded, dropping), clips out (latest wins when the captioner lags)."""

    def __init__(
        self,
        clock: Clock,
        builder: ClipBuilder,
        inbox: DroppingQueue[Frame | StreamEnd],
        outbox: DroppingQueue[Clip | StreamEnd] | asyncio.Queue[Clip | StreamEnd],
    ) -> None:
        self.clock = clock
        self.builder = builder
        self.inbox = inbox
        self.outbox = outbox
        self.clips = 0

    async def _emit(self, item: Clip | StreamEnd) -> None:
        await self.outbox.put(item)

    async def run(self) -> None:
        while True:
            item = await self.inbox.get()
            if isinstance(item, StreamEnd):
                last = self.builder.flush(self.clock.now(), self.inbox.dropped)
                if last is not None:
                    self.clips += 1
                    await self._emit(last)
                # The end marker must not push out the last clips still waiting to be captioned.
                if isinstance(self.outbox, DroppingQueue):
                    await self.outbox.wait_for_room()
                await self._emit(item)
                return
            clip = self.builder.add(item, self.inbox.dropped, self.clock.now())
            if clip is not None:
                self.clips += 1
                await self._emit(clip)
