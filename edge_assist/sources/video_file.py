"""Replay of a recorded video file, decoded with OpenCV and subsampled to the configured rate."""

from __future__ import annotations

import logging
from pathlib import Path

import cv2
import numpy as np

from edge_assist.errors import SourceError
from edge_assist.sources.base import RawFrame

log = logging.getLogger(__name__)


class VideoFileSource:
    live = False

    def __init__(self, path: str | Path, fps: float, *, max_side_px: int = 0) -> None:
        self.path = Path(path)
        # An 8K recording would hold a 100 MB array per frame through the segmenter and the
        # keyframe store; the VLM sees a few hundred pixels of it anyway. 0: no bound.
        self._max_side_px = max_side_px
        self._scaled_from: tuple[int, int] | None = None
        self.name = f"video:{self.path.name}"
        self._fps = fps
        self._cap: cv2.VideoCapture | None = None
        self._file_fps = 0.0
        self._index = 0
        self._next_t = 0.0
        self.duration_s: float | None = None

    def open(self) -> None:
        if not self.path.exists():
            raise SourceError(f"video file {self.path} does not exist; check the path")
        if not self.path.is_file():
            raise SourceError(f"{self.path} is not a file; give a video file such as recording.mp4")
        cap = cv2.VideoCapture(str(self.path))
        ok = cap.isOpened()
        first = cap.read() if ok else (False, None)
        if not ok or not first[0] or first[1] is None:
            cap.release()
            raise SourceError(
                f"cannot decode video {self.path}: the file is corrupt or in a format OpenCV cannot read; "
                f"convert it with `ffmpeg -i {self.path} -c:v libx264 out.mp4`"
            )
        # Rewind after the probe read so the first frame is replayed too.
        cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
        self._cap = cap
        fps = cap.get(cv2.CAP_PROP_FPS)
        self._file_fps = fps if fps and fps > 0 else 30.0
        frames = cap.get(cv2.CAP_PROP_FRAME_COUNT)
        self.duration_s = frames / self._file_fps if frames and frames > 0 else None
        self._index = 0
        self._next_t = 0.0

    def read(self) -> RawFrame | None:
        if self._cap is None:
            raise SourceError("video read before open")
        while True:
            ok, image = self._cap.read()
            if not ok or image is None:
                return None
            t = self._index / self._file_fps
            self._index += 1
            if t + 1e-6 >= self._next_t:
                self._next_t += 1.0 / self._fps
                return RawFrame(t, self._bounded(image))

    def _bounded(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        side = self._max_side_px
        if not side or max(h, w) <= side:
            return image
        if self._scaled_from is None:
            self._scaled_from = (w, h)
            log.warning(
                "%s: frames of %dx%d are scaled down to a longest side of limits.frame_side_px = %d",
                self.path,
                w,
                h,
                side,
            )
        scale = side / max(h, w)
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        return cv2.resize(image, size, interpolation=cv2.INTER_AREA)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
