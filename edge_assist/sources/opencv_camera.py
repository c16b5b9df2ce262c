"""USB/V4L2 cameras and network streams through OpenCV's VideoCapture."""

from __future__ import annotations

import logging
import os
import time

import cv2

from edge_assist.errors import SourceError
from edge_assist.sources.base import RawFrame

log = logging.getLogger(__name__)

# Between two attempts to open a camera that is not there yet (USB still enumerating,
# glasses still booting): long enough not to spin, short enough to start promptly.
_OPEN_RETRY_S = 0.5


class OpenCVCamera:
    live = True
    duration_s: float | None = None

    def __init__(self, device: str, width_px: int, height_px: int, fps: float, open_timeout_s: float) -> None:
        self.device = device
        self.name = f"opencv:{device}"
        # A regular file opened as a camera (a recording, tests) ends for good: reopening it
        # would play it again from the start, not bring a camera back.
        self.reconnectable = not os.path.isfile(device)
        self._size = (width_px, height_px)
        self._fps = fps
        self._open_timeout_s = open_timeout_s
        self._cap: cv2.VideoCapture | None = None
        self._t_start = 0.0
        self._next_t = 0.0

    def _try_open(self) -> cv2.VideoCapture | None:
        target: int | str = int(self.device) if self.device.isdigit() else self.device
        cap = cv2.VideoCapture(target)
        if not cap.isOpened():
            cap.release()
            return None
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self._size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self._size[1])
        cap.set(cv2.CAP_PROP_FPS, self._fps)
        return cap

    def open(self) -> None:
        # On the glasses the camera may come up after us: wait for it instead of failing.
        deadline = time.monotonic() + self._open_timeout_s
        while True:
            cap = self._try_open()
            if cap is not None:
                self._cap = cap
                break
            if time.monotonic() >= deadline:
                raise SourceError(
                    f"cannot open camera {self.device!r}: check it is plugged in (ls /dev/video*), "
                    "not used by another program, and that you may read it (group 'video'); "
                    "or set source.device to another index or path"
                )
            log.info("camera %s not ready, retrying", self.device)
            time.sleep(_OPEN_RETRY_S)
        self._t_start = time.monotonic()
        self._next_t = 0.0

    def read(self) -> RawFrame | None:
        if self._cap is None:
            raise SourceError("camera read before open")
        # Drivers deliver at their own rate; keep only frames at our configured rate.
        while True:
            ok, image = self._cap.read()
            if not ok or image is None:
                raise SourceError(
                    f"camera {self.device!r} stopped delivering frames; check the cable and power"
                )
            t = time.monotonic() - self._t_start
            if t + 1e-6 >= self._next_t:
                self._next_t = t + 1.0 / self._fps
                return RawFrame(t, image)

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
