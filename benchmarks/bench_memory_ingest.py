"""Memory ingest cost per hour of video, from a real replayed recording.

    python -m benchmarks.bench_memory_ingest [--recording tests/data/memory/captaincook4d_1_42.jsonl]
                                             [--clip-s 10] [--threads 1]

Replays a CaptainCook4D recording (real annotated steps) cut into clips as the segmenter
cuts live video (one caption per 10 s clip that overlaps a performed step) through the
same `Memory` calls the background writer makes, with the real SmolLM2 and MiniLM, and
measures per stage: CPU seconds of this process (time.process_time: the machine is shared,
so wall time would count other people's work) and wall seconds (embedding + SQLite write,
entity extraction + Kùzu, roll-ups), LLM calls per purpose, and bytes on disk per level.

Runs every entity path side by side on the same stream (`--options`): `llm` (one LLM call
per caption), `llm-batch` (one per `memory.entity_batch` captions), `lexical` (the
caption's shallow parse, no LLM) and `none` (no graph), and extrapolates each to one hour
of video: `compute_share_of_realtime` is the share of one core the writer needs (the
budget of issue 13: <= 0.25). For each path, `graph_vs_llm` asks the graph path the names
the `llm` path stored and counts how many of the (name, clip) pairs the `llm` graph
answers the other graph answers too (recall against the LLM extraction), and the reverse.
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

from benchmarks.results_io import command_line, write
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
            out.append(
                Caption(t=b, session_id=sid, index=i, t0=a, t1=b, text="; ".join(dict.fromkeys(texts)))
            )
    return out, math.ceil(end / clip_s) * clip_s


OPTIONS = ("llm", "llm-batch", "lexical", "none")


def graph_answers(mem: Memory, names: list[str]) -> set[tuple[str, int]]:
    """(asked name, clip) pairs the graph path returns for each name alone."""
    out: set[tuple[str, int]] = set()
    for n in names:
        for h in mem.graph_neighbourhood([n], before_t=1e12, k=5):
            out |= {(n, i) for i in h.clip_indices}
    return out


def run(cfg: Config, caps: list[Caption], duration_s: float, models: tuple[Any, Any]) -> dict[str, Any]:
    llm, enc = models
    secs = {"store": 0.0, "entities_graph": 0.0, "rollup": 0.0}
    cpu = dict(secs)

    def timed(stage: str, fn: Any, *a: Any) -> None:
        t, c = time.perf_counter(), time.process_time()
        fn(*a)
        secs[stage] += time.perf_counter() - t
        cpu[stage] += time.process_time() - c

    with Memory.open(cfg, llm, enc) as mem:
        mem.llm_calls = {k: 0 for k in mem.llm_calls}
        for c in caps:
            timed("store", mem.store_caption, c)
            timed("entities_graph", mem.update_graph)
            timed("rollup", mem.roll_up, c.session_id)
        timed("rollup", mem.flush)  # the last partial batch of entities is counted as roll-up time
        st = mem.stats()
        calls = dict(mem.llm_calls)
        keys = sorted({k for k, _, _ in mem.graph.entities()})
        answers = graph_answers(mem, keys)
    per_hour = 3600.0 / duration_s
    level_bytes = {lv: st["text_bytes"][lv] + st["text_vector_bytes"][lv] for lv in st["items"]}
    total_s = sum(cpu.values())
    return {
        "extract_entities": cfg.memory.extract_entities,
        "entity_extractor": cfg.memory.entity_extractor if cfg.memory.extract_entities else "none",
        "captions": len(caps),
        "items": st["items"],
        "llm_calls": calls,
        "seconds": {k: round(v, 2) for k, v in secs.items()},
        "cpu_seconds": {k: round(v, 2) for k, v in cpu.items()},
        "seconds_per_caption": round(total_s / len(caps), 3),
        "wall_seconds_per_caption": round(sum(secs.values()) / len(caps), 3),
        "entity_keys": keys,
        "graph_answers": sorted(answers),
        "per_hour": {
            "captions": round(len(caps) * per_hour),
            "llm_calls": {k: round(v * per_hour) for k, v in calls.items()},
            "compute_s": round(total_s * per_hour, 1),
            "compute_share_of_realtime": round(total_s / duration_s, 3),
            "wall_share_of_realtime": round(sum(secs.values()) / duration_s, 3),
            "bytes_per_level_text_plus_vectors": {k: round(v * per_hour) for k, v in level_bytes.items()},
            "sqlite_file_bytes": round(st["bytes"] * per_hour),
            "graph_file_bytes": round(st["graph_bytes"] * per_hour),
            "graph": {k: round(v * per_hour) for k, v in st["graph"].items()},
        },
        "note": "file sizes include fixed overhead (vec0 preallocates 1024-vector chunks, Kùzu its pages): "
        "per-hour file bytes from a short stream overstate the marginal cost; the per-level bytes do not",
    }


def compare(rows: dict[str, dict[str, Any]]) -> None:
    """Each path's graph against the `llm` path's: asked the `llm` path's names, which (name, clip)
    pairs of the `llm` answers come back too (recall); the answers lists are dropped after."""
    ref = rows["llm"]
    ref_pairs = {tuple(p) for p in ref["graph_answers"]}
    for opt, r in rows.items():
        if opt in ("llm", "none"):
            continue
        got = {tuple(p) for p in r.pop("graph_answers_for_llm_names")}
        r["graph_vs_llm"] = {
            "llm_pairs": len(ref_pairs),
            "recall_of_llm_pairs": round(len(ref_pairs & got) / max(1, len(ref_pairs)), 3),
            "names": len(r["entity_keys"]),
            "llm_names": len(ref["entity_keys"]),
            "shared_names": len(set(r["entity_keys"]) & set(ref["entity_keys"])),
            "own_pairs": len(r["graph_answers"]),
        }
    for r in rows.values():
        r.pop("graph_answers", None)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--recording", default=str(DEFAULT_RECORDING))
    ap.add_argument("--clip-s", type=float, default=10.0)
    ap.add_argument(
        "--threads", type=int, default=1, help="llama.cpp threads (the writer is a background stage)"
    )
    ap.add_argument(
        "--max-captions", type=int, default=0, help="only the first N captions (a quick run); 0 = all"
    )
    ap.add_argument(
        "--options", default=",".join(OPTIONS), help=f"entity paths to run, of {', '.join(OPTIONS)}"
    )
    ap.add_argument(
        "--batch", type=int, default=Config().memory.entity_batch, help="captions per llm-batch call"
    )
    ap.add_argument("--out", default=str(RESULTS))
    return ap


def _ask_llm_names(rows: dict[str, dict[str, Any]], caps: list[Caption], base: Config, models: Any) -> None:
    """Ask each graph the llm path's names: what the llm graph answers, does this one answer too?"""
    names = rows["llm"]["entity_keys"]
    for opt, r in rows.items():
        if opt in ("llm", "none"):
            continue
        with tempfile.TemporaryDirectory(prefix="bench_memory_ingest_q_") as d:
            cfg = base.replace(**{"general.data_dir": d, "memory.entity_extractor": opt})
            with Memory.open(cfg, models[0], models[1]) as mem:
                for c in caps:
                    mem.store_caption(c)
                mem.update_graph(force=True)
                r["graph_answers_for_llm_names"] = sorted(graph_answers(mem, names))
    compare(rows)


def _ratios(
    rows: dict[str, dict[str, Any]], on: dict[str, Any], off: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "share_of_realtime": {k: r["per_hour"]["compute_share_of_realtime"] for k, r in rows.items()},
        "ratio_over_llm": {
            k: round(r["per_hour"]["compute_s"] / rows["llm"]["per_hour"]["compute_s"], 3)
            for k, r in rows.items()
        }
        if "llm" in rows
        else {},
        "entity_graph_cost_ratio": round(
            on["per_hour"]["compute_s"] / max(1e-9, off["per_hour"]["compute_s"]), 2
        )
        if off
        else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    options = [o.strip() for o in args.options.split(",") if o.strip()]
    bad = [o for o in options if o not in OPTIONS]
    if bad or not options:
        ap.error(f"--options: unknown {bad or 'empty'}; choose from {', '.join(OPTIONS)}")
    caps, duration = clips(Path(args.recording), args.clip_s)
    if 0 < args.max_captions < len(caps):
        caps = caps[: args.max_captions]
        duration = caps[-1].t1  # the per-hour figures extrapolate from the stream actually ingested
    base = Config().replace(**{"models.threads": args.threads, "memory.entity_batch": args.batch})
    models = (load_llm(base), load_text_encoder(base))
    rows: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    for opt in options:
        with tempfile.TemporaryDirectory(prefix="bench_memory_ingest_") as d:
            over: dict[str, Any] = {"general.data_dir": d, "memory.extract_entities": opt != "none"}
            if opt != "none":
                over["memory.entity_extractor"] = opt
            r = run(base.replace(**over), caps, duration, models)
            rows[opt] = r
            print(
                json.dumps({k: v for k, v in r.items() if k not in ("entity_keys", "graph_answers")}),
                flush=True,
            )
    if "llm" in rows:
        _ask_llm_names(rows, caps, base, models)
    default = Config().memory.entity_extractor
    on = rows.get(default) or next(iter(rows.values()))
    off = rows.get("none")
    out = {
        "benchmark": "bench_memory_ingest",
        "recording": os.path.relpath(args.recording, ROOT),
        "stream_s": duration,
        "clip_s": args.clip_s,
        "profile": "short (10 s / 1 min / 5 min)",
        "llm": Config().models.llm,
        "threads": args.threads,
        "entity_batch": args.batch,
        "default_entity_extractor": default,
        "total_s": round(time.perf_counter() - t0, 1),
        **_ratios(rows, on, off),
        # run_all reads runs[0] (the default path) and runs[1] (no graph).
        "runs": [on] + ([off] if off else []) + [r for r in rows.values() if r is not on and r is not off],
    }
    write(args.out, out, command_line(argv))
    print(f"wrote {args.out} in {out['total_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
