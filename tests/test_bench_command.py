"""`edge-assist bench`: runs the repository's benchmarks as child processes and writes one summary."""

from __future__ import annotations

import json
import statistics
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
        bridge = tar.extractfile("raw/bridge.json")
        assert bridge is not None
        raw = json.loads(bridge.read())
    assert "raw/bridge.json" in names and "raw/bridge.log" in names
    assert "hud_ack_udp" in (out / "summary.md").read_text()
    # Every result JSON says what made it, where and when.
    for stamped in (s, raw):
        assert list(stamped)[:4] == ["command", "commit", "date", "machine"]
        assert stamped["machine"]["hostname"] and stamped["machine"]["cpus"] > 0
        assert stamped["machine"]["python"] and "cpu_model" in stamped["machine"]
    assert raw["command"].startswith("python -m benchmarks.bench_bridge --n 50 --out ")
    assert s["command"].startswith("python -m benchmarks.run_all --quick --only bridge")


def test_bench_outside_a_checkout_says_what_to_do(tmp_path: Path) -> None:
    # A package installed without the repository around it (a wheel in site-packages).
    (tmp_path / "edge_assist").mkdir()
    with pytest.raises(EdgeAssistError, match="source checkout"):
        checkout(tmp_path / "edge_assist")
    assert checkout() == Path(__file__).resolve().parents[1]  # this checkout is one


def test_summary_reads_every_benchmark_as_it_writes_today() -> None:
    """The summary from the JSON each benchmark wrote in a real `bench --quick` run
    (tests/data/bench_raw/, 2026-12-01): a benchmark whose output changed shape must not
    crash the summary at the end of an hour-long run (bench_memory_ingest's did)."""
    from benchmarks.bench_summary import markdown, summarise
    from benchmarks.results_io import stamp
    from benchmarks.run_all import PLAN

    raw = Path(__file__).resolve().parent / "data" / "bench_raw"
    runs = {
        name: {
            "command": module,
            "exit": 0,
            "wall_s": 1.0,
            "peak_rss_mb": 1.0,
            "data": json.loads((raw / f"{name}.json").read_text()),
        }
        for name, module, _q, _f in PLAN
        if (raw / f"{name}.json").exists()
    }
    assert len(runs) == len(PLAN)
    s = summarise(runs, quick=True)
    ing = s["latency_ms"]["memory_ingest_per_caption"]
    assert ing["entity_path"] == "lexical" and ing["with_llm_entities"] > ing["median"]
    assert s["realtime_factor"]["memory_ingest"] > 0 and s["search_vs_size"] and s["latency_ms"]["graph_path"]
    head = {**stamp("c"), "load_start": 0.0, "total_s": 1.0}
    warm = s["cold_start_s"]["vector_cache_warm"]
    assert 0 < warm["p50_s"] <= warm["max_s"] and warm["peak_rss_mb"] > 0
    md = markdown(s, head)
    assert "memory_ingest_per_caption" in md and "Cold start to first decision" in md


def test_one_percentile_for_every_benchmark() -> None:
    """numpy's linear interpolation: p50 is the median, p95 lies between two samples."""
    from edge_assist.runtime.percentiles import METHOD, p50_p95, percentile

    xs = [0.004, 0.001, 0.003, 0.002, 0.005]
    assert METHOD == "linear"
    assert percentile(xs, 50) == statistics.median(xs)
    assert percentile(xs, 95, 5) == 0.0048  # 95% of the way from the 4th sample to the 5th
    assert percentile([], 95) is None
    assert p50_p95(xs, 2, scale=1000.0) == {"p50": 3.0, "p95": 4.8}


def test_results_keep_their_own_stamp_when_written_again(tmp_path: Path) -> None:
    from benchmarks.results_io import write

    old = {"machine": {"hostname": "the-run's"}, "date": "2026-01-01T00:00:00+00:00", "x": 1}
    got = json.loads(write(tmp_path / "r.json", old, command="python -m benchmarks.x").read_text())
    assert got["command"] == "python -m benchmarks.x" and got["x"] == 1
    assert got["machine"] == {"hostname": "the-run's"} and got["date"].startswith("2026-01-01")
    assert "commit" in got
