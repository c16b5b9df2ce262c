"""The full default pipeline's share of real time (issue 13: <= 0.5, no VLM), before and after.

    python -m benchmarks.bench_realtime [--recording FILE] [--configs after,before]

Replays one recording, cut into 10-s clips as the segmenter cuts live video (one caption per
clip that overlaps a step, `--clip-s`), through the whole pipeline (`benchmarks.replay_cpu`: caption stream,
memory writer, gate reasoner, planted questions answered by SmolLM2) once per
configuration, each in its own process, one after the other in the same run, and
reports CPU seconds per stream second (model loading excluded) and their ratio:

- after: the defaults (entities from the caption's parse, `memory.entity_extractor = lexical`);
- before: the same with one LLM entity extraction per caption (`memory.entity_extractor = llm`),
  the default before issue 13.

Writes benchmarks/results/bench_realtime.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_memory_ingest import clips
from benchmarks.results_io import command_line, write

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"
OUT = ROOT / "benchmarks" / "results" / "bench_realtime.json"
QUESTIONS = ("90:Did I already pour the egg into the ramekin?", "200:What did I do with the English muffin?")
CONFIGS: dict[str, list[str]] = {
    "after": [],
    "before": ["memory.entity_extractor=llm"],
}


def clip_stream(recording: Path, clip_s: float, dest: Path) -> Path:
    """The recording as the live captioner would give it: one caption per clip with a step in it."""
    if clip_s <= 0:
        return recording
    caps, _ = clips(recording, clip_s)
    lines = [
        json.dumps(
            {"meta": {"session_id": caps[0].session_id, "source": f"{recording.name}, {clip_s:g}-s clips"}}
        )
    ]
    lines += [json.dumps({"t0": c.t0, "t1": c.t1, "text": c.text}) for c in caps]
    dest.write_text("\n".join(lines) + "\n")
    return dest


def run_one(recording: Path, sets: list[str], threads: int, clip_s: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench_realtime_") as d:
        out = Path(d) / "r.json"
        stream = clip_stream(recording, clip_s, Path(d) / "stream.jsonl")
        cmd = [
            sys.executable,
            "-m",
            "benchmarks.replay_cpu",
            str(stream),
            "--data-dir",
            d,
            "--out",
            str(out),
            "--set",
            f"models.threads={threads}",
            "--set",
            "output.speech=off",
        ]
        for s in sets:
            cmd += ["--set", s]
        for q in QUESTIONS:
            cmd += ["--ask", q]
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit(f"replay failed ({' '.join(cmd)}): {proc.stderr.strip().splitlines()[-1:]}")
        r: dict[str, Any] = json.loads(out.read_text())
        r["command"] = " ".join(cmd[1:]).replace(d, "<tmp>")
        return r


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recording", default=str(DEMO))
    ap.add_argument("--configs", default="after,before", help=f"of {', '.join(CONFIGS)}, run in this order")
    ap.add_argument(
        "--threads", type=int, default=0, help="models.threads (0: the default, all cores but one)"
    )
    ap.add_argument(
        "--clip-s", type=float, default=10.0, help="cut the stream into clips this long; 0 = as it is"
    )
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    names = [c.strip() for c in args.configs.split(",") if c.strip()]
    if not names or any(n not in CONFIGS for n in names):
        ap.error(f"--configs: choose from {', '.join(CONFIGS)}")
    t0 = time.perf_counter()
    runs = {}
    for n in names:
        runs[n] = run_one(Path(args.recording), CONFIGS[n], args.threads, args.clip_s)
        print(
            n, json.dumps({k: runs[n][k] for k in ("cpu_s", "stream_s", "cpu_share_of_realtime")}), flush=True
        )
    out: dict[str, Any] = {
        "benchmark": "bench_realtime",
        "recording": str(Path(args.recording).resolve().relative_to(ROOT))
        if ROOT in Path(args.recording).resolve().parents
        else args.recording,
        "clip_s": args.clip_s,
        "total_s": round(time.perf_counter() - t0, 1),
        "cpu_share_of_realtime": {n: r["cpu_share_of_realtime"] for n, r in runs.items()},
        "target": 0.5,
        "runs": runs,
    }
    if "after" in runs and "before" in runs:
        out["ratio_after_over_before"] = round(runs["after"]["cpu_s"] / runs["before"]["cpu_s"], 3)
    write(args.out, out, command_line(argv))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
