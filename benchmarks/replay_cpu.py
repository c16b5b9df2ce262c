"""One replay through the whole default pipeline, measured in CPU time: the real-time factor.

    python -m benchmarks.replay_cpu STREAM.jsonl --data-dir DIR [--set key=value ...]
        [--ask SECONDS:QUESTION ...] [--wall-start EPOCH] [--out result.json]

Builds the pipeline exactly as `edge-assist replay` does (caption stream, memory writer,
reasoner with the configured decider, no VLM) on the virtual clock and reports, for the
run alone (model loading excluded): this process's CPU seconds (`time.process_time`, all
threads: the writer, the reasoner and retrieval) per second of stream, which is the share
of the device the pipeline needs whatever else runs on the machine, beside wall time;
decision latencies (proactive steps and answers apart), retrieval timings, the scheduler's
statistics and peak resident memory.

`--wall-start` is for the soak: the store stamps rows with the wall clock (retention and
session order count wall days), so a simulated day needs a simulated wall clock; memory
is opened with EPOCH + the virtual clock as its wall clock (`build_pipeline(wall_start=)`).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.results_io import command_line, write
from benchmarks.soak_probes import rss_mb
from edge_assist.config import Config, parse_override
from edge_assist.events import UserQuery
from edge_assist.memory import heap
from edge_assist.runtime.app import run_sync
from edge_assist.runtime.assembly import build_pipeline
from edge_assist.runtime.percentiles import p50_p95
from edge_assist.runtime.reasoner_stage import StepInbox


def dist(xs: list[float]) -> dict[str, Any]:
    return {
        "n": len(xs),
        **p50_p95(xs, 4),
        "mean": round(statistics.fmean(xs), 4) if xs else None,
    }


def parse_ask(item: str) -> tuple[float, str]:
    t, sep, q = item.partition(":")
    try:
        at = float(t)
    except ValueError:
        at = -1.0
    if not sep or at < 0 or not q.strip():
        raise SystemExit(f"--ask {item!r}: write SECONDS:QUESTION, e.g. 200:what did I do with the egg?")
    return at, q.strip()


def replay(
    stream: Path, cfg: Config, questions: list[tuple[float, str]], wall_start: float | None
) -> dict[str, Any]:
    t_load = time.perf_counter()
    pipeline, close = build_pipeline(cfg, live=False, path=stream, sinks=[], wall_start=wall_start)
    load_s = time.perf_counter() - t_load

    async def plant(inbox: StepInbox) -> None:
        for t, q in questions:
            await pipeline.clock.sleep_until(t)
            inbox.put_query(UserQuery(t=pipeline.clock.now(), text=q, source="soak", stream_t=t))

    if questions:
        pipeline.extra_tasks.append(("questions", plant))
    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        result = run_sync(pipeline.run())
    finally:
        cpu = time.process_time() - cpu0
        wall = time.perf_counter() - wall0
        close()
    stats = result.stats
    stream_s = stats.stream_s
    decisions = result.decisions
    proactive = [d.latency_s for d in decisions if d.trigger != "query"]
    answers = [d.latency_s for d in decisions if d.trigger == "query"]
    searched = [d for d in decisions if "retrieval" in d.timings_s]
    return {
        "stream": str(stream),
        "session_id": stats.session_id,
        "resumed_at": stats.resumed_at,
        "captions": stats.captions,
        "stream_s": round(stream_s, 1),
        "load_s": round(load_s, 2),
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "cpu_share_of_realtime": round(cpu / stream_s, 4) if stream_s else None,
        "wall_share_of_realtime": round(wall / stream_s, 4) if stream_s else None,
        "decisions": len(decisions),
        "spoken": sum(1 for d in decisions if d.speak),
        "proactive_latency_s": dist(proactive),
        "answer_latency_s": dist(answers),
        "retrieval_s": dist([d.timings_s["retrieval"] for d in searched]),
        "retrieval_temporal_s": dist(
            [d.timings_s["retrieval.temporal"] for d in searched if "retrieval.temporal" in d.timings_s]
        ),
        "retrieval_graph_s": dist(
            [d.timings_s["retrieval.graph"] for d in searched if "retrieval.graph" in d.timings_s]
        ),
        "memory_written": stats.memory_written,
        "scheduler": pipeline.scheduler.stats() if pipeline.scheduler else None,
        "rss_mb_end": round(rss_mb(), 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1),
        "answers": [{"t": d.t, "text": d.text[:160]} for d in decisions if d.trigger == "query"],
    }


def main(argv: list[str] | None = None) -> int:
    heap.tune()  # as `edge-assist replay` does at start (edge_assist/memory/heap.py)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stream", help="caption stream (.jsonl or .srt)")
    ap.add_argument("--data-dir", required=True, help="memory store directory (general.data_dir)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override")
    ap.add_argument("--ask", action="append", default=[], metavar="SECONDS:QUESTION")
    ap.add_argument("--wall-start", type=float, default=None, help="simulated epoch seconds at stream t = 0")
    ap.add_argument("--out", default="", help="write the JSON here (else stdout)")
    args = ap.parse_args(argv)
    over: dict[str, Any] = {"general.data_dir": args.data_dir}
    for kv in args.set:
        k, v = parse_override(kv)  # as `edge-assist --set` reads it (types, one-line errors)
        over[k] = v
    cfg = Config().replace(**over)
    path = Path(args.stream)
    if not path.is_file():
        raise SystemExit(f"{path}: no such caption stream")
    out = replay(path, cfg, sorted(parse_ask(a) for a in args.ask), args.wall_start)
    out["overrides"] = {k: v for k, v in over.items() if k != "general.data_dir"}
    if args.out:
        write(args.out, out, command_line(argv), indent=1)
    else:
        sys.stdout.write(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
