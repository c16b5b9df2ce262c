"""Bounded inputs: a huge stream line is refused in one line, long captions and questions are
cut with a warning, an oversized task file is refused, and nothing already stored changes."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.config import Config
from edge_assist.config.input_sections import LimitsConfig
from edge_assist.errors import ConfigError, SourceError
from edge_assist.events import UserQuery
from edge_assist.runtime.reasoner_stage import StepInbox
from edge_assist.sources.caption_stream import load_caption_stream
from edge_assist.tasks.formats import load_file
from edge_assist.tasks.model import TaskFileError


def _stream(path: Path, texts: list[str]) -> Path:
    lines = [json.dumps({"meta": {"session_id": "s"}})]
    lines += [json.dumps({"t0": 10.0 * i, "t1": 10.0 * (i + 1), "text": t}) for i, t in enumerate(texts)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_ten_megabyte_line_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    p = _stream(tmp_path / "s.jsonl", ["I take the pan.", "x " * 5_000_000, "I stir."])
    with pytest.raises(SourceError) as e:
        load_caption_stream(p)
    msg = str(e.value)
    assert "\n" not in msg
    assert f"{p}:3: line of 10,000,0" in msg and "limits.stream_line_bytes = 65,536" in msg


def test_long_captions_are_cut_at_a_word_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    long = "I whisk the eggs in the bowl " * 200  # 5,800 characters
    p = _stream(tmp_path / "s.jsonl", ["I take the pan.", long, long])
    with caplog.at_level(logging.WARNING):
        stream = load_caption_stream(p, LimitsConfig(caption_chars=100))
    cut = stream.captions[1].text
    assert len(cut) <= 100 and cut.endswith("…") and cut.startswith("I whisk the eggs")
    assert cut[:-1].split()[-1] in long.split()  # cut between words
    assert stream.captions[0].text == "I take the pan."
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "2 caption(s) longer than limits.caption_chars = 100" in warnings[0].message


def test_a_long_question_is_cut_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    inbox = StepInbox(4, question_chars=40)
    with caplog.at_level(logging.WARNING):
        inbox.put_query(UserQuery(t=0.0, text="where did I leave my keys " * 100, source="bridge"))
        inbox.put_query(UserQuery(t=0.0, text="what's next?", source="voice"))
    assert inbox.qsize() == 2
    assert [r.message for r in caplog.records] == [
        "a bridge question of 2600 characters was cut to limits.question_chars = 40"
    ]


def test_an_oversized_task_file_is_refused_and_not_added(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.toml"
    steps = "".join(
        f'[[step]]\nid = "s{i}"\ntext = "Step number {i} of a very long task"\n\n' for i in range(4000)
    )
    big.write_text('[task]\nname = "big"\ntitle = "Big"\n\n' + steps, encoding="utf-8")
    with pytest.raises(TaskFileError, match=r"over limits.task_file_bytes = 262,144"):
        load_file(big)
    data = tmp_path / "data"
    assert main(["tasks", "add", str(big), "--set", f"general.data_dir={data}"]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "over limits.task_file_bytes" in err
    assert not (data / "tasks" / "big.toml").exists()
    # The bound is a setting: raised, the same file loads.
    assert load_file(big, max_bytes=10_000_000).n == 4000


def test_every_bound_is_a_setting_with_its_unit() -> None:
    cfg = Config().replace(**{"limits.caption_chars": 300, "limits.stream_line_bytes": 4096})
    assert cfg.limits.caption_chars == 300 and cfg.limits.stream_line_bytes == 4096
    with pytest.raises(ConfigError, match="limits.caption_chars"):
        Config().replace(**{"limits.caption_chars": 0})
    docs = {f.name: f.metadata["doc"] for f in dataclasses.fields(LimitsConfig)}
    assert set(docs) == {
        "caption_chars",
        "stream_line_bytes",
        "question_chars",
        "frame_side_px",
        "task_file_bytes",
    }
    assert all(d.endswith(("(characters)", "(bytes)", "(pixels)")) for d in docs.values())


def test_oversized_video_frames_are_scaled_down_with_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from edge_assist.sources.video_file import VideoFileSource
    from tests.videos import write_video

    video = write_video(tmp_path / "wide.avi", seconds=1.0, fps=5.0, size=(640, 320))
    src = VideoFileSource(video, fps=5.0, max_side_px=200)
    src.open()
    with caplog.at_level(logging.WARNING):
        frames = []
        while (f := src.read()) is not None:
            frames.append(f)
    src.close()
    assert len(frames) == 5
    assert all(f.image.shape[:2] == (100, 200) for f in frames)
    assert [r.message for r in caplog.records] == [
        f"{video}: frames of 640x320 are scaled down to a longest side of limits.frame_side_px = 200"
    ]
