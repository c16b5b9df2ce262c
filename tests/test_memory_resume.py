"""Crash safety: SIGKILL a real `edge-assist memory ingest` mid-stream, resume, compare.

Also the two deterministic halves of the consistency rule: a caption committed in SQLite
whose graph update was cut off is re-applied on open, and a lost graph is rebuilt from
the extractions saved in SQLite.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from edge_assist.inference.base import TextEncoder
from edge_assist.memory.entities import resolve
from edge_assist.memory.memory import Memory
from tests.test_memory_streams import SHORT, memory_config, stream

pytestmark = pytest.mark.slow


def _ingest_cmd(data_dir: Path, file: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "edge_assist",
        "memory",
        "ingest",
        str(file),
        "--set",
        f"general.data_dir={data_dir}",
        "--set",
        "models.threads=1",
        # The LLM path: a kill lands while a caption's entities are being generated.
        "--set",
        "memory.entity_extractor=llm",
    ]


def _ingest_killed_after_clip_2(data: Path, part: Path) -> list[str]:
    """`memory ingest` in a child process, killed while the caption after clip 2 is ingested;
    returns the lines it printed."""
    proc = subprocess.Popen(
        _ingest_cmd(data, part),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.stdout is not None
    seen = []
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if line.startswith("clip 2 "):
            # The next caption is now being embedded / extracted / applied to Kùzu / rolled up.
            time.sleep(0.7)
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, "".join(seen) + (proc.stderr.read() if proc.stderr else "")
    return seen


@pytest.mark.faults
def test_kill_mid_ingest_then_resume_loses_and_duplicates_nothing(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    lines = SHORT.read_text().splitlines()
    part = tmp_path / "first_200s.jsonl"
    part.write_text("\n".join(lines[:7]) + "\n")  # meta + 6 steps, up to 228 s
    data = tmp_path / "mem"
    seen = _ingest_killed_after_clip_2(data, part)
    first_calls = sum(int(x.split("llm=")[1].split()[0]) for x in seen if x.startswith("clip "))

    done = subprocess.run(
        _ingest_cmd(data, part),
        capture_output=True,
        text=True,
        timeout=400,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    resumed_at = int(out[0].rsplit(" ", 1)[1])
    assert 3 <= resumed_at <= 4, out[0]  # clip 3 may or may not have committed before the kill
    second_calls = json.loads(out[-1].split("llm calls ")[1].replace("'", '"'))

    caps = stream(part)
    with Memory.open(memory_config(data), None, text_encoder) as mem:
        st = mem.stats()
        assert st["items"]["clip"] == 6 and st["graph_pending"] == 0
        assert [r.text for r in mem.captions(caps[0].session_id, range(6))] == [c.text for c in caps]
        assert st["items"]["activity"] == 3 and st["items"]["session"] == 1  # windows 0, 2, 3 hold steps
        # The graph holds exactly what SQLite's saved extractions say, each clip once.
        expected = {
            e[0]
            for row in mem.export()
            if row.get("type") == "clip" and row["entities"]
            for e in row["entities"]["entities"]
        }
        assert {k for k, _, _ in mem.graph.entities()} == expected
        assert st["graph"]["clips"] == 6
    # Six captions need six extractions; a kill can cost at most the one in flight again.
    assert 6 <= first_calls + second_calls["entities"] + (1 if resumed_at == 4 else 0) <= 7 + 4


def test_graph_catches_up_after_a_cut_and_is_rebuilt_when_lost(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    cfg = memory_config(tmp_path)
    caps = stream(SHORT)[:3]
    ex = resolve(
        {
            "entities": [{"name": "egg", "kind": "food"}, {"name": "bowl", "kind": "container"}],
            "relations": [{"subject": "egg", "relation": "poured into", "object": "bowl"}],
        },
        caps[0].text,
    )
    # The writer's first two steps for clip 0, then the process "dies" before the graph step.
    with Memory.open(cfg.replace(**{"memory.extract_entities": False}), None, text_encoder) as mem:
        for c in caps:
            mem.store_caption(c)
        mem.store.set_entities(caps[0].session_id, 0, ex.to_json())
        with mem.store.transaction() as c:
            c.execute("UPDATE items SET graph_done = 0 WHERE level = 'clip' AND idx = 0")
        mem.graph.close()  # as a kill would: the graph never saw clip 0
        mem.store.close()
    with Memory.open(cfg, None, text_encoder) as mem:  # no LLM: the saved extraction suffices
        assert mem.stats()["graph_pending"] == 0
        [hit] = mem.graph_neighbourhood(["eggs"], before_t=1e9, k=3)
        assert hit.clip_indices == (0,) and hit.neighbours[0][:2] == ("poured into", "bowl")
        before = mem.graph.counts()
        mem.graph.close()
        mem.store.close()
    for p in tmp_path.glob("default.kuzu*"):
        p.unlink()  # the graph is lost (or was moved aside after corruption)
    with Memory.open(cfg, None, text_encoder) as mem:
        assert mem.graph.counts() == before
        assert mem.graph_neighbourhood(["egg"], before_t=1e9, k=3)[0].clip_indices == (0,)
