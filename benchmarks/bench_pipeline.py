"""End-to-end latency and the scheduler's own cost.

1. Clip end -> first spoken word, with and without retrieval: the bundled CaptainCook4D
   recording replays through the whole pipeline (real SmolLM2, MiniLM, sqlite-vec, Kùzu)
   with wearer questions planted at fixed stream times (a question is always answered,
   so every configuration speaks the same number of times). Latency = the step's real
   compute time (the caption is released at the clip's end) + espeak-ng's time to its
   first audio bytes for the text actually spoken.
2. Scheduler overhead: the scheduler's own bookkeeping per step (budget, search plan,
   lane arbitration, statistics), as a fraction of the step budget (target < 2%), and
   the arbiter's cost around a real one-token LLM call, measured side by side.

    python -m benchmarks.bench_pipeline            # writes benchmarks/results/bench_pipeline.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.results_io import write
from edge_assist.config import Config
from edge_assist.events import UserQuery
from edge_assist.runtime.app import run_sync
from edge_assist.runtime.assembly import build_pipeline
from edge_assist.runtime.budgets import CURRENT_STEP
from edge_assist.runtime.lanes import LANE, Lane, ScheduledLLM
from edge_assist.runtime.percentiles import p50_p95
from edge_assist.runtime.reasoner_stage import StepInbox
from edge_assist.runtime.scheduler import Scheduler
from edge_assist.sources.caption_stream import load_caption_stream

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"
OUT = ROOT / "benchmarks" / "results" / "bench_pipeline.json"
QUESTIONS = (
    (90.0, "Did I already pour the egg into the ramekin?"),
    (200.0, "What did I do with the English muffin?"),
    (330.0, "What is the next step?"),
)


def first_audio_s(text: str) -> float | None:
    """espeak-ng's time from start to its first audio bytes on stdout."""
    exe = shutil.which("espeak-ng")
    if exe is None or not text.strip():
        return None
    t0 = time.perf_counter()
    proc = subprocess.Popen([exe, "--stdout", text], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    proc.stdout.read(1024)  # the WAV header and the first samples
    t = time.perf_counter() - t0
    proc.kill()
    proc.wait()
    return t


def replay_latency(overrides: dict[str, Any]) -> dict[str, Any]:
    stream = load_caption_stream(DEMO)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Config().replace(**{"general.data_dir": tmp, **overrides})
        pipeline, close = build_pipeline(cfg, live=False, path=DEMO, sinks=[])

        async def plant(inbox: StepInbox) -> None:
            for t, q in QUESTIONS:
                if t > stream.duration_s:
                    break
                await pipeline.clock.sleep_until(t)
                inbox.put_query(UserQuery(t=pipeline.clock.now(), text=q, source="bench", stream_t=t))

        pipeline.extra_tasks.append(("questions", plant))
        wall = time.perf_counter()
        try:
            result = run_sync(pipeline.run())
        finally:
            close()
        wall = time.perf_counter() - wall
    spoken = [d for d in result.decisions if d.speak]
    e2e = []
    for d in spoken:
        tts = first_audio_s(d.text)
        e2e.append(d.latency_s + (tts or 0.0))
    searched = sum(1 for d in result.decisions if "retrieval" in d.timings_s)
    return {
        "overrides": overrides,
        "steps": len(result.decisions),
        "spoken": len(spoken),
        "answers": sum(1 for d in spoken if d.trigger == "query"),
        "steps_that_searched": searched,
        "clip_end_to_first_word_s": {
            **p50_p95(e2e, 4),
            "mean": round(statistics.fmean(e2e), 4) if e2e else None,
        },
        "step_latency_s": p50_p95([d.latency_s for d in result.decisions], 4),
        "wall_s": round(wall, 2),
        "stream_s": round(stream.duration_s, 1),
        "scheduler": pipeline.scheduler.stats() if pipeline.scheduler else None,
    }


def scheduler_overhead(iterations: int) -> dict[str, Any]:
    from edge_assist.events import Caption
    from edge_assist.reasoning.api import StepContext

    cfg = Config()
    s = Scheduler(cfg)
    ctx = StepContext("bench", Caption(0.0, "bench", 0, 0.0, 10.0, "I cut the bread"))
    timings = {"pass1": 1.0, "retrieval": 0.3, "reconstruction": 4.0, "pass2": 1.5}

    async def one_step() -> None:
        budget = s.new_step(ctx)
        CURRENT_STEP.set(budget)
        LANE.set(Lane.INSTANT)
        s.arbiter.step_started()
        with s.arbiter.hold(Lane.INSTANT):
            pass
        await s.request("bread knife")
        with s.arbiter.hold(Lane.SEARCH):
            pass
        s.arbiter.step_finished()
        s.step_done(budget, timings)

    async def loop() -> float:
        t0 = time.perf_counter()
        for _ in range(iterations):
            await one_step()
        return (time.perf_counter() - t0) / iterations

    per_step = run_sync(loop())
    return {
        "iterations": iterations,
        "per_step_s": per_step,
        "step_budget_s": cfg.scheduler.step_budget_s,
        "fraction_of_budget": per_step / cfg.scheduler.step_budget_s,
        "target_fraction": 0.02,
    }


def arbiter_around_llm(calls: int) -> dict[str, Any]:
    from edge_assist.inference.loader import load_llm

    llm = load_llm(Config())
    wrapped = ScheduledLLM(llm, Scheduler(Config()).arbiter)
    msgs = [{"role": "user", "content": "Say yes."}]
    llm.chat(msgs, max_tokens=1)  # warm up
    direct, sched = [], []
    for _ in range(calls):  # interleaved, so both see the same machine state
        t = time.perf_counter()
        llm.chat(msgs, max_tokens=1)
        direct.append(time.perf_counter() - t)
        t = time.perf_counter()
        wrapped.chat(msgs, max_tokens=1)
        sched.append(time.perf_counter() - t)
    d, w = statistics.median(direct), statistics.median(sched)
    return {"calls": calls, "direct_median_s": d, "scheduled_median_s": w, "ratio": w / d}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument(
        "--quick",
        action="store_true",
        help="fewer scheduler iterations and arbiter calls (the replays stay whole)",
    )
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    results: dict[str, Any] = {
        "scheduler_overhead": scheduler_overhead(200 if args.quick else args.iterations),
        "arbiter_around_llm_call": arbiter_around_llm(5 if args.quick else 20),
    }
    with_r = replay_latency({})
    without_r = replay_latency(
        {"retrieval.temporal": False, "retrieval.graph": False, "retrieval.visual": False}
    )
    results["end_to_end"] = {"with_retrieval": with_r, "without_retrieval": without_r}
    a = with_r["clip_end_to_first_word_s"]["p50"]
    b = without_r["clip_end_to_first_word_s"]["p50"]
    results["end_to_end"]["p50_ratio_with_over_without"] = round(a / b, 3) if a and b else None
    write(args.out, results)
    print(json.dumps({k: v for k, v in results.items() if k != "end_to_end"}, indent=2))
    for name in ("with_retrieval", "without_retrieval"):
        r = results["end_to_end"][name]
        print(
            name,
            r["spoken"],
            "spoken,",
            r["steps_that_searched"],
            "searched, clip end -> first word",
            r["clip_end_to_first_word_s"],
        )


if __name__ == "__main__":
    main()
