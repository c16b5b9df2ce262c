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


GOOD = '{"t0": 0, "t1": 10, "text": "I open the fridge"}\n'


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('{"t0": NaN, "t1": 20, "text": "a"}', "t0"),
        ('{"t0": 10, "t1": NaN, "text": "a"}', "t1"),
        ('{"t0": 10, "t1": Infinity, "text": "a"}', "t1"),
        ('{"t0": -Infinity, "t1": 20, "text": "a"}', "t0"),
        ('{"t0": 10, "t1": 1e999, "text": "a"}', "t1"),  # overflows to inf in Python's json
        ('{"t0": 10, "t1": 20, "text": "a", "confidence": NaN}', "confidence"),
        ('{"t0": 10, "t1": 20, "text": "a", "extra": {"scores": [0.5, Infinity]}}', "extra.scores[1]"),
        ('{"t0": "nan", "t1": 20, "text": "a"}', "finite"),  # a number written as a string
        ('{"t0": 10, "t1": "inf", "text": "a"}', "finite"),
    ],
)
def test_non_finite_numbers_are_one_line_naming_line_and_key(tmp_path: Path, line: str, key: str) -> None:
    f = tmp_path / "nan.jsonl"
    f.write_text(GOOD + line + "\n")
    with pytest.raises(SourceError) as e:
        load_caption_stream(f)
    msg = str(e.value)
    assert f"{f}:2:" in msg and key in msg and "\n" not in msg


def test_non_finite_number_in_the_meta_line(tmp_path: Path) -> None:
    f = tmp_path / "meta.jsonl"
    f.write_text('{"meta": {"session_id": "s", "offset_s": NaN}}\n' + GOOD)
    with pytest.raises(SourceError, match=r"meta\.jsonl:1: meta\.offset_s is not a finite number"):
        load_caption_stream(f)


def test_non_finite_time_in_srt_is_one_line(tmp_path: Path) -> None:
    f = tmp_path / "nan.srt"
    f.write_text("1\n00:00:00,000 --> 00:00:10,000\nhello\n\n2\nNaN --> inf\nworld\n")
    with pytest.raises(SourceError, match=r"nan\.srt:6: expected 'HH:MM:SS,mmm"):
        load_caption_stream(f)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("command", ["replay", "ingest"])
def test_nan_end_time_fails_fast_through_the_cli(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`{"t1": NaN}` once hung the replay forever (a clock deadline that never comes)."""
    from edge_assist.cli import main

    f = tmp_path / "hang.jsonl"
    f.write_text(GOOD + '{"t0": 10, "t1": NaN, "text": "I close the fridge"}\n')
    argv = ["replay", str(f)] if command == "replay" else ["memory", "ingest", str(f)]
    assert main([*argv, "--set", f"general.data_dir={tmp_path / 'data'}"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{f}:2: t1 is not a finite number" in err


@pytest.mark.parametrize("item", ["nan:what did I cook?", "inf:what did I cook?", "-5:x", "12"])
def test_replay_ask_time_must_be_finite(item: str) -> None:
    from edge_assist.commands.run import _parse_ask
    from edge_assist.errors import EdgeAssistError

    with pytest.raises(EdgeAssistError, match="SECONDS:QUESTION"):
        _parse_ask(item)
