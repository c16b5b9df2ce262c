"""The IVF text index (k-means lists as a sqlite-vec partition key) on real caption vectors.

Recall against exact search on real CaptainCook4D captions embedded by MiniLM, new clips
placed in their list at once, causal and session filters still exact through the index,
and a build killed with SIGKILL at random points that resumes to a whole index.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from edge_assist.events import Caption
from edge_assist.inference.base import TextEncoder
from edge_assist.memory import ivf as ivf_mod
from edge_assist.memory.memory import Memory, Paths
from tests.test_memory_streams import memory_config

pytestmark = pytest.mark.slow  # loads the real text encoder

DATA = Path(__file__).resolve().parents[1] / "edge_assist" / "data" / "captaincook4d"
SMALL = {
    "memory.extract_entities": False,
    "memory.ann_min_items": 300,
    "memory.ann_list_size": 16,
    "memory.ann_probe": 6,
}


def _streams(split: str, limit: int) -> list[tuple[str, list[str]]]:
    out = []
    for f in sorted((DATA / split / "original").glob("*.jsonl"))[:limit]:
        lines = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines()]
        out.append((str(lines[0]["meta"]["session_id"]), [str(x["text"]) for x in lines[1:] if "text" in x]))
    return out


def _fill(mem: Memory, streams: list[tuple[str, list[str]]]) -> int:
    n = 0
    for sid, texts in streams:
        for i, text in enumerate(texts):
            mem.store_caption(
                Caption(t=10.0 * (i + 1), session_id=sid, index=i, t0=10.0 * i, t1=10.0 * (i + 1), text=text)
            )
            n += 1
    return n


def _build(mem: Memory) -> None:
    while mem.maintain_index(5.0):
        pass
    assert mem.store.ivf is not None and mem.store.ivf.ready


def _indexed_ids(mem: Memory) -> list[int]:
    assert mem.store.ivf is not None and mem.store.ivf.active is not None
    name = ivf_mod.table(mem.store.ivf.active.gen)
    return sorted(r[0] for r in mem.store.db.read(f"SELECT rowid FROM {name}"))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, text_encoder: TextEncoder) -> Path:
    """About 600 real captions in ~40 sessions, the index trained and backfilled."""
    d = tmp_path_factory.mktemp("ivf")
    with Memory.open(memory_config(d, **SMALL), None, text_encoder) as mem:
        n = _fill(mem, _streams("train", 45))
        assert n >= 400
        assert mem.index_pending()
        _build(mem)
    return d


def test_index_recall_against_exact_on_real_captions(built: Path, text_encoder: TextEncoder) -> None:
    queries = [t for _, texts in _streams("val", 40) for t in texts][::4][:60]
    vecs = text_encoder.encode(queries)
    with Memory.open(memory_config(built, **SMALL), None, text_encoder) as mem:
        assert (
            mem.stats()["text_index"]["active"]["lists"] >= 16 > SMALL["memory.ann_probe"]
        )  # a real subset is scanned
        approx = [
            [(h.session_id, h.clip_indices) for h in mem.search_text(v, k=10, before_t=1e9)] for v in vecs
        ]
    with Memory.open(memory_config(built, **{**SMALL, "memory.ann_min_items": 0}), None, text_encoder) as mem:
        exact = [
            [(h.session_id, h.clip_indices) for h in mem.search_text(v, k=10, before_t=1e9)] for v in vecs
        ]
    recall = np.mean([len(set(a) & set(e)) / len(e) for a, e in zip(approx, exact, strict=True)])
    assert recall >= 0.95


def test_every_item_indexed_once_and_new_clips_at_once(built: Path, text_encoder: TextEncoder) -> None:
    with Memory.open(memory_config(built, **SMALL), None, text_encoder) as mem:
        ids = _indexed_ids(mem)
        assert ids == sorted(r[0] for r in mem.store.db.read("SELECT id FROM items"))
        text = "poured the olive oil into the blue enamel kettle by mistake"
        assert mem.store_caption(Caption(t=5.0, session_id="new-day", index=0, t0=0.0, t1=5.0, text=text))
        assert len(_indexed_ids(mem)) == len(ids) + 1  # same transaction as the item, no rebuild
        hits = mem.search_text(text_encoder.encode([text])[0], k=3, before_t=1e9)
        assert hits[0].text == text and hits[0].session_id == "new-day"


def test_causal_and_session_filters_stay_exact(built: Path, text_encoder: TextEncoder) -> None:
    q = text_encoder.encode(["spread the nut butter on the tortilla"])[0]
    with Memory.open(memory_config(built, **SMALL), None, text_encoder) as mem:
        sessions = mem.store.sessions()
        for before_t in (15.0, 60.0, 200.0):
            hits = mem.search_text(q, k=10, before_t=before_t)
            assert hits and all(h.t1 <= before_t for h in hits)
        cur, earlier = sessions[10], sessions[:10]
        hits = mem.search_text(q, k=20, before_t=30.0, session_id=cur, earlier_sessions=earlier)
        assert hits
        for h in hits:
            assert h.session_id in earlier or (h.session_id == cur and h.t1 <= 30.0)
        # The current session alone is searched exactly (its own vectors), index or not.
        mine = [
            (h.session_id, h.clip_indices, round(h.score, 5))
            for h in mem.search_text(q, k=5, before_t=60.0, session_id=cur)
        ]
        assert mine and all(h[0] == cur for h in mine)
    with Memory.open(
        memory_config(built, **{**SMALL, "memory.ann_min_items": 0}), None, text_encoder
    ) as exact:
        assert mine == [
            (h.session_id, h.clip_indices, round(h.score, 5))
            for h in exact.search_text(q, k=5, before_t=60.0, session_id=cur)
        ]
    with Memory.open(memory_config(built, **SMALL), None, text_encoder) as mem:
        # Every earlier session but one later session: the index path must keep the later one out.
        later = sessions[11]
        hits = mem.search_text(
            q,
            k=50,
            before_t=1e9,
            session_id=cur,
            earlier_sessions=[s for s in sessions if s not in (cur, later)],
        )
        assert hits and all(h.session_id != later for h in hits)


def _scoped_answers(mem: Memory, queries: np.ndarray) -> list[list[tuple[str, tuple[int, ...], float]]]:
    """Every query in every kind of scope: all memory, this session, earlier sessions, levels."""
    # scores to 4 places: numpy and sqlite-vec round the same float32 sums differently
    sessions = mem.store.sessions()
    cur = sessions[5]
    out = []
    for q in queries:
        for kw in (
            {"before_t": 1e9},
            {"before_t": 40.0},
            {"before_t": 60.0, "session_id": cur},
            {"before_t": 30.0, "session_id": cur, "earlier_sessions": sessions[:5]},
            {"before_t": 30.0, "session_id": cur, "earlier_sessions": [s for s in sessions if s != cur]},
            {"before_t": 1e9, "levels": ("clip",), "session_id": cur, "earlier_sessions": sessions[:2]},
        ):
            out.append(
                [(h.session_id, h.clip_indices, round(h.score, 4)) for h in mem.search_text(q, k=8, **kw)]
            )  # type: ignore[arg-type]
    return out


def test_small_memory_searched_in_memory_answers_as_the_vec0_scan(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    """Below the index's size every scope is answered from copies of the vectors in memory
    (vector_cache.SmallMemoryVectors): the same rows, scores and tie order as sqlite-vec's exact
    scan, kept up to date as captions are committed, dropped once the index is ready."""
    cfg = memory_config(tmp_path, **{**SMALL, "memory.ann_min_items": 100_000})
    streams = _streams("train", 12)
    queries = text_encoder.encode(
        [
            "spread the nut butter on the tortilla",
            "crack the egg into the bowl",
            "rinse the cutting board",
            streams[3][1][2],
        ]
    )
    routine = "I poured one egg into the ramekin cup."
    with Memory.open(cfg, None, text_encoder) as mem:
        _fill(mem, streams)
        for day in ("day-a", "day-b", "day-c"):  # the same caption every day: the newest must win the tie
            mem.store_caption(Caption(t=5.0, session_id=day, index=0, t0=0.0, t1=5.0, text=routine))
        in_memory = _scoped_answers(mem, queries)
        small = mem.store.copies.small.rows(mem.store.db)
        assert small is not None and len(small) == mem.stats()["items"]["clip"]
        # one more caption after the copies were loaded: appended, found at once
        text = "poured the olive oil into the blue enamel kettle by mistake"
        mem.store_caption(Caption(t=5.0, session_id="day-d", index=0, t0=0.0, t1=5.0, text=text))
        assert len(small) == mem.stats()["items"]["clip"]
        assert mem.search_text(text_encoder.encode([text])[0], k=1, before_t=1e9)[0].text == text
        tie = mem.search_text(text_encoder.encode([routine])[0], k=3, before_t=1e9)
        assert [h.session_id for h in tie] == ["day-c", "day-b", "day-a"]
        mem.store.copies.small.drop(too_big=True)  # as past its cap: sqlite-vec's exact scan
        assert mem.store.copies.small.rows(mem.store.db) is None
        mem.store.copies.small.cap = 0
        assert _scoped_answers(mem, queries) == in_memory
        assert [
            h.session_id for h in mem.search_text(text_encoder.encode([routine])[0], k=3, before_t=1e9)
        ] == ["day-c", "day-b", "day-a"]
    assert sum(len(a) for a in in_memory) > 0
    with Memory.open(
        memory_config(tmp_path, **{**SMALL, "memory.ann_min_items": 100}), None, text_encoder
    ) as mem:
        assert mem.store.copies.small.rows(mem.store.db) is not None  # no index yet: loaded
        assert mem.store.copies.small.held == mem.stats()["items"]["clip"]
        _build(mem)
        assert mem.store.copies.small.held == 0  # the index answers; the copies are freed


_KILLABLE = """
import sys, time
from pathlib import Path
import edge_assist.memory.store as st
import edge_assist.memory.store_indexing as si
from edge_assist.memory.ivf import IvfSettings
si.BACKFILL_BATCH = 7  # many small transactions: a kill lands between or inside them
meta = __import__("json").loads(sys.argv[2])
s = st.MemoryStore.open(Path(sys.argv[1]), text_encoder=meta["text_encoder"], text_dim=int(meta["text_dim"]),
                        ivf=IvfSettings(min_items=300, list_size=16, probe=6))
while s.index_step(0.02):
    print("step", flush=True)
print("done", flush=True)
"""


@pytest.mark.faults
def test_index_build_killed_at_random_points_resumes_whole(tmp_path: Path, text_encoder: TextEncoder) -> None:
    with Memory.open(memory_config(tmp_path, **SMALL), None, text_encoder) as mem:
        _fill(mem, _streams("train", 30))
        meta = json.dumps(mem.store.meta())
        n_items = len(mem.store.db.read("SELECT id FROM items"))
    db = Paths.of(memory_config(tmp_path, **SMALL)).sqlite
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    rng = np.random.default_rng(7)
    kills = 0
    for _ in range(6):
        p = subprocess.Popen(
            [sys.executable, "-c", _KILLABLE, str(db), meta], env=env, stdout=subprocess.PIPE, text=True
        )
        assert p.stdout is not None
        # Let it commit a few steps, then kill it wherever it is (inside a batch or between two).
        for _ in range(int(rng.integers(1, 4))):
            if p.stdout.readline().strip() != "step":
                break
        time.sleep(float(rng.uniform(0.0, 0.05)))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            kills += 1
        p.wait()
        p.stdout.close()
    assert kills >= 1
    with Memory.open(memory_config(tmp_path, **SMALL), None, text_encoder) as mem:
        _build(mem)
        ids = _indexed_ids(mem)
        assert len(ids) == len(set(ids)) == n_items  # nothing lost, nothing twice
        assert ids == sorted(r[0] for r in mem.store.db.read("SELECT id FROM items"))


def test_bulk_vector_read_matches_vec0_lookups(tmp_path: Path) -> None:
    """The index's bulk read of sqlite-vec's chunks gives exactly what vec0 answers row by row."""
    from edge_assist.memory.store import MemoryStore, Windows
    from edge_assist.memory.vector_reads import chunk_vectors, read_vectors

    rng = np.random.default_rng(0)
    vecs = rng.standard_normal((3000, 16)).astype(np.float32)
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=16)
    try:
        st.add_clips(
            [(f"s{i // 1000}", i % 1000, 10.0 * i, 10.0 * i + 10, f"c{i}", vecs[i]) for i in range(3000)],
            windows=Windows(10.0, 60.0, 300.0),
        )
        st.forget_before(0.0, "tomb")  # nothing written before 1970: deletes nothing, clears caches
        with st.transaction() as c:
            c.execute("DELETE FROM text_vec WHERE rowid = 7")
            ids = [r[0] for r in c.execute("SELECT id FROM items ORDER BY id")]
            fast = chunk_vectors(c, ids, 16)
        assert fast is not None and 7 not in fast and len(fast) == 2999
        slow = read_vectors(st.db.conn, ids[:50], 16)  # few ids: vec0 rowid lookups
        assert len(slow) == 49 and all(np.array_equal(fast[i], slow[i]) for i in slow)
        assert np.array_equal(fast[ids[-1]], vecs[-1])
    finally:
        st.close()
