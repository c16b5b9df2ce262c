"""What the soak measures every simulated hour: search latency, resident memory, disk, retention.

Search goes through the real `Retriever` (temporal + graph paths, this session up to now
and every earlier session, reconstruction off: the LLM part is measured by the checkpoint
replays) with the real MiniLM encoding each question, as a reasoner step asks it.
"""

from __future__ import annotations

import asyncio
import math
import resource
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np

from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.memory.memory import Memory, Paths
from edge_assist.retrieval.api import SearchPlan
from edge_assist.retrieval.retriever import Retriever
from edge_assist.runtime.percentiles import percentile

# Questions of the kinds the services ask: objects of the day's cooking, the routines, the past.
QUERIES = (
    "where did I put the egg",
    "what did I do with the knife",
    "did I already add salt",
    "when did I last use the microwave",
    "what did I pour into the bowl",
    "did I rinse the vegetables",
    "how much oil did I use",
    "what did I cut on the cutting board",
    "did I turn off the stove",
    "what did I make for breakfast yesterday",
    "where is the measuring cup",
    "what did I do with the ramekin cup",
)


class CachedEncoder:
    """The real text encoder, with the week's clip texts encoded once, before day 1.

    The week replays recordings more than once and clip texts repeat (steps span clips, and
    recordings of one recipe share their steps: 2,133 distinct texts in 34,083 clips), so
    the bulk fill would encode the same strings again; the vectors are identical, only the
    time is saved. The cache is filled up front and never grows: a cache filled as the week
    went (up to 4,096 entries, summaries included) added 2-3 MB of the harness's own heap a
    simulated day for most of the week (tracemalloc), which the soak then reported as the
    product's heap growth. Anything else (summaries, questions) goes to the plain encoder.
    """

    def __init__(self, enc: TextEncoder, texts: Any = ()) -> None:
        self.enc = enc
        self.name = enc.name
        self.dim = enc.dim
        known = list(dict.fromkeys(texts))
        self.row = {t: i for i, t in enumerate(known)}
        self.vectors = np.empty((len(known), enc.dim), np.float32)
        # One text per call, as ingest encodes: onnxruntime's CPU arena keeps the largest batch's
        # buffers, and a prefill in batches of 64 left 170 MB more heap from the first hour on
        # (a run made so: heap 326 MB at hour 0.5 against 153), which would flatter every RSS ratio.
        for i, text in enumerate(known):
            self.vectors[i] = enc.encode([text])[0]

    @property
    def nbytes(self) -> int:
        return int(self.vectors.nbytes)

    def encode(self, texts: Any) -> np.ndarray:
        texts = list(texts)
        out = np.empty((len(texts), self.dim), np.float32)
        todo = [i for i, t in enumerate(texts) if t not in self.row]
        for i, t in enumerate(texts):
            if t in self.row:
                out[i] = self.vectors[self.row[t]]
        if todo:
            out[todo] = self.enc.encode([texts[i] for i in todo])
        return out


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


# A mapping this large is a reservation, not an allocation: Kùzu's buffer manager reserves its
# whole address range up front and only the pages it touches count as resident (bounded by
# `memory.graph_buffer_mb`); glibc's heaps and arenas are far smaller.
RESERVATION = 1 << 36


def rss_by_kind() -> dict[str, float]:
    """Resident MB by where it lives (/proc/self/smaps): which kind grows is where a creep is.

    graph_pool: Kùzu's buffer pool; heap: malloc (the brk heap, arenas and other anonymous
    mappings: Python objects, ONNX Runtime, SQLite caches, numpy); models: model files mapped
    from disk; code: shared libraries; other: the rest of file-backed mappings (databases, ...).
    """
    out = {"graph_pool": 0, "heap": 0, "models": 0, "code": 0, "other": 0}
    kind = "other"
    try:
        with open("/proc/self/smaps", encoding="utf-8", errors="replace") as f:
            for line in f:
                head = line.split(maxsplit=6)
                if "-" in head[0] and not head[0].endswith(":"):
                    lo, hi = (int(x, 16) for x in head[0].split("-"))
                    name = head[5].strip() if len(head) > 5 else ""
                    if not name or name == "[heap]":
                        kind = "graph_pool" if hi - lo >= RESERVATION else "heap"
                    elif name.endswith((".gguf", ".onnx", ".bin")):
                        kind = "models"
                    elif ".so" in name:
                        kind = "code"
                    else:
                        kind = "other"
                elif head[0] == "Rss:":
                    out[kind] += int(head[1])
    except OSError:
        return {}
    return {k: round(v / 1024.0, 1) for k, v in out.items()}


def disk_bytes(cfg: Config) -> dict[str, int]:
    """Store and graph files (with their WALs) apart from keyframe JPEGs."""
    p = Paths.of(cfg)

    def size(path: Path) -> int:
        if path.is_dir():
            return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        return path.stat().st_size if path.exists() else 0

    store = sum(size(q) for q in p.sqlite.parent.glob(p.sqlite.name + "*"))
    graph = sum(size(q) for q in p.graph.parent.glob(p.graph.name + "*"))
    return {"store": store, "graph": graph, "keyframes": size(p.keyframes)}


# Each probe asks every question this many times: a median of 36 searches, not 12, so one
# hour's figure is not one slow question (the flatness ratios compare single hours).
ROUNDS = 3


def search_probe(mem: Memory, cfg: Config, enc: TextEncoder, session_id: str, now_t: float) -> dict[str, Any]:
    """Every question `ROUNDS` times, as a reasoner step at `now_t` of `session_id` would search."""
    retriever = Retriever(cfg, mem, llm=cast(LLM, None), text_encoder=enc, clock=RealClock())
    plan = SearchPlan(paths=("temporal", "graph"), top_k=cfg.retrieval.top_k, reconstruction=False)
    wall: list[float] = []
    cpu: list[float] = []
    temporal: list[float] = []
    graph: list[float] = []
    found = 0

    async def run() -> None:
        nonlocal found
        for q in QUERIES * ROUNDS:
            c0, w0 = time.process_time(), time.perf_counter()
            r = await retriever.retrieve(
                q, before_t=now_t, session_id=session_id, plan=plan, past_sessions=True
            )
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
            temporal.append(r.timings_s.get("retrieval.temporal", math.nan))
            graph.append(r.timings_s.get("retrieval.graph", math.nan))
            found += int(bool(r.context.clips))

    asyncio.run(run())
    # The temporal path's two parts alone, on this thread's clock: the question's encoding and
    # the store's KNN (which of them grows is where a slowdown is).
    earlier = tuple(mem.earlier_sessions(session_id))
    enc_cpu: list[float] = []
    knn_cpu: list[float] = []
    for q in QUERIES * ROUNDS:
        c0 = time.thread_time()
        v = enc.encode([q])[0]
        c1 = time.thread_time()
        mem.search_text(
            v, k=cfg.retrieval.top_k, before_t=now_t, session_id=session_id, earlier_sessions=earlier
        )
        enc_cpu.append(c1 - c0)
        knn_cpu.append(time.thread_time() - c1)
    return {
        "wall_p50": percentile(wall, 50, 5),
        "wall_p95": percentile(wall, 95, 5),
        "cpu_p50": percentile(cpu, 50, 5),
        "cpu_p95": percentile(cpu, 95, 5),
        "temporal_p50": percentile(temporal, 50, 5),
        "graph_p50": percentile(graph, 50, 5),
        "encode_cpu_p50": percentile(enc_cpu, 50, 5),
        "knn_cpu_p50": percentile(knn_cpu, 50, 5),
        "answered": found // ROUNDS,
        "asked": len(QUERIES),
    }


def keyframe_ages_days(
    mem: Memory, wall_of: Callable[[str, float], float | None], now_wall: float, retention_days: float
) -> dict[str, Any]:
    """Keyframe files still on disk (and the oldest one's age, simulated days), those deleted,
    and those deleted while still younger than the retention (which must never happen)."""
    kept, gone, early = [], 0, 0
    # The keyframe rows alone: reading them through `export()` built every item of the week as a
    # dict each day (+5 MB of RSS on the week's store the first time, +1-3 MB each time after).
    rows = [
        {"session_id": r[0], "stream_t": r[1], "path": r[2]}
        for r in mem.store.db.read("SELECT session_id, stream_t, path FROM keyframes")
    ]
    for row in rows:
        at = wall_of(row["session_id"], float(row["stream_t"]))
        if at is None:
            continue
        age = (now_wall - at) / 86400.0
        if row["path"] and Path(row["path"]).exists():
            kept.append(age)
        else:
            gone += 1
            early += int(age < retention_days)
    return {
        "files": len(kept),
        "deleted": gone,
        "deleted_too_early": early,
        "oldest_file_days": round(max(kept), 3) if kept else None,
    }


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
