"""Bit-exact replays: two replays of one recording send the same model requests, in the
same order, and write the same decisions.

Memory is written at fixed points of the virtual clock (a caption's ingest, with every
roll-up whose window the stream has passed, completes before its step runs), and search
budgets follow stream time, so nothing depends on thread timing. The model requests are
read back from each run's own response cache (its keys cover every input of a request;
rowid order is the order they were sent). Decisions are compared as logged, less the two
measured compute costs (`latency_s`, `timings_s`), which are wall time by design.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from edge_assist.config import Config
from edge_assist.outputs.decision_log import DecisionLog
from edge_assist.runtime.assembly import run_replay

RECORDING = Path(__file__).parent / "data" / "memory" / "captaincook4d_1_42.jsonl"
CAPTIONS = 8  # the meta line and the first 8 captions: about 7 minutes of a real recording
MEASURED = ("latency_s", "timings_s")


def replay_once(root: Path) -> tuple[list[str], list[str], dict[str, int]]:
    root.mkdir(parents=True)
    recording = root / RECORDING.name
    recording.write_text("\n".join(RECORDING.read_text(encoding="utf-8").splitlines()[: CAPTIONS + 1]) + "\n")
    cfg = Config().replace(
        **{
            "general.data_dir": str(root / "data"),
            "models.response_cache": str(root / "requests.sqlite"),
            "output.console": False,
            "output.speech": "off",
            "bridge.transport": "off",
            # Short windows so this short recording rolls up at both levels, several times.
            "memory.activity_s": 60.0,
            "memory.session_s": 120.0,
            # The LLM entity path, so the writer's per-caption requests race the reasoner's too.
            "memory.entity_extractor": "llm",
        }
    )
    log_path = root / "decisions.jsonl"
    run_replay(cfg, recording, sinks=[DecisionLog(log_path)])
    db = sqlite3.connect(root / "requests.sqlite")
    try:
        requests = [k for (k,) in db.execute("SELECT key FROM answers ORDER BY rowid")]
    finally:
        db.close()
    decisions = []
    for line in log_path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("type") != "decision":
            continue
        decisions.append(json.dumps({k: v for k, v in rec.items() if k not in MEASURED}, sort_keys=True))
    mem = sqlite3.connect(root / "data" / f"{cfg.general.wearer}.sqlite")
    try:
        levels = dict(mem.execute("SELECT level, COUNT(*) FROM items GROUP BY level").fetchall())
    finally:
        mem.close()
    return requests, decisions, levels


@pytest.mark.heavy
@pytest.mark.slow
@pytest.mark.timeout(2400)  # two replays with real models; a loaded 2-core machine takes minutes
def test_two_replays_send_the_same_requests_and_decide_the_same(tmp_path: Path) -> None:
    first = replay_once(tmp_path / "a")
    second = replay_once(tmp_path / "b")
    requests, decisions, levels = first
    assert second[0] == requests  # the same requests, in the same order
    assert second[1] == decisions  # the same decisions, byte for byte
    assert second[2] == levels
    assert len(requests) > len(decisions) == CAPTIONS  # memory and reasoner requests both recorded
    assert levels.get("activity", 0) >= 2 and levels.get("session", 0) >= 1, levels  # roll-ups happened
