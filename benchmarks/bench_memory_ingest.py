"""Memory ingest cost per hour of video, from a real replayed recording.

    python -m benchmarks.bench_memory_ingest [--recording tests/data/memory/captaincook4d_1_42.jsonl]
                                             [--clip-s 10] [--threads 1]

Replays a CaptainCook4D recording (real annotated steps) cut into clips as the segmenter
cuts live video (one caption per 10 s clip that overlaps a performed step) through the
same `Memory` calls the background writer makes, with the real SmolLM2 and MiniLM, and
measures per stage: seconds (embedding + SQLite write, entity extraction + Kùzu, roll-ups),
LLM calls per purpose, and bytes on disk per level. Runs two configurations side by
side on the same stream (entity graph on / off) and extrapolates both to one hour of
video: `compute_s_per_hour / 3600` is the share of one core-set the writer needs.
Writes benchmarks/results/bench_memory_ingest.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.results_io import machine, write
from edge_assist.commands.memory import read_caption_file
from edge_assist.config import Config
from edge_assist.events import Caption
from edge_assist.inference.loader import load_llm, load_text_encoder
from edge_assist.memory.memory import Memory

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "bench_memory_ingest.json"
DEFAULT_RECORDING = ROOT / "tests" / "data" / "memory" / "captaincook4d_1_42.jsonl"


def clips(path: Path, clip_s: float) -> tuple[list[Caption], float]:
    sid, rows = read_caption_file(path)
    end = max(t1 for _, t1, _ in rows)
    out = []
    for i in range(math.ceil(end / clip_s)):
        a, b = i * clip_s, (i + 1) * clip_s
        texts = [text for t0, t1, text in rows if t0 < b and t1 > a]
        if texts:
            out.append(Caption(t=b, session_id=sid, index=i, t0=a, t1=b, text="; ".join(dict.fromkeys(texts))))
    return out, math.ceil(end / clip_s) * clip_s


def run(cfg: Config, caps: list[Caption], duration_s: float) -> dict[str, Any]:
    llm, enc = load_llm(cfg), load_text_encoder(cfg)
    secs = {"store": 0.0, "entities_graph": 0.0, "rollup": 0.0}
    with Memory.open(cfg, llm, enc) as mem:
        for c in caps:
            t = time.perf_counter()
            mem.store_caption(c)
            secs["store"] += time.perf_counter() - t
            t = time.perf_counter()
            mem.update_graph()
            secs["entities_graph"] += time.perf_counter() - t
            t = time.perf_counter()
            mem.roll_up(c.session_id)
            secs["rollup"] += time.perf_counter() - t
        t = time.perf_counter()
        mem.flush()
        secs["rollup"] += time.perf_counter() - t
        st = mem.stats()
        calls = dict(mem.llm_calls)
    per_hour = 3600.0 / duration_s
    level_bytes = {lv: st["text_bytes"][lv] + st["text_vector_bytes"][lv] for lv in st["items"]}
    total_s = sum(secs.values())
    return {
        "extract_entities": cfg.memory.extract_entities,
        "captions": len(caps),
        "items": st["items"],
        "llm_calls": calls,
        "seconds": {k: round(v, 2) for k, v in secs.items()},
        "seconds_per_caption": round(total_s / len(caps), 3),
        "per_hour": {
            "captions": round(len(caps) * per_hour),
            "llm_calls": {k: round(v * per_hour) for k, v in calls.items()},
            "compute_s": round(total_s * per_hour, 1),
            "compute_share_of_realtime": round(total_s / duration_s, 3),
            "bytes_per_level_text_plus_vectors": {k: round(v * per_hour) for k, v in level_bytes.items()},
            "sqlite_file_bytes": round(st["bytes"] * per_hour),
            "graph_file_bytes": round(st["graph_bytes"] * per_hour),
            "graph": {k: round(v * per_hour) for k, v in st["graph"].items()},
        },
        "note": "file sizes include fixed overhead (vec0 preallocates 1024-vector chunks, Kùzu its pages): "
        "per-hour file bytes from a short stream overstate the marginal cost; the per-level bytes do not",
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recording", default=str(DEFAULT_RECORDING))
    ap.add_argument("--clip-s", type=float, default=10.0)
    ap.add_argument("--threads", type=int, default=1, help="llama.cpp threads (the writer is a background stage)")
    ap.add_argument("--max-captions", type=int, default=0, help="only the first N captions (a quick run); 0 = all")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)
    caps, duration = clips(Path(args.recording), args.clip_s)
    if 0 < args.max_captions < len(caps):
        caps = caps[: args.max_captions]
        duration = caps[-1].t1  # the per-hour figures extrapolate from the stream actually ingested
    rows = []
    t0 = time.perf_counter()
    for entities in (True, False):
        with tempfile.TemporaryDirectory(prefix="bench_memory_ingest_") as d:
            cfg = Config().replace(**{"general.data_dir": d, "models.threads": args.threads,
                                      "memory.extract_entities": entities})
            r = run(cfg, caps, duration)
            rows.append(r)
            print(json.dumps(r), flush=True)
    on, off = rows
    out = {
        "benchmark": "bench_memory_ingest",
        "recording": os.path.relpath(args.recording, ROOT),
        "stream_s": duration,
        "clip_s": args.clip_s,
        "profile": "short (10 s / 1 min / 5 min)",
        "llm": Config().models.llm,
        "threads": args.threads,
        "machine": machine(),
        "total_s": round(time.perf_counter() - t0, 1),
        "entity_graph_cost_ratio": round(on["per_hour"]["compute_s"] / max(1e-9, off["per_hour"]["compute_s"]), 2),
        "runs": rows,
    }
    write(args.out, out)
    print(f"wrote {args.out} in {out['total_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
