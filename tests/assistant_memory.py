"""A small real memory for the retrieval and assistant tests, built once per test session.

The first captions of a real CaptainCook4D recording (the shipped demo stream), each
with one synthetic keyframe (a flat colour: a camera is hardware, so its frames may be
made up), ingested through B's Memory with SmolLM2 (entities, summaries), MiniLM and the
tiny generated CLIP pair (real sqlite-vec, real Kùzu). One caption is planted far in the
future (t = 900 s) with words found nowhere else, to prove no path ever reads past now.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.events import Caption, Keyframe
from edge_assist.inference.base import LLM, ImageEncoder, TextEncoder
from edge_assist.memory.memory import Memory
from edge_assist.runtime.assistant import EgoMemoAssistant, build_assistant
from tests.clip_level import CLIP_LEVEL

DEMO = (
    Path(__file__).resolve().parents[1] / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"
)
N_REAL = 4
FUTURE_TEXT = "Puts the zebra-striped thermos on the windowsill"
FUTURE_T0, FUTURE_T1 = 900.0, 910.0


def demo_stream(n: int | None = None) -> tuple[dict, list[Caption]]:
    lines = [json.loads(x) for x in DEMO.read_text(encoding="utf-8").splitlines() if x.strip()]
    meta = lines[0]["meta"]
    rows = lines[1:] if n is None else lines[1 : n + 1]
    caps = [Caption(r["t1"], meta["session_id"], i, r["t0"], r["t1"], r["text"]) for i, r in enumerate(rows)]
    return meta, caps


def _frame(i: int) -> np.ndarray:
    img = np.zeros((48, 64, 3), dtype=np.uint8)
    img[:] = ((37 * i) % 256, (91 * i + 40) % 256, (53 * i + 90) % 256)
    img[8:24, 8 + 4 * i : 24 + 4 * i] = 255 - img[0, 0]
    return img


@dataclass
class Built:
    cfg: Config
    memory: Memory
    meta: dict
    captions: list[Caption]  # the real ones, in order
    future: Caption  # the planted one (index after the real ones, t = 900 s)


_built: dict[str, Built] = {}


def built_memory(tmp: Path, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder) -> Built:
    """Build once per test session (ingest costs SmolLM2 calls), shared by every test module."""
    if "m" in _built:
        return _built["m"]
    cfg = Config().replace(**{"general.data_dir": str(tmp), "general.wearer": "demo"})
    memory = Memory.open(cfg, llm, text_encoder, image_encoder)
    meta, caps = demo_stream(N_REAL)
    with_frames = [
        Caption(
            c.t,
            c.session_id,
            c.index,
            c.t0,
            c.t1,
            c.text,
            keyframes=(Keyframe(c.t1 - 1, _frame(c.index), "even"),),
        )
        for c in caps
    ]
    i = len(caps)
    future = Caption(
        FUTURE_T1,
        meta["session_id"],
        i,
        FUTURE_T0,
        FUTURE_T1,
        FUTURE_TEXT,
        keyframes=(Keyframe(FUTURE_T1 - 1, _frame(i), "even"),),
    )
    for c in [*with_frames, future]:
        memory.ingest(c)
    memory.flush()
    _built["m"] = Built(cfg, memory, meta, caps, future)
    return _built["m"]


def stream_captions(session: str, stream: list[tuple[float, str]]) -> list[Caption]:
    """Captions of one session from (start, text) pairs: each clip ends where the next begins, the
    last 20 s after it starts."""
    ends = [t for t, _ in stream[1:]] + [stream[-1][0] + 20.0]
    timed = enumerate(zip(stream, ends, strict=True))
    return [Caption(t1, session, i, t0, t1, text) for i, ((t0, text), t1) in timed]


@contextmanager
def clip_level_assistant(
    data_dir: Path, wearer: str, llm: LLM, text_encoder: TextEncoder, captions: Iterable[Caption]
) -> Iterator[EgoMemoAssistant]:
    """An assistant over a memory of `captions` kept at clip level (tests/clip_level.py): built
    with no model call, for the question tests."""
    cfg = Config().replace(**{"general.data_dir": str(data_dir), "general.wearer": wearer, **CLIP_LEVEL})
    memory = Memory.open(cfg, llm, text_encoder, None)
    try:
        for c in captions:
            memory.ingest(c)
        memory.flush()
        yield build_assistant(cfg, llm, text_encoder, memory, clock=RealClock())
    finally:
        memory.close()
