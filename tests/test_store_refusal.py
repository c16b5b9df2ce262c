"""Never adopt a file that is not ours: every command that opens the store refuses it, untouched.

The check lives in one place (`memory.store_check`, called by the store's open); these
tests go through the commands a new user runs.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.config import Config
from edge_assist.errors import StoreError
from edge_assist.inference.base import TextEncoder
from edge_assist.memory.memory import Memory, Paths
from edge_assist.memory.store_check import creating_path

STREAM = (
    '{"t0": 0, "t1": 10, "text": "I open the fridge"}\n{"t0": 10, "t1": 20, "text": "I take out two eggs"}\n'
)


def _unrelated_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes(name TEXT)")
    conn.execute("INSERT INTO recipes VALUES ('pancakes')")
    conn.commit()
    conn.close()


NOT_OURS = {
    "zero-byte": (lambda p: p.write_bytes(b""), "is an empty file, not an edge-assist memory store"),
    "random bytes": (lambda p: p.write_bytes(os.urandom(4096)), "not an SQLite database"),
    "unrelated sqlite": (_unrelated_sqlite, "is an SQLite database but not an edge-assist memory store"),
}


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file()}


@pytest.mark.slow  # loads the real text encoder
@pytest.mark.parametrize("kind", list(NOT_OURS))
def test_store_open_refuses_what_is_not_ours(tmp_path: Path, text_encoder: TextEncoder, kind: str) -> None:
    make, needle = NOT_OURS[kind]
    cfg = Config().replace(**{"general.data_dir": str(tmp_path)})
    db = Paths.of(cfg).sqlite
    make(db)
    before = _files(tmp_path)
    for open_it in (lambda: Memory.open(cfg, None, text_encoder), lambda: Memory.open_existing(cfg)):
        with pytest.raises(StoreError) as e:
            open_it()
        assert needle in str(e.value) and "left untouched" in str(e.value) and "\n" not in str(e.value)
        # Byte-identical, and nothing beside it: no -wal, no -shm, no graph.
        assert _files(tmp_path) == before and sorted(p.name for p in tmp_path.iterdir()) == [db.name]


@pytest.mark.slow
def test_a_new_store_is_created_whole_and_leftovers_of_a_killed_creation_are_not_adopted(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    cfg = Config().replace(**{"general.data_dir": str(tmp_path), "memory.extract_entities": False})
    db = Paths.of(cfg).sqlite
    creating_path(db).write_bytes(b"half a store from a kill")
    with Memory.open(cfg, None, text_encoder) as mem:
        assert mem.next_clip_index("s") == 0
    assert not creating_path(db).exists()
    with Memory.open_existing(cfg) as mem:  # what it made is a store
        assert mem.stats()["meta"]["text_encoder"] == text_encoder.name


@pytest.mark.slow  # `ask` and `replay` load the offline models before they open the store
@pytest.mark.parametrize("command", ["ask", "replay"])
def test_zero_byte_store_through_ask_and_replay(
    tmp_path: Path, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "default.sqlite"
    db.write_bytes(b"")
    stream = tmp_path / "kitchen.jsonl"
    stream.write_text(STREAM)
    argv = ["ask", "what did I take out?"] if command == "ask" else ["replay", str(stream), "--no-progress"]
    assert main([*argv, "--set", f"general.data_dir={data}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == (
        f"edge-assist: error: memory store {db} is an empty file, not an edge-assist memory store; it was "
        "left untouched: move it aside (or restore a backup), or use another general.wearer or "
        "general.data_dir"
    )
    assert db.read_bytes() == b""
    assert not (data / "default.kuzu").exists() and not Path(f"{db}-wal").exists()


@pytest.mark.parametrize("kind", list(NOT_OURS))
def test_memory_commands_refuse_without_models(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    make, needle = NOT_OURS[kind]
    db = tmp_path / "default.sqlite"
    make(db)
    before = db.read_bytes()
    for argv in (
        ["memory", "stats"],
        ["memory", "export"],
        ["memory", "forget", "--before", "2020-01-01", "--yes"],
    ):
        assert main([*argv, "--set", f"general.data_dir={tmp_path}"]) == 2
        err = capsys.readouterr().err.strip()
        assert needle in err and len(err.splitlines()) == 1
    assert db.read_bytes() == before
