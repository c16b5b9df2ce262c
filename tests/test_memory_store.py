"""The SQLite side with the real sqlite-vec and the real MiniLM encoder (no LLM here).

Idempotent writes, causal and level-restricted search, resume point, encoder
mismatch, corrupt file, full store, forgetting that really deletes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from edge_assist.errors import ModelError, StoreError
from edge_assist.events import Caption
from edge_assist.inference.base import TextEncoder
from edge_assist.memory.memory import Memory, Paths
from edge_assist.memory.store import BadCaptionError
from tests.fakes import ManualWall, TruncatedEncoder
from tests.test_memory_streams import LONG, memory_config, stream

pytestmark = pytest.mark.slow  # loads the real text encoder


def _open(tmp_path: Path, enc: TextEncoder, wall: ManualWall | None = None, **overrides: object) -> Memory:
    cfg = memory_config(tmp_path, **{"memory.extract_entities": False, **overrides})
    return Memory.open(cfg, None, enc, wall=wall)


def test_caption_written_once_and_resume_point(tmp_path: Path, text_encoder: TextEncoder) -> None:
    caps = stream(LONG)
    with _open(tmp_path, text_encoder) as mem:
        assert mem.next_clip_index(caps[0].session_id) == 0
        assert [mem.store_caption(c) for c in caps[:5]] == [True] * 5
        assert [mem.store_caption(c) for c in caps[:5]] == [False] * 5
        assert mem.next_clip_index(caps[0].session_id) == 5
    with _open(tmp_path, text_encoder) as mem:  # reopened: still 5, no duplicate
        assert mem.next_clip_index(caps[0].session_id) == 5
        assert mem.stats()["items"]["clip"] == 5
        assert [r.clip_index for r in mem.captions(caps[0].session_id, [4, 0, 99])] == [0, 4]


def test_search_is_causal_and_level_restricted(tmp_path: Path, text_encoder: TextEncoder) -> None:
    caps = stream(LONG)
    with _open(tmp_path, text_encoder) as mem:
        for c in caps:
            mem.store_caption(c)
        q = text_encoder.encode(["sprinkle mozzarella cheese on the sauce"])[0]
        best = mem.search_text(q, k=3, before_t=1e9)[0]
        assert "mozzarella" in best.text and best.clip_indices == (11,)
        # At t = 400 s the cheese has not been sprinkled yet (that step ends at 432 s).
        early = mem.search_text(q, k=20, before_t=400.0)
        assert early and all(h.t1 <= 400.0 for h in early)
        assert all("mozzarella" not in h.text for h in early)
        assert mem.search_text(q, k=5, before_t=1e9, levels=("activity",)) == []
        assert mem.search_text(q, k=5, before_t=1e9, session_id="another") == []
        recent = mem.recent_captions(caps[0].session_id, before_t=201.0, n=2)  # clip 5 ends at 200.7 s
        assert [r.clip_index for r in recent] == [4, 5] and all(r.t1 <= 201.0 for r in recent)


def test_bad_caption_is_refused_and_nothing_changes(tmp_path: Path, text_encoder: TextEncoder) -> None:
    with _open(tmp_path, text_encoder) as mem:
        with pytest.raises(BadCaptionError, match="empty"):
            mem.store_caption(Caption(t=0, session_id="s", index=0, t0=0, t1=1, text="  "))
        with pytest.raises(BadCaptionError, match="invalid"):
            mem.store_caption(Caption(t=0, session_id="s", index=1, t0=5, t1=1, text="x"))
        assert mem.stats()["items"]["clip"] == 0


def test_other_encoder_dimension_is_refused_and_touches_nothing(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    with _open(tmp_path, text_encoder) as mem:
        for c in stream(LONG)[:3]:
            mem.store_caption(c)
    db = Paths.of(memory_config(tmp_path)).sqlite
    before = db.read_bytes()
    with pytest.raises(ModelError, match="minilm-l6-int8 \\(384-d\\).*minilm-first-256 \\(256-d\\)"):
        Memory.open(memory_config(tmp_path), None, TruncatedEncoder(text_encoder, 256))
    assert db.read_bytes() == before
    with _open(tmp_path, text_encoder) as mem:
        assert mem.stats()["items"]["clip"] == 3


def test_corrupt_store_is_reported_never_replaced(tmp_path: Path, text_encoder: TextEncoder) -> None:
    with _open(tmp_path, text_encoder) as mem:
        for c in stream(LONG):
            mem.store_caption(c)
    db = Paths.of(memory_config(tmp_path)).sqlite
    raw = bytearray(db.read_bytes())
    # Overwrite the middle of the file (table pages), keep the header: quick_check must notice.
    mid = len(raw) // 2
    raw[mid : mid + 8192] = b"\xa5" * 8192
    db.write_bytes(bytes(raw))
    damaged = db.read_bytes()
    with pytest.raises(StoreError, match="corrupt.*left untouched"):
        _open(tmp_path, text_encoder)
    assert db.read_bytes() == damaged
    db.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="not an SQLite database"):
        _open(tmp_path, text_encoder)
    assert db.read_bytes() == b"this is not a database" * 100


@pytest.mark.faults
def test_full_store_stops_ingest_and_keeps_what_was_stored(tmp_path: Path, text_encoder: TextEncoder) -> None:
    caps = stream(LONG, clip_s=10.0)
    stored = []
    # 2.5 MB: the empty schema (0.45 MB in 16 kB pages) and vec0's first chunk of 1024 vectors
    # (1.5 MB at 384-d) take 2.1 MB with the first caption; captions fill the rest.
    with _open(tmp_path, text_encoder, **{"memory.max_store_mb": 2.5}) as mem:
        with pytest.raises(StoreError, match="is full.*nothing already stored was lost"):
            for c in caps * 40:
                c2 = Caption(
                    t=c.t,
                    session_id=f"{c.session_id}-{len(stored)}",
                    index=c.index,
                    t0=c.t0,
                    t1=c.t1,
                    text=c.text,
                )
                if mem.store_caption(c2):
                    stored.append(c2)
        assert stored, "the cap is too small to test anything"
    with _open(tmp_path, text_encoder) as mem:  # no cap any more: everything stored is there, in full
        assert mem.stats()["items"]["clip"] == len(stored)
        last = stored[-1]
        assert [r.text for r in mem.captions(last.session_id, [last.index])] == [last.text]
        hits = mem.search_text(
            text_encoder.encode([last.text])[0], k=1, before_t=1e9, session_id=last.session_id
        )
        assert hits and hits[0].score > 0.99


def test_forget_really_deletes(tmp_path: Path, text_encoder: TextEncoder) -> None:

    caps = stream(LONG)
    wall = ManualWall()
    with _open(tmp_path, text_encoder, wall) as mem:
        for c in caps[:7]:
            mem.store_caption(c)
        cutoff = wall.cutoff()
        for c in caps[7:]:
            mem.store_caption(c)
        res = mem.forget_before(cutoff)
        assert res["clips"] == 7
        assert mem.stats()["items"]["clip"] == len(caps) - 7
        q = text_encoder.encode([caps[0].text])[0]
        assert all(h.clip_indices[0] >= 7 for h in mem.search_text(q, k=50, before_t=1e9))
    db = Paths.of(memory_config(tmp_path)).sqlite
    blob = db.read_bytes()
    wal = Path(f"{db}-wal")
    blob += wal.read_bytes() if wal.exists() else b""
    assert caps[0].text.encode() not in blob  # not in free pages either
    assert caps[-1].text.encode() in blob
    con = sqlite3.connect(":memory:")  # the file is still a sound SQLite database
    con.close()


def test_the_kept_session_list_follows_every_change(tmp_path: Path, text_encoder: TextEncoder) -> None:
    # Sessions are read once and kept (a search reads them several times; at a year they are
    # thousands): a new session, a forgotten one and another process's insert must all show.
    import dataclasses

    caps = stream(LONG)
    wall = ManualWall()
    with _open(tmp_path, text_encoder, wall) as mem:
        store = mem.store
        reads: list[str] = []
        store.db.conn.set_trace_callback(
            lambda sql: reads.append(sql) if "FROM sessions ORDER BY" in sql else None
        )
        mem.store_caption(caps[0])
        first = caps[0].session_id
        assert store.sessions() == [first]
        cutoff = wall.cutoff()
        mem.store_caption(dataclasses.replace(caps[1], session_id="later", index=0))
        assert store.sessions() == [first, "later"] and list(store.session_starts()) == [first, "later"]
        n = len(reads)
        for _ in range(5):
            store.session_starts()
            store.sessions()
        assert len(reads) == n  # nothing changed: not read again
        # Another connection (another process: `memory forget`, `memory ingest`) adds one.
        other = sqlite3.connect(store.path)
        other.execute(
            "INSERT INTO sessions(session_id, clip_s, activity_s, session_s, first_wall) "
            "VALUES ('elsewhere', 10, 60, 600, ?)",
            (wall() + 5,),
        )
        other.commit()
        other.close()
        assert store.sessions() == [first, "later", "elsewhere"]
        store.session_starts()["x"] = 1.0  # a caller's copy: the kept list is not changed through it
        assert "x" not in store.session_starts()
        # Forgetting the first session's clips forgets the session.
        assert mem.forget_before(cutoff)["clips"] == 1
        assert first not in store.sessions() and "later" in store.sessions()
