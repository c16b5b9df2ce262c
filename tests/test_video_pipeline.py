"""A real video through the whole pipeline: segmenter, the llama.cpp VLM captioner (a
generated projector on SmolLM2), the memory writer, decisions. Both `replay` (a file)
and `run` (OpenCV given a file path as its device, a camera for all it knows)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from edge_assist.config import Config
from edge_assist.evaluation.baselines import NeverSpeak
from edge_assist.runtime.assembly import run_replay
from tests.videos import write_video

ROOT = Path(__file__).resolve().parents[1]


def _cfg(tmp_path: Path, models_dir: Path) -> Config:
    return Config().replace(
        **{
            "general.data_dir": str(tmp_path / "data"),
            "models.dir": str(models_dir),
            "models.vlm": "tiny-vlm",
            "captioner.max_tokens": 12,
            "captioner.max_images": 2,
            "captioner.image_size_px": 64,
            "memory.extract_entities": False,
            "source.fps": 2.0,
        }
    )


@pytest.mark.heavy
@pytest.mark.slow
def test_replay_video_captions_every_clip_into_memory(tmp_path: Path, tiny_vlm_dir: Path) -> None:
    video = write_video(tmp_path / "kitchen.avi", seconds=20, fps=10, cut_at_s=12)
    cfg = _cfg(tmp_path, tiny_vlm_dir)
    result = run_replay(cfg, video, assistant=NeverSpeak())
    s = result.stats
    assert s.clips == 2 and s.captions == 2 and s.skipped_clips == 0
    assert len(s.caption_latency_s) == 2 and all(x > 0 for x in s.caption_latency_s)
    assert [(d.stream_t0, d.clip_index) for d in result.decisions] == [(0.0, 0), (10.0, 1)]

    from edge_assist.memory.memory import Memory

    mem = Memory.open_existing(cfg)
    try:
        stored = mem.captions(result.stats.session_id, [0, 1])
    finally:
        mem.close()
    assert [(c.clip_index, c.t0, c.t1) for c in stored] == [(0, 0.0, 10.0), (1, 10.0, pytest.approx(19.5))]
    assert all(c.text.strip() for c in stored)


@pytest.mark.heavy
@pytest.mark.slow
def test_run_on_a_camera_device_with_a_vlm(tmp_path: Path, tiny_vlm_dir: Path) -> None:
    # OpenCV opens a file path like a device: the live path (RealClock, drops, captioner) end to end.
    video = write_video(tmp_path / "cam.avi", seconds=12, fps=10)
    data = tmp_path / "data"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "edge_assist",
            "run",
            "--no-stdin",
            "--stats",
            "--set",
            f"general.data_dir={data}",
            "--set",
            f"models.dir={tiny_vlm_dir}",
            "--set",
            "models.vlm=tiny-vlm",
            "--set",
            "source.kind=opencv",
            "--set",
            f"source.device={video}",
            "--set",
            "source.fps=20",
            "--set",
            "segmenter.clip_s=5",
            "--set",
            "captioner.max_tokens=8",
            "--set",
            "captioner.image_size_px=64",
            "--set",
            "memory.extract_entities=false",
            "--set",
            "output.speech=off",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    # The "camera" ends when the file does, as an unplugged camera would: one line, non-zero
    # (systemd restarts the service, which then waits for the camera), logs flushed.
    assert "Traceback" not in r.stderr, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "stopped delivering frames" in lines[0], r.stderr
    records = [json.loads(x) for x in (data / "decisions.jsonl").read_text().splitlines()]
    assert records[-1]["type"] == "stats" and records[-1]["frames"] > 0
