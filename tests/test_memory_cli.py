"""`edge-assist memory stats | export | forget` on a store filled through the real path."""

from __future__ import annotations

import json
import math
import time
from datetime import datetime
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.inference.base import TextEncoder
from edge_assist.memory.memory import Memory
from tests.fakes import ManualWall
from tests.test_memory_streams import LONG, memory_config, stream

pytestmark = pytest.mark.slow  # the real text encoder fills the store


def _fill(tmp_path: Path, enc: TextEncoder) -> float:
    # forget takes a date to the second: a whole second a minute ago, five clips written
    # before it and the rest after it, all in the past.
    cutoff = float(math.floor(time.time())) - 60.0
    wall = ManualWall(cutoff - 10.0)
    cfg = memory_config(tmp_path, **{"memory.extract_entities": False})
    with Memory.open(cfg, None, enc, wall=wall) as mem:
        for c in stream(LONG)[:5]:
            mem.store_caption(c)
        wall.step(20.0)
        for c in stream(LONG)[5:]:
            mem.store_caption(c)
    return cutoff


def test_stats_export_forget(
    tmp_path: Path, text_encoder: TextEncoder, capsys: pytest.CaptureFixture[str]
) -> None:
    cutoff = _fill(tmp_path, text_encoder)
    s = ["--set", f"general.data_dir={tmp_path}"]
    assert main(["memory", "stats", "--json", *s]) == 0
    st = json.loads(capsys.readouterr().out)
    assert st["items"]["clip"] == 14 and st["meta"]["text_encoder"] == "minilm-l6-int8"
    assert main(["memory", "stats", *s]) == 0
    table = capsys.readouterr().out
    assert "clip" in table
    assert "encoders     text: minilm-l6-int8 (384-d); image: none\n" in table
    out = tmp_path / "export.jsonl"
    assert main(["memory", "export", "-o", str(out), *s]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert "meta" in rows[0] and sum(r.get("type") == "clip" for r in rows) == 14
    when = datetime.fromtimestamp(cutoff).isoformat(timespec="seconds")
    assert main(["memory", "forget", "--before", when, "--yes", *s]) == 0
    assert "forgot 5 clips" in capsys.readouterr().out
    assert main(["memory", "stats", "--json", *s]) == 0
    assert json.loads(capsys.readouterr().out)["items"]["clip"] == 9


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    s = ["--set", f"general.data_dir={tmp_path}"]
    assert main(["memory", "stats", *s]) == 2
    assert "no memory store" in capsys.readouterr().err
    assert main(["memory", "forget", "--before", "last tuesday", "--yes", *s]) == 2
    err = capsys.readouterr().err
    assert "not an ISO date" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "default.sqlite").write_bytes(b"garbage" * 50)
    assert main(["memory", "export", *s]) == 2
    assert "not an SQLite database" in capsys.readouterr().err
