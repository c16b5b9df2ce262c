"""Private at rest: the data folder is 0700, its files 0600, and doctor names what others can read."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.memory.store import MemoryStore

TASK = (Path(__file__).parent / "data" / "tasks" / "tea.toml").read_text(encoding="utf-8")


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_a_command_creates_the_data_folder_0700_and_its_files_0600(tmp_path: Path) -> None:
    task = tmp_path / "tea.toml"
    task.write_text(TASK, encoding="utf-8")
    data = tmp_path / "home" / "edge-assist"
    # A child process: the umask is per process, and this one's must not change.
    done = subprocess.run(
        [sys.executable, "-m", "edge_assist", "tasks", "add", str(task), "--set", f"general.data_dir={data}"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert _mode(data) == 0o700
    assert _mode(data / "tasks") == 0o700
    copied = list((data / "tasks").iterdir())
    assert copied and all(_mode(p) == 0o600 for p in copied)


def test_a_store_opened_as_a_library_is_private_without_the_cli(tmp_path: Path) -> None:
    old = os.umask(0o022)  # a host program's usual umask
    try:
        store = MemoryStore.open(tmp_path / "day" / "wearer.sqlite", text_encoder="t", text_dim=4)
        store.close()
    finally:
        os.umask(old)
    assert _mode(tmp_path / "day") == 0o700
    assert _mode(tmp_path / "day" / "wearer.sqlite") == 0o600


def test_doctor_warns_when_others_can_read_the_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "decisions.jsonl").write_text("{}\n", encoding="utf-8")
    os.chmod(data / "decisions.jsonl", 0o600)
    assert main(["doctor", "--set", f"general.data_dir={data}"]) == 0
    out = capsys.readouterr().out
    assert "readable by you only" in out and "warning:" not in out

    os.chmod(data, 0o755)
    os.chmod(data / "decisions.jsonl", 0o644)
    assert main(["doctor", "--set", f"general.data_dir={data}"]) == 0  # a warning, not a failure
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "data privacy" in line)
    assert row.split()[0] == "WARNING"
    assert f"{data} and 1 more can be read by other users: chmod -R go-rwx {data}" in row
    assert "warning: data privacy" in out
