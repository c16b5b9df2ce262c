"""kill -9 at random points of ingest, N times, then a run to the end: what survived.

Each round starts `edge-assist replay` (the real CLI, real models and stores) on one
caption stream in the same memory directory, waits until it has stored a new caption (so
the kill lands in ingest, not in model loading), lets it run a further random time and
SIGKILLs it: mid-transaction, mid-LLM call, mid-roll-up or mid-graph write, wherever it is.
The next round resumes where memory ends. After the last kill one run goes to the end.
Then the memory is opened and checked (`Memory.consistency`): every caption stored once,
every item with its vector and every vector with its item, the graph holding exactly the
clips the store says it applied, each roll-up window summarised once.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from edge_assist.config import Config
from edge_assist.sources.caption_stream import load_caption_stream

DEMO = Path(__file__).resolve().parents[2] / "edge_assist" / "data" / "demo"


def stitched_stream(out: Path, recordings: int = 3) -> Path:
    """Real recordings (the packaged CaptainCook4D demos) one after another, as one session."""
    lines = [
        json.dumps(
            {"meta": {"session_id": "kill-loop", "source": "CaptainCook4D demo recordings (MIT), stitched"}}
        )
    ]
    offset = 0.0
    for f in sorted(DEMO.glob("*.jsonl"))[:recordings]:
        s = load_caption_stream(f)
        for c in s.captions:
            lines.append(
                json.dumps({"t0": round(c.t0 + offset, 3), "t1": round(c.t1 + offset, 3), "text": c.text})
            )
        offset += s.duration_s + 5.0
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def overrides(data_dir: Path) -> list[str]:
    sets = {
        "general.data_dir": str(data_dir),
        "output.console": "false",
        "output.speech": '"off"',
        "bridge.transport": '"off"',
        "memory.activity_s": "60.0",
        "memory.session_s": "180.0",
    }
    out: list[str] = []
    for k, v in sets.items():
        out += ["--set", f"{k}={v}"]
    return out


def config_for(data_dir: Path) -> Config:
    return Config().replace(
        **{"general.data_dir": str(data_dir), "memory.activity_s": 60.0, "memory.session_s": 180.0}
    )


def stored_clips(data_dir: Path, wearer: str = "default") -> int:
    import sqlite3

    db = data_dir / f"{wearer}.sqlite"
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return int(conn.execute("SELECT count(*) FROM items WHERE level = 'clip'").fetchone()[0])
    except sqlite3.DatabaseError:
        return 0
    finally:
        conn.close()


def _start(stream: Path, data_dir: Path, log: Path) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    cmd = [sys.executable, "-m", "edge_assist", "replay", str(stream), "--no-progress", *overrides(data_dir)]
    with log.open("ab") as fh:
        return subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=env)


def _round(n: int, stream: Path, data_dir: Path, log: Path, delay: float) -> dict[str, Any]:
    """One run, killed `delay` seconds after it stored its first new caption (if still running)."""
    before = stored_clips(data_dir)
    proc = _start(stream, data_dir, log)
    started = time.monotonic()
    while proc.poll() is None and stored_clips(data_dir) <= before:
        time.sleep(0.05)
    ingesting = time.monotonic()
    try:
        proc.wait(timeout=delay)
        ended = f"exited by itself ({proc.returncode})"
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        ended = "SIGKILL"
    return {
        "round": n + 1,
        "first_new_clip_after_s": round(ingesting - started, 2),
        "killed_after_further_s": round(time.monotonic() - ingesting, 2),
        "ended": ended,
        "clips_before": before,
        "clips_after": stored_clips(data_dir),
    }


def _runs_said(log: Path) -> list[str]:
    """What the restarted runs said (their stderr): a warning on resume is expected, a traceback never."""
    if not log.exists():
        return []
    text = log.read_text(encoding="utf-8", errors="replace")
    return [x for x in text.splitlines() if x.strip() and not x.startswith("replaying ")]


def _memory_check(data_dir: Path, stream: Path, captions: int) -> tuple[dict[str, Any], list[int]]:
    """The memory's own consistency check, and the clip indices stored for the stream's session."""
    from edge_assist.inference.loader import load_text_encoder
    from edge_assist.memory.memory import Memory

    cfg = config_for(data_dir)
    with Memory.open(cfg, None, load_text_encoder(cfg)) as mem:
        sid = load_caption_stream(stream).session_id
        return mem.consistency(), [c.clip_index for c in mem.captions(sid, list(range(captions + 5)))]


def kill_loop(
    work: Path,
    *,
    kills: int,
    seed: int,
    min_s: float = 0.0,
    max_s: float = 8.0,
    recordings: int = 3,
    final_timeout_s: float = 3600.0,
) -> dict[str, Any]:
    """Run the loop in `work`; returns what was injected and what held."""
    work.mkdir(parents=True, exist_ok=True)
    stream = stitched_stream(work / "stream.jsonl", recordings)
    captions = len(load_caption_stream(stream).captions)
    data_dir = work / "data"
    log = work / "runs.log"
    rng = random.Random(seed)
    rounds = []
    for n in range(kills):
        if stored_clips(data_dir) >= captions:
            break  # the stream is already all in memory: nothing left to interrupt
        rounds.append(_round(n, stream, data_dir, log, rng.uniform(min_s, max_s)))
    final_rc = _start(stream, data_dir, log).wait(timeout=final_timeout_s)
    check, indices = _memory_check(data_dir, stream, captions)
    killed = sum(1 for r in rounds if r["ended"] == "SIGKILL")
    said = _runs_said(log)
    result = {
        "captions_in_stream": captions,
        "kills": killed,
        "rounds": rounds,
        "final_exit_code": final_rc,
        "run_output_lines": said[-20:],
        "tracebacks": sum("Traceback" in x for x in said),
        "consistency": check,
        "clip_indices_ok": indices == list(range(captions)),
        "no_clip_lost": check["clips"] == captions and indices == list(range(captions)),
        "none_duplicated": check["duplicates"] == 0,
        "graph_and_vectors_consistent": check["ok"] and check["graph_pending"] == 0,
    }
    result["held"] = bool(
        final_rc == 0
        and result["tracebacks"] == 0
        and result["no_clip_lost"]
        and result["none_duplicated"]
        and result["graph_and_vectors_consistent"]
    )
    return result
