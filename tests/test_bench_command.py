"""`edge-assist bench`: runs the repository's benchmarks as child processes and writes one summary."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.commands.bench import checkout
from edge_assist.errors import EdgeAssistError


def test_bench_writes_summary_and_one_archive(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["bench", "--quick", "--only", "bridge", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["raw.tar.gz", "summary.json", "summary.md"]
    s = json.loads((out / "summary.json").read_text())
    assert s["mode"] == "quick" and s["benchmarks"]["bridge"]["exit"] == 0
    udp = s["latency_ms"]["hud_ack_udp"]
    assert 0 < udp["median"] <= udp["p95"]
    assert s["resident_mb"]["bridge"] > 0
    with tarfile.open(out / "raw.tar.gz") as tar:
        names = tar.getnames()
    assert "raw/bridge.json" in names and "raw/bridge.log" in names
    assert "hud_ack_udp" in (out / "summary.md").read_text()


def test_bench_outside_a_checkout_says_what_to_do(tmp_path: Path) -> None:
    # A package installed without the repository around it (a wheel in site-packages).
    (tmp_path / "edge_assist").mkdir()
    with pytest.raises(EdgeAssistError, match="source checkout"):
        checkout(tmp_path / "edge_assist")
    assert checkout() == Path(__file__).resolve().parents[1]  # this checkout is one
