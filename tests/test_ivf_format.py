"""The IVF generation format: L2 on unit vectors, the indexed chunk lookup, and the idle-time
rebuild of a generation made before (cosine), which keeps answering until it is replaced."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from edge_assist.memory import ivf as ivf_mod
from edge_assist.memory import vector_cache
from edge_assist.memory.ivf import IvfSettings
from edge_assist.memory.store import MemoryStore, Windows

DIM = 384
SETTINGS = IvfSettings(min_items=300, list_size=20, probe=4)


def _vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((30, DIM)).astype(np.float32)
    x = centres[rng.integers(0, 30, n)] + 0.4 * rng.standard_normal((n, DIM)).astype(np.float32)
    return x * rng.uniform(0.5, 3.0, (n, 1)).astype(np.float32)  # not unit: the index normalises


def _fill(store: MemoryStore, vecs: np.ndarray) -> None:
    rows = [
        (f"day-{i // 200}", i % 200, 10.0 * (i % 200), 10.0 * (i % 200 + 1), f"clip {i}", v)
        for i, v in enumerate(vecs)
    ]
    store.add_clips(rows, windows=Windows(10.0, 60.0, 300.0))


def _build(store: MemoryStore) -> None:
    while store.index_step(5.0):
        pass


def _search(store: MemoryStore, q: np.ndarray) -> list[tuple[str, tuple[int, ...], float]]:
    return [
        (h.session_id, h.clip_indices, round(h.score, 4)) for h in store.search_text(q, k=10, before_t=1e9)
    ]


def test_l2_generation_answers_cosine_scores_and_looks_lists_up_by_index(tmp_path: Path) -> None:
    vecs = _vectors(900, 1)
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    _fill(st, vecs)
    _build(st)
    assert st.ivf is not None and st.ivf.active is not None and st.ivf.active.metric == "l2"
    name = ivf_mod.table(st.ivf.active.gen)
    plan = " ".join(
        str(r)
        for r in st.db.read(f"EXPLAIN QUERY PLAN SELECT chunk_id FROM {name}_chunks WHERE partition00 = 3")
    )
    assert f"{name}_chunks_by_list" in plan
    exact = MemoryStore.open(
        tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=IvfSettings(min_items=0)
    )
    q = vecs[17] + 0.1
    got, want = _search(st, q), _search(exact, q)
    # Cosine scores through the L2 lists equal the exact scan's; the order is the same.
    shared = {(s, c): sc for s, c, sc in want}
    assert [r[:2] for r in got][:3] == [r[:2] for r in want][:3]
    assert all(abs(sc - shared[(s, c)]) < 1e-3 for s, c, sc in got if (s, c) in shared)
    exact.close()
    st.close()


def test_a_cosine_generation_answers_until_its_rebuild_replaces_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vecs = _vectors(900, 2)
    monkeypatch.setattr(ivf_mod, "METRIC", "cosine")  # a store indexed before the L2 format
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    _fill(st, vecs)
    _build(st)
    assert st.ivf is not None and st.ivf.active is not None and st.ivf.active.metric == "cosine"
    before = [_search(st, v) for v in vecs[:20]]
    st.close()
    monkeypatch.setattr(ivf_mod, "METRIC", "l2")
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    assert st.ivf is not None and st.ivf.active is not None and st.ivf.active.metric == "cosine"
    assert st.index_pending()
    # One transaction a call (max_s = 0), so the moment the new generation exists is seen:
    # k-means runs in its own thread meanwhile, then the table is made, then batches fill it.
    while st.ivf.building is None:
        assert st.index_step(0.0), "the rebuild ended before its generation was seen"
    assert st.ivf.building is not None and st.ivf.active.metric == "cosine"
    assert [_search(st, v) for v in vecs[:20]] == before
    _build(st)
    assert st.ivf.active.metric == "l2" and not st.index_pending()
    after = [_search(st, v) for v in vecs[:20]]
    # The same top hit for every query (its own vector), scores equal up to rounding.
    assert [a[0][:2] for a in after] == [b[0][:2] for b in before]
    old = {ivf_mod.table(g) for g in range(st.ivf.active.gen)}
    tables = {r[0] for r in st.db.read("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert not old & tables  # the replaced generation was dropped
    st.close()


def test_new_stores_use_large_pages_and_old_ones_keep_theirs(tmp_path: Path) -> None:
    from edge_assist.memory.sqlite import connect
    from edge_assist.memory.store_open import PAGE_SIZE

    st = MemoryStore.open(tmp_path / "new.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    assert st.db.read("PRAGMA page_size")[0][0] == PAGE_SIZE > 4096
    st.close()
    old = tmp_path / "old.sqlite"  # a store made before: 4 kB pages, opened as it is
    st = MemoryStore.open(old, text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    st.close()
    c = connect(str(old), isolation_level=None)
    c.execute("PRAGMA journal_mode=DELETE")
    c.execute("PRAGMA page_size=4096")
    c.execute("VACUUM")
    c.execute("PRAGMA journal_mode=WAL")
    c.close()
    st = MemoryStore.open(old, text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    assert st.db.read("PRAGMA page_size")[0][0] == 4096
    _fill(st, _vectors(400, 3))
    _build(st)
    assert len(st.search_text(_vectors(1, 4)[0], k=5, before_t=1e9)) == 5
    st.close()


def test_training_runs_beside_ingest_and_indexes_what_came_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    vecs = _vectors(1200, 3)
    gate = threading.Event()
    real_kmeans = ivf_mod.kmeans

    def held_kmeans(*a: object, **kw: object) -> np.ndarray:
        assert gate.wait(30.0)  # k-means "takes long" until the test lets it finish
        return real_kmeans(*a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(ivf_mod, "kmeans", held_kmeans)
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    _fill(st, vecs[:900])
    assert st.index_step(0.01) is True  # returns while k-means still runs
    assert st.ivf is not None and st.ivf.building is None and st.index_upkeep._training is not None
    # The store is not locked meanwhile: captions are written and searched.
    rows = [
        (f"late-{i // 200}", i % 200, 10.0 * (i % 200), 10.0 * (i % 200 + 1), f"late {i}", v)
        for i, v in enumerate(vecs[900:])
    ]
    assert st.add_clips(rows, windows=Windows(10.0, 60.0, 300.0)) == 300
    assert _search(st, vecs[950])[0][:2] == ("late-0", (50,))
    gate.set()
    _build(st)
    assert st.ivf.active is not None
    n_items = st.db.read("SELECT count(*) FROM items")[0][0]
    n_indexed = st.db.read(f"SELECT count(*) FROM {ivf_mod.table(st.ivf.active.gen)}")[0][0]
    assert n_indexed == n_items  # rows written during training were backfilled, none missed or doubled
    assert _search(st, vecs[1150])[0][:2] == ("late-1", (50,))
    st.close()


def test_closing_stops_a_training_run_and_writes_nothing(tmp_path: Path) -> None:
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    _fill(st, _vectors(900, 4))
    st.index_step(0.0)
    st.close()  # joins or stops the k-means thread
    again = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    assert again.ivf is not None and again.ivf.active is None and again.index_pending()
    _build(again)
    assert again.ivf.active is not None
    again.close()


def test_the_same_caption_on_many_days_returns_the_latest_days_first(tmp_path: Path) -> None:
    """A routine repeats its caption (and vector) daily: among equal matches, the newest wins,
    in the exact scan, the index and the current session's own vectors alike."""
    vecs = _vectors(900, 5)
    routine = vecs[0] * 0 + _vectors(1, 6)[0]
    rows = [
        (
            f"day-{i // 200}",
            i % 200,
            10.0 * (i % 200),
            10.0 * (i % 200 + 1),
            f"clip {i}",
            routine if i % 200 == 7 else v,
        )
        for i, v in enumerate(vecs)
    ]
    got = {}
    for name, settings in (("exact", IvfSettings(min_items=0)), ("index", SETTINGS)):
        st = MemoryStore.open(tmp_path / f"{name}.sqlite", text_encoder="t", text_dim=DIM, ivf=settings)
        st.add_clips(rows, windows=Windows(10.0, 60.0, 300.0))
        _build(st)
        assert (st.ivf is not None and st.ivf.ready) == (name == "index")
        got[name] = [(h.session_id, h.clip_indices) for h in st.search_text(routine, k=3, before_t=1e9)]
        # Today (day-4) searched on its own vectors, earlier days through the store.
        got[name + "-today"] = [
            (h.session_id, h.clip_indices)
            for h in st.search_text(
                routine,
                k=3,
                before_t=1e9,
                session_id="day-4",
                earlier_sessions=("day-0", "day-1", "day-2", "day-3"),
            )
        ]
        st.close()
    assert got["exact"] == got["index"] == [("day-4", (7,)), ("day-3", (7,)), ("day-2", (7,))]
    assert got["exact-today"] == got["index-today"] == got["exact"]


def test_a_new_sessions_vectors_are_kept_from_its_first_caption(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once memory is big, the current session is searched on its own vectors; a session that
    began in this process is never read back from the store for that (one rowid at a time)."""
    vecs = _vectors(1000, 7)
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    _fill(st, vecs[:900])
    _build(st)
    rows = [("today", i, 10.0 * i, 10.0 * (i + 1), f"today {i}", v) for i, v in enumerate(vecs[900:])]
    st.add_clips(rows, windows=Windows(10.0, 60.0, 300.0))

    def no_read_back(*a: object, **kw: object) -> None:
        raise AssertionError("the new session's vectors were read back from the store")

    monkeypatch.setattr(vector_cache, "read_vectors", no_read_back)
    hits = st.search_text(vecs[950], k=3, before_t=1e9, session_id="today")
    assert hits[0].session_id == "today" and hits[0].clip_indices == (50,)
    st.close()


def _tables(st: MemoryStore) -> set[str]:
    return {r[0] for r in st.db.read("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _until_retired(st: MemoryStore) -> None:
    """Index steps until a replaced generation is retired (the swap done, its table still there)."""
    while st.ivf is not None and not st.ivf.retired:
        assert st.index_step(0.0)  # one transaction a call


def test_a_replaced_generation_is_emptied_in_small_steps_then_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ivf_mod, "RETIRE_CHUNKS", 1)  # one vector chunk a step: several steps
    vecs = _vectors(1300, 8)
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    _fill(st, vecs[:400])
    _build(st)
    assert st.ivf is not None and st.ivf.active is not None
    first = st.ivf.active.gen
    rows = [
        (f"late-{i // 200}", i % 200, 10.0 * (i % 200), 10.0 * (i % 200 + 1), f"late {i}", v)
        for i, v in enumerate(vecs[400:])
    ]
    st.add_clips(rows, windows=Windows(10.0, 60.0, 300.0))  # grown past twice: a new generation
    _until_retired(st)
    assert st.ivf.retired == [first] and ivf_mod.table(first) in _tables(st)
    before = [_search(st, v) for v in vecs[::97]]
    steps = 0
    while st.ivf.retired:
        assert st.index_step(0.0) or not st.ivf.retired
        steps += 1
    assert steps > 2  # emptied over several steps, each its own short transaction
    assert ivf_mod.table(first) not in _tables(st) and not st.index_pending()
    assert [_search(st, v) for v in vecs[::97]] == before  # the active generation answered throughout
    st.close()


def test_forgetting_drops_a_retired_generation_at_once(tmp_path: Path) -> None:
    vecs = _vectors(1300, 9)
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    _fill(st, vecs[:400])
    _build(st)
    _fill(st, vecs)  # the first 400 again are ignored; 900 new ones
    _until_retired(st)
    old = ivf_mod.table(st.ivf.retired[0])
    st.forget_before(1e12, "forget_tombstone")  # everything: no copy of a vector may stay
    assert old not in _tables(st) and not st.ivf.retired
    st.close()


def test_a_generation_trained_for_another_list_size_is_rebuilt_and_answers_meanwhile(tmp_path: Path) -> None:
    """A changed `memory.ann_list_size` (or a store indexed with the old default of 400) takes
    effect in idle time: the old lists answer until the new ones, sized as configured, replace them."""
    vecs = _vectors(900, 10)
    coarse = IvfSettings(min_items=300, list_size=80, probe=4)
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=coarse)
    _fill(st, vecs)
    _build(st)
    assert st.ivf is not None and st.ivf.active is not None and len(st.ivf.active.centroids) == 16
    assert not st.index_pending()
    st.close()
    st = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    assert st.ivf is not None and st.ivf.active is not None and st.ivf.active.list_size == 80
    assert st.index_pending()
    before = [_search(st, v)[0][:2] for v in vecs[:20]]
    while st.ivf.building is None:
        assert st.index_step(0.0), "the rebuild ended before its generation was seen"
    assert len(st.ivf.active.centroids) == 16  # the old lists still answer
    assert [_search(st, v)[0][:2] for v in vecs[:20]] == before
    _build(st)
    assert st.ivf.active.list_size == SETTINGS.list_size and len(st.ivf.active.centroids) == 32
    assert not st.index_pending()
    assert [_search(st, v)[0][:2] for v in vecs[:20]] == before
    st.close()
    again = MemoryStore.open(tmp_path / "m.sqlite", text_encoder="t", text_dim=DIM, ivf=SETTINGS)
    assert (
        again.ivf is not None
        and again.ivf.active.list_size == SETTINGS.list_size
        and not again.index_pending()
    )
    again.close()
