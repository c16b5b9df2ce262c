"""Real video files written with OpenCV for the tests (no downloads)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


def write_video(
    path: Path,
    seconds: float,
    fps: float = 10.0,
    cut_at_s: float | None = None,
    size: tuple[int, int] = (160, 120),
) -> Path:
    """A moving-ball scene; at `cut_at_s` the scene cuts to a different room (a real scene change)."""
    fourcc = cv2.VideoWriter.fourcc(*("MJPG" if path.suffix == ".avi" else "mp4v"))
    w, h = size
    out = cv2.VideoWriter(str(path), fourcc, fps, (w, h))
    assert out.isOpened(), f"OpenCV cannot write {path}"
    n = round(seconds * fps)
    for i in range(n):
        t = i / fps
        after_cut = cut_at_s is not None and t >= cut_at_s
        frame = np.zeros((h, w, 3), np.uint8)
        # A gradient wall; after the cut, another room with another colour and layout.
        ramp = np.linspace(40, 200, w, dtype=np.uint8)
        frame[:] = ramp[None, :, None]
        if after_cut:
            frame[:, :, 0] = 220
            frame[:, :, 1] = 255 - ramp[None, :]
            cv2.rectangle(frame, (10, 10), (w // 2, h - 10), (0, 0, 160), -1)
        x = int((t * 30) % (w - 20)) + 10
        cv2.circle(frame, (x, h // 2), 8, (0, 200, 255), -1)
        out.write(frame)
    out.release()
    return path
