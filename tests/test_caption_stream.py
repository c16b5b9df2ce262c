"""Caption-stream replay files: JSONL and SRT, validated with line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_assist.errors import SourceError
from edge_assist.sources.caption_stream import load_caption_stream, replay_kind

DEMO = Path(__file__).resolve().parents[1] / "edge_assist" / "data" / "demo"


def test_bundled_captaincook_stream_loads() -> None:
    s = load_caption_stream(DEMO / "1_34_microwaveeggsandwich.jsonl")
    assert s.session_id == "captaincook4d-1_34"
    assert len(s.captions) == 11
    assert "Recipe" in s.task_context
    assert all(a.t0 <= b.t0 for a, b in zip(s.captions, s.captions[1:], strict=False))
    assert s.duration_s == pytest.approx(s.captions[-1].t1)


def test_srt(tmp_path: Path) -> None:
    f = tmp_path / "walk.srt"
    f.write_text(
        "1\n00:00:00,000 --> 00:00:10,000\nI pick up the <i>kettle</i>.\n\n"
        "2\n00:00:10,000 --> 00:00:20,500\nI pour water\ninto a mug.\n"
    )
    s = load_caption_stream(f)
    assert [(c.t0, c.t1, c.text) for c in s.captions] == [
        (0.0, 10.0, "I pick up the kettle."),
        (10.0, 20.5, "I pour water into a mug."),
    ]
    assert s.session_id == "walk"
    assert replay_kind(f) == "captions" and replay_kind(tmp_path / "a.mp4") == "video"


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("", "no captions"),
        ('{"t0": 0, "t1": 10, "text": "a"}\n{"t0": 10, "t1": 2', ":2:"),  # truncated
        ('{"t0": 0, "t1": 10}\n', "missing key 'text'"),
        ('{"t0": "soon", "t1": 10, "text": "a"}\n', "numbers"),
        ('{"t0": 5, "t1": 1, "text": "a"}\n', "0 <= t0 <= t1"),
        ('{"t0": 10, "t1": 20, "text": "a"}\n{"t0": 0, "t1": 5, "text": "b"}\n', "time order"),
        ("[1, 2]\n", "JSON object"),
    ],
)
def test_malformed_jsonl(tmp_path: Path, content: str, needle: str) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_text(content)
    with pytest.raises(SourceError) as e:
        load_caption_stream(f)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_malformed_srt_and_missing(tmp_path: Path) -> None:
    f = tmp_path / "bad.srt"
    f.write_text("1\n00:00:00 -> 00:00:10\nhello\n")
    with pytest.raises(SourceError, match=":2:"):
        load_caption_stream(f)
    with pytest.raises(SourceError, match="does not exist"):
        load_caption_stream(tmp_path / "nope.jsonl")
    b = tmp_path / "binary.jsonl"
    b.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SourceError, match="UTF-8"):
        load_caption_stream(b)
