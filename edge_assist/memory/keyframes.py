"""Keyframe JPEG files beside the store, and their retention.

Files are written before the SQLite row that names them (temp file + rename), so a kill
can leave at most an unreferenced file, which the deterministic name lets the re-ingest
overwrite; never a row pointing at half a JPEG. Expired files are deleted; their vectors
stay, so a visual hit still maps to its clip and caption.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from pathlib import Path

import numpy as np

from edge_assist.config.privacy import make_private_dir
from edge_assist.errors import StoreError


def _safe(session_id: str) -> str:
    # Readable and collision-free: the sanitised id plus a short hash of the real one.
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", session_id)[:48]
    return f"{stem}-{hashlib.sha1(session_id.encode()).hexdigest()[:8]}"


class KeyframeFiles:
    def __init__(self, root: Path, *, jpeg_quality: int, retention_days: float) -> None:
        self.root = root
        self.jpeg_quality = jpeg_quality
        self.retention_days = retention_days

    @property
    def keeps_files(self) -> bool:
        return self.retention_days > 0

    def save(self, session_id: str, clip_index: int, k: int, image: np.ndarray) -> tuple[str, int]:
        """(path, bytes); ('', 0) when retention keeps no files."""
        if not self.keeps_files:
            return "", 0
        import cv2  # only keyframes need it: a caption stream starts without loading OpenCV

        ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), self.jpeg_quality])
        if not ok:
            raise StoreError(
                f"cannot encode keyframe {k} of clip {clip_index} as JPEG (image shape {image.shape})"
            )
        d = self.root / _safe(session_id)
        path = d / f"{clip_index:08d}_{k}.jpg"
        tmp = path.with_suffix(".jpg.tmp")
        try:
            make_private_dir(d)
            tmp.write_bytes(buf.tobytes())
            os.replace(tmp, path)
        except OSError as e:
            raise StoreError(
                f"cannot write keyframe {path} ({e.strerror}); free disk space, then restart to resume"
            ) from None
        return str(path), int(buf.size)

    @staticmethod
    def load(path: str) -> np.ndarray | None:
        if not path:
            return None
        import cv2

        img = cv2.imread(path, cv2.IMREAD_COLOR)
        return img if img is not None else None

    @staticmethod
    def delete(paths: list[str]) -> int:
        n = 0
        for p in paths:
            try:
                os.remove(p)
                n += 1
            except FileNotFoundError:
                pass  # already gone: the goal is reached
        return n

    def expiry_wall(self, now_wall: float | None = None) -> float:
        return (time.time() if now_wall is None else now_wall) - self.retention_days * 86400.0
