"""edge-assist: an on-device proactive assistant for smart glasses."""

import os as _os

# FFmpeg (inside OpenCV) prints its own errors for a bad video ("moov atom not found")
# before ours; we report every unreadable file in one line, so keep its log quiet.
# Set before any module imports cv2. A user's explicit setting wins.
_os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
_os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")

__version__ = "0.1.0"
