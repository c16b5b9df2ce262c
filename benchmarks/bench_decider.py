"""What deciding costs, by decider: the gate (with template or LLM phrasing) against the
LLM's pass 1, measured side by side in one run on the same recording.

- decision cost per step without any LLM call: tracker + gate sections (median, p95), in
  wall time and in CPU time of the threads that did the work (ONNX runs in the calling
  thread when models.threads resolves to 1, as on 2 cores; with more its pool is not counted);
- clip end -> first word of a proactive alert: the step's real compute time (the caption is
  released at the clip's end) + espeak-ng's time to its first audio bytes, for every alert
  spoken.

The recording (CaptainCook4D val 10_46, paraphrased) has annotated errors, so every decider
has something to say. The memory writer runs beside the steps as in the product.

    python -m benchmarks.bench_decider      # writes benchmarks/results/bench_decider.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_pipeline import first_audio_s
from benchmarks.results_io import write
from edge_assist.config import Config
from edge_assist.runtime.app import run_sync
from edge_assist.runtime.assembly import build_pipeline
from edge_assist.runtime.percentiles import p50_p95
from edge_assist.sources.caption_stream import load_caption_stream

ROOT = Path(__file__).resolve().parents[1]
STREAM = ROOT / "edge_assist" / "data" / "captaincook4d" / "val" / "paraphrased" / "10_46.jsonl"
OUT = ROOT / "benchmarks" / "results" / "bench_decider.json"
CONFIGS = {
    "gate, template phrasing": {
        "reasoner.decider": "gate",
        "reasoner.phrasing": "template",
        "policy.chattiness": "chatty",
    },
    "gate, LLM phrasing": {
        "reasoner.decider": "gate",
        "reasoner.phrasing": "llm",
        "policy.chattiness": "chatty",
    },
    "LLM pass 1 + tracker cue": {"reasoner.decider": "llm", "reasoner.progress_cue": "speak"},
}


def run(overrides: dict[str, Any]) -> dict[str, Any]:
    stream = load_caption_stream(STREAM)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Config().replace(**{"general.data_dir": tmp, **overrides})
        pipeline, close = build_pipeline(cfg, live=False, path=STREAM, sinks=[])
        wall = time.perf_counter()
        try:
            result = run_sync(pipeline.run())
        finally:
            close()
        wall = time.perf_counter() - wall
    decide = [d.timings_s.get("tracker", 0.0) + d.timings_s.get("gate", 0.0) for d in result.decisions]
    decide_cpu = [
        d.timings_s.get("tracker_cpu", 0.0) + d.timings_s.get("gate_cpu", 0.0) for d in result.decisions
    ]
    spoken = [d for d in result.decisions if d.speak and d.trigger == "proactive"]
    e2e = [d.latency_s + (first_audio_s(d.text) or 0.0) for d in spoken]
    return {
        "overrides": overrides,
        "steps": len(result.decisions),
        "alerts": len(spoken),
        "decision_without_llm_ms": p50_p95(decide, 2, scale=1000.0),
        # The same work in CPU time of the threads doing it: what the wall clock shows minus
        # waiting for a core (the memory writer's LLM runs beside; other jobs may too).
        "decision_without_llm_cpu_ms": p50_p95(decide_cpu, 2, scale=1000.0),
        "step_latency_s": p50_p95([d.latency_s for d in result.decisions], 4),
        "clip_end_to_first_word_of_alert_s": p50_p95(e2e, 4),
        "wall_s": round(wall, 1),
        "stream_s": round(stream.duration_s, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    rows = {name: run(ov) for name, ov in CONFIGS.items()}
    base = rows["LLM pass 1 + tracker cue"]["clip_end_to_first_word_of_alert_s"]["p50"]
    for r in rows.values():
        p50 = r["clip_end_to_first_word_of_alert_s"]["p50"]
        r["first_word_p50_ratio_to_llm_pass1"] = round(p50 / base, 3) if p50 and base else None
    res = {
        "benchmark": "bench_decider",
        "recording": STREAM.name,
        "rows": rows,
    }
    write(Path(args.out), res)
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
