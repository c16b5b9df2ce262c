"""The Raspberry Pi camera through picamera2 (Raspberry Pi OS only, imported lazily)."""

from __future__ import annotations

import time
from typing import Any

import cv2

from edge_assist.errors import SourceError
from edge_assist.sources.base import RawFrame


class PiCamera:
    name = "picamera2"
    live = True
    duration_s: float | None = None

    def __init__(self, width_px: int, height_px: int, fps: float, open_timeout_s: float) -> None:
        self._size = (width_px, height_px)
        self._fps = fps
        self._open_timeout_s = open_timeout_s
        self._cam: Any = None
        self._t_start = 0.0
        self._next_t = 0.0

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise SourceError(
                "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install python3-picamera2` "
                "and create the venv with --system-site-packages (or `pip install 'edge-assist[pi]'`); "
                'elsewhere use source.kind = "opencv"'
            ) from None
        deadline = time.monotonic() + self._open_timeout_s
        while True:
            try:
                cam = Picamera2()
                config = cam.create_video_configuration(
                    main={"size": self._size, "format": "RGB888"},
                    controls={"FrameRate": self._fps},
                )
                cam.configure(config)
                cam.start()
                self._cam = cam
                break
            except (RuntimeError, IndexError) as e:
                if time.monotonic() >= deadline:
                    raise SourceError(
                        f"cannot start the Pi camera ({e}); check the ribbon cable and `rpicam-hello`"
                    ) from None
                time.sleep(0.5)
        self._t_start = time.monotonic()

    def read(self) -> RawFrame | None:
        while True:
            array = self._cam.capture_array("main")
            t = time.monotonic() - self._t_start
            if t + 1e-6 >= self._next_t:
                self._next_t = t + 1.0 / self._fps
                # picamera2's "RGB888" is BGR in memory order, OpenCV's layout; keep 3 channels.
                return RawFrame(t, cv2.cvtColor(array, cv2.COLOR_BGRA2BGR) if array.shape[-1] == 4 else array)

    def close(self) -> None:
        if self._cam is not None:
            self._cam.stop()
            self._cam.close()
            self._cam = None
