"""Multi-scale roll-up over a real replayed recording, with the real SmolLM2 (LLM calls counted).

CaptainCook4D 3_5 (mug pizza, 14 steps, 9.6 min), one caption per step, short profile
(activity 1 min, session 5 min). Steps end (t1) at 8, 55 | 78, 115 | 175 | 201 | 246, 269 |
323 | 373, 396 | 432, 459 | - | 573 s, so the 1-min windows 0..9 hold 2,2,1,1,2,1,2,2,0,1
captions: five windows need the LLM, four are their single caption; window 8 is empty.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.events import Caption, StreamEnd
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.inference.loader import load_llm
from edge_assist.inference.remote import RemoteLLM
from edge_assist.memory.memory import Memory
from edge_assist.memory.store_reads import LATEST_ITEM_SQL
from edge_assist.memory.writer import MemoryWriter
from tests.conftest import closed_after
from tests.fakes import ChatServer
from tests.test_memory_streams import LONG, SHORT, memory_config, stream

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bg_llm() -> Iterator[LLM]:
    # One thread: the memory writer runs in the background and must leave a core to the reasoner.
    yield from closed_after(load_llm(Config().replace(**{"models.threads": 1})))


@pytest.fixture(params=["scripted", pytest.param("smollm2", marks=pytest.mark.heavy)])
def summariser(request: pytest.FixtureRequest, server: ChatServer) -> LLM:
    """SmolLM2 (the long suite), or a scripted server at the network edge: the windows, the
    calls and the causality are the same, only the summaries' words differ."""
    if request.param == "smollm2":
        return request.getfixturevalue("bg_llm")
    server.reply = lambda body: json.dumps({"summary": "The wearer works at the kitchen counter."})
    return RemoteLLM(Config().replace(**{"remote.base_url": server.url, "remote.retries": 0}).remote)


def _cfg(tmp_path: Path) -> Config:
    return memory_config(tmp_path, **{"memory.extract_entities": False})


def test_rollup_schedule_counts_causality_and_no_recomputation(
    tmp_path: Path, summariser: LLM, text_encoder: TextEncoder
) -> None:
    caps = stream(LONG)
    sid = caps[0].session_id
    written_at: dict[tuple[str, int], int] = {}
    with Memory.open(_cfg(tmp_path), summariser, text_encoder) as mem:
        for c in caps:
            for s in mem.ingest(c).summaries:
                written_at[s] = c.index
        # A window is summarised by the first caption that ends after it, never earlier.
        assert written_at == {
            ("activity", 0): 2,
            ("activity", 1): 4,
            ("activity", 2): 5,
            ("activity", 3): 6,
            ("activity", 4): 8,
            ("session", 0): 8,
            ("activity", 5): 9,
            ("activity", 6): 11,
            ("activity", 7): 13,
        }
        assert mem.llm_calls == {"entities": 0, "activity": 5, "session": 1}
        flushed = mem.flush()
        assert flushed == [("activity", 9), ("session", 1)]
        assert mem.llm_calls == {"entities": 0, "activity": 5, "session": 2}  # window 9 is one caption
        acts, sess = mem.summaries("activity", before_t=1e9), mem.summaries("session", before_t=1e9)
        assert len(acts) == 9 and len(sess) == 2
        assert sess[0].clip_indices == tuple(range(8)) and sess[1].clip_indices == tuple(range(8, 14))
        for a in acts:  # a summary ends with its last member and inside its window
            members = mem.captions(sid, a.clip_indices)
            assert a.t1 == max(m.t1 for m in members) and a.t0 == min(m.t0 for m in members)
            assert a.text
        # Causality: at t = 300 s only what ended by then exists, at every level.
        for level in ("clip", "activity", "session"):
            assert all(h.t1 <= 300.0 for h in mem.summaries(level, before_t=300.0))
        # The 0-5 min session summary ends with its last caption (269 s): it tells nothing later.
        [s0] = mem.summaries("session", before_t=300.0)
        assert s0.t1 == caps[7].t1 and s0.clip_indices == tuple(range(8))
        assert mem.summaries("session", before_t=caps[7].t1 - 0.001) == []
        q = text_encoder.encode(["microwave the mug pizza"])[0]
        assert all(h.t1 <= 300.0 for h in mem.search_text(q, k=30, before_t=300.0))
        latest = mem.latest_summary(sid, "activity", before_t=300.0)
        assert latest is not None and latest.clip_indices == (6, 7)
        _latest_is_the_last_summary(mem, sid, [a.t1 for a in acts])
        # Written levels are never recomputed: a replay of the same stream costs no LLM call.
        for c in caps:
            assert not mem.ingest(c).stored
        mem.flush()
        assert mem.llm_calls == {"entities": 0, "activity": 5, "session": 2}
    with Memory.open(_cfg(tmp_path), summariser, text_encoder) as mem:
        mem.catch_up()
        mem.flush()
        assert sum(mem.llm_calls.values()) == 0
        assert mem.stats()["items"] == {"clip": 14, "activity": 9, "session": 2}


def _latest_is_the_last_summary(mem: Memory, sid: str, ends: list[float]) -> None:
    """The latest summary is the last of the summaries at every moment, read as one row on the index."""
    for t in sorted({*ends, *(t1 - 0.001 for t1 in ends), 0.0, 1e9}):
        so_far = mem.summaries("activity", before_t=t, session_id=sid)
        assert mem.latest_summary(sid, "activity", before_t=t) == (so_far[-1] if so_far else None)
    assert mem.latest_summary("no-such-session", "activity", before_t=1e9) is None
    plan = mem.store.db.read("EXPLAIN QUERY PLAN " + LATEST_ITEM_SQL, (sid, "activity", 300.0))
    assert "USING INDEX items_by_time" in " ".join(str(r) for r in plan)


@pytest.mark.heavy
async def test_writer_stage_in_background_keeps_the_loop_free(
    tmp_path: Path, bg_llm: LLM, text_encoder: TextEncoder
) -> None:
    caps = [c for c in stream(SHORT, clip_s=10.0) if c.t1 <= 200.0]  # 10 s clips, the first 200 s
    mem = Memory.open(_cfg(tmp_path), bg_llm, text_encoder)
    writer = MemoryWriter(mem, RealClock(), _cfg(tmp_path))
    inbox: asyncio.Queue[Caption | StreamEnd] = asyncio.Queue(maxsize=4)
    lags: list[float] = []

    async def heartbeat() -> None:  # stands for the decision path: it must never wait for a roll-up
        while True:
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - t - 0.01)

    async def produce() -> None:
        bad = Caption(t=0, session_id=caps[0].session_id, index=999, t0=5.0, t1=1.0, text="backwards")
        for c in [*caps, caps[0], bad]:
            await inbox.put(c)  # waits when the writer is behind: nothing is dropped by the queue
        await inbox.put(StreamEnd(t=0.0))

    try:
        async with asyncio.TaskGroup() as tg:
            beat = tg.create_task(heartbeat(), name="heartbeat")
            tg.create_task(produce(), name="producer")
            await asyncio.wait_for(writer.run(inbox), timeout=300)
            beat.cancel()
    finally:
        mem.close()
    assert (writer.written, writer.duplicates, writer.dropped) == (len(caps), 1, 1)
    # Activity windows 0-3 (three full, one flushed) and the flushed session window 0.
    assert writer.summaries == 4 + 1
    assert mem.llm_calls["activity"] + mem.llm_calls["session"] <= 5
    assert writer.busy_s > 1.0, "the roll-ups did real LLM work"
    assert max(lags) < 0.25, f"event loop stalled {max(lags):.3f} s while the writer worked"
