"""Video replay and the segmenter on real video files written by OpenCV."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_assist.errors import SourceError
from edge_assist.events import Frame
from edge_assist.perception.segmenter import ClipBuilder
from edge_assist.sources.opencv_camera import OpenCVCamera
from edge_assist.sources.video_file import VideoFileSource
from tests.videos import write_video


def _read_all(src: VideoFileSource) -> list:
    src.open()
    frames = []
    while (f := src.read()) is not None:
        frames.append(f)
    src.close()
    return frames


def test_video_is_subsampled_to_configured_rate(tmp_path: Path) -> None:
    path = write_video(tmp_path / "walk.avi", seconds=6, fps=10)
    frames = _read_all(VideoFileSource(path, fps=2))
    assert len(frames) == 12
    assert [round(f.stream_t, 2) for f in frames[:3]] == [0.0, 0.5, 1.0]
    assert frames[0].image.shape == (120, 160, 3)


def test_segmenter_clips_and_keyframes_on_real_video(tmp_path: Path) -> None:
    path = write_video(tmp_path / "cut.mp4", seconds=25, fps=10, cut_at_s=13.0)
    raw = _read_all(VideoFileSource(path, fps=5))
    builder = ClipBuilder("s", clip_s=10.0, keyframes=3, scene_change=True)
    clips = []
    for i, r in enumerate(raw):
        c = builder.add(Frame(t=r.stream_t, index=i, stream_t=r.stream_t, image=r.image), 0, r.stream_t)
        if c is not None:
            clips.append(c)
    last = builder.flush(25.0, 0)
    assert last is not None
    clips.append(last)
    # Non-overlapping, contiguous, in order.
    assert [(c.index, c.t0, c.t1) for c in clips[:2]] == [(0, 0.0, 10.0), (1, 10.0, 20.0)]
    assert clips[2].t0 == 20.0 and clips[2].t1 <= 25.0
    assert sum(c.frame_count for c in clips) == len(raw)
    second = clips[1]
    even = [k.stream_t for k in second.keyframes if k.reason == "even"]
    # Frames nearest to 10 + (i + 0.5) * 10/3 s.
    assert even == pytest.approx([11.6, 15.0, 18.4], abs=0.21)
    scene = [k.stream_t for k in second.keyframes if k.reason == "scene-change"]
    assert scene == [pytest.approx(13.0, abs=0.21)]
    assert all(k.stream_t < 10 for k in clips[0].keyframes)


def test_missing_and_corrupt_video(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="does not exist"):
        VideoFileSource(tmp_path / "nope.mp4", 2).open()
    bad = tmp_path / "corrupt.mp4"
    good = write_video(tmp_path / "good.mp4", seconds=2)
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42" + good.read_bytes()[200:400])
    with pytest.raises(SourceError, match="cannot decode") as e:
        VideoFileSource(bad, 2).open()
    assert "\n" not in str(e.value)


def test_camera_that_cannot_open_is_a_clear_error() -> None:
    cam = OpenCVCamera("/dev/video-missing-42", 640, 480, 5, open_timeout_s=0.0)
    with pytest.raises(SourceError, match="cannot open camera"):
        cam.open()
