"""The SQLite side of memory: one database file per wearer, the source of truth.

Holds the three text levels (clip captions, activity and session summaries) in one `items`
table, their vectors in a sqlite-vec `vec0` table with level / session / end time as
metadata columns (so a KNN search is restricted to t' <= t and to levels inside sqlite-vec
itself), the keyframe rows and their vectors, the per-session roll-up windows, and the
encoder names and dimensions the vectors were made with. The store knows nothing of models
or of the graph; it is plain and synchronous, guarded by one lock so the writer thread and
retrieval threads can share it.

Failure modes are mapped to one-line `StoreError`s: a file that is not an edge-assist
store or fails `PRAGMA quick_check` is reported at open and never replaced (`store_open`);
SQLITE_FULL (a full disk or `memory.max_store_mb`) aborts only the current transaction, so
everything already committed stays.

`MemoryStore` composes one part per job, each given the same `StoreConnection` (the
connection, its lock, its error mapping): `SessionTable` (windows and starts of sessions),
`ItemWrites` (captions, summaries, graph flags), `ItemReads` (rows back), `VectorSearch`
(the KNN searches), `Retention` (keyframe expiry, forgetting, VACUUM), `IndexUpkeep`
(idle-time work of the IVF index) and `StoreReport` (stats, export, integrity rows). The
methods below are the store's API; each hands over to the part that does it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.memory.api import LEVELS, CaptionRecord, KeyframeHit, TextHit
from edge_assist.memory.ivf import IvfSettings, TextIvf
from edge_assist.memory.search import VectorSearch
from edge_assist.memory.store_connection import StoreConnection, Transaction
from edge_assist.memory.store_indexing import IndexUpkeep
from edge_assist.memory.store_open import open_store
from edge_assist.memory.store_reads import ItemReads
from edge_assist.memory.store_report import StoreReport
from edge_assist.memory.store_retention import Retention
from edge_assist.memory.store_rows import BadCaptionError, Item, KeyframeRow, Windows
from edge_assist.memory.store_sessions import SessionTable
from edge_assist.memory.store_writes import ItemWrites
from edge_assist.memory.vector_cache import VectorCopies

__all__ = ["BadCaptionError", "Item", "KeyframeRow", "MemoryStore", "Windows", "file_bytes"]


class MemoryStore:
    """Captions, summaries, keyframe rows and all vectors in one SQLite file."""

    def __init__(self, db: StoreConnection, ivf: TextIvf) -> None:
        self.db = db
        self.ivf = ivf
        # Exact searches read copies of the vectors while memory is small: up to twice the size
        # at which the index is built (its default when the index is off).
        self.copies = VectorCopies(2 * (ivf.settings.min_items or IvfSettings().min_items))
        self.session_table = SessionTable(db, self.copies)
        self.writes = ItemWrites(db, ivf, self.copies, self.session_table)
        self.reads = ItemReads(db)
        self.search = VectorSearch(db, ivf, self.copies, self.session_table)
        self.retention = Retention(db, ivf, self.copies, self.session_table)
        self.index_upkeep = IndexUpkeep(db, ivf, self.copies)
        self.report = StoreReport(db, ivf, self.session_table)

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        text_encoder: str,
        text_dim: int,
        image_encoder: str | None = None,
        image_dim: int | None = None,
        max_store_mb: float = 0.0,
        ivf: IvfSettings | None = None,
    ) -> MemoryStore:
        """Open or create the store; check it is sound and made with these encoders.

        A mismatch or a corrupt file raises before anything is written.
        """
        return cls(
            *open_store(
                path,
                text_encoder=text_encoder,
                text_dim=text_dim,
                image_encoder=image_encoder,
                image_dim=image_dim,
                max_store_mb=max_store_mb,
                ivf=ivf,
            )
        )

    def close(self) -> None:
        self.index_upkeep.stop_training()
        self.db.close()

    # -- the connection --------------------------------------------------------------------
    @property
    def path(self) -> Path:
        return self.db.path

    @property
    def text_dim(self) -> int:
        return self.db.text_dim

    @property
    def image_dim(self) -> int | None:
        return self.db.image_dim

    @property
    def wall(self) -> Callable[[], float]:
        """The wall clock rows are stamped with (default `time.time`)."""
        return self.db.wall

    @wall.setter
    def wall(self, clock: Callable[[], float]) -> None:
        self.db.wall = clock

    def transaction(self) -> Transaction:
        """`with store.transaction() as conn:` one atomic write; SQLite errors become StoreError."""
        return self.db.transaction()

    def meta(self) -> dict[str, str]:
        return self.db.meta()

    def set_meta(self, key: str, value: str | None) -> None:
        self.db.set_meta(key, value)

    # -- sessions (SessionTable) -----------------------------------------------------------
    def session_windows(self, session_id: str, default: Windows) -> Windows:
        return self.session_table.session_windows(session_id, default)

    def sessions(self) -> list[str]:
        return self.session_table.sessions()

    def session_starts(self) -> dict[str, float]:
        return self.session_table.session_starts()

    def earlier_sessions(self, session_id: str) -> list[str]:
        return self.session_table.earlier_sessions(session_id)

    def count_items(self, session_id: str) -> int:
        return self.session_table.count_items(session_id)

    # -- writes (ItemWrites) ---------------------------------------------------------------
    def add_clip(
        self,
        *,
        session_id: str,
        clip_index: int,
        t0: float,
        t1: float,
        text: str,
        source: str,
        vector: np.ndarray,
        keyframes: Sequence[KeyframeRow] = (),
        extract_entities: bool = True,
    ) -> bool:
        return self.writes.add_clip(
            session_id=session_id,
            clip_index=clip_index,
            t0=t0,
            t1=t1,
            text=text,
            source=source,
            vector=vector,
            keyframes=keyframes,
            extract_entities=extract_entities,
        )

    def add_clips(
        self,
        rows: Sequence[tuple[str, int, float, float, str, np.ndarray]],
        *,
        windows: Windows,
        source: str = "bulk",
    ) -> int:
        return self.writes.add_clips(rows, windows=windows, source=source)

    def add_summary(
        self,
        *,
        level: str,
        session_id: str,
        window_index: int,
        t0: float,
        t1: float,
        text: str,
        clips: Sequence[int],
        source: str,
        partial: bool,
        vector: np.ndarray,
    ) -> bool:
        return self.writes.add_summary(
            level=level,
            session_id=session_id,
            window_index=window_index,
            t0=t0,
            t1=t1,
            text=text,
            clips=clips,
            source=source,
            partial=partial,
            vector=vector,
        )

    def set_entities(self, session_id: str, clip_index: int, entities: dict[str, Any]) -> None:
        self.writes.set_entities(session_id, clip_index, entities)

    def mark_graph_done(self, session_id: str, clip_index: int) -> None:
        self.writes.mark_graph_done(session_id, clip_index)

    def reset_graph_flags(self) -> int:
        return self.writes.reset_graph_flags()

    def pending_graph(self) -> list[tuple[Item, dict[str, Any] | None]]:
        return self.writes.pending_graph()

    # -- reads (ItemReads) -----------------------------------------------------------------
    def has_clip(self, session_id: str, clip_index: int) -> bool:
        return self.reads.has_clip(session_id, clip_index)

    def clips_with_vectors(
        self, session_id: str, t_from: float, t_to: float
    ) -> tuple[list[CaptionRecord], np.ndarray]:
        return self.reads.clips_with_vectors(session_id, t_from, t_to)

    def clip_items(
        self, session_id: str, *, t1_after: float = float("-inf"), t1_upto: float = float("inf")
    ) -> list[Item]:
        return self.reads.clip_items(session_id, t1_after=t1_after, t1_upto=t1_upto)

    def level_items(
        self, level: str, *, before_t: float = float("inf"), session_id: str | None = None
    ) -> list[Item]:
        return self.reads.level_items(level, before_t=before_t, session_id=session_id)

    def latest_item(self, session_id: str, level: str, *, before_t: float) -> Item | None:
        return self.reads.latest_item(session_id, level, before_t=before_t)

    def window_indices(self, session_id: str, level: str) -> set[int]:
        return self.reads.window_indices(session_id, level)

    def frontier(self, session_id: str) -> float | None:
        return self.reads.frontier(session_id)

    def next_clip_index(self, session_id: str) -> int:
        return self.reads.next_clip_index(session_id)

    def captions(self, session_id: str, clip_indices: Sequence[int]) -> list[CaptionRecord]:
        return self.reads.captions(session_id, clip_indices)

    def recent_captions(self, session_id: str, *, before_t: float, n: int) -> list[CaptionRecord]:
        return self.reads.recent_captions(session_id, before_t=before_t, n=n)

    def keyframe_paths(self, session_id: str, clip_index: int) -> tuple[str, ...]:
        return self.reads.keyframe_paths(session_id, clip_index)

    # -- searches (VectorSearch) -----------------------------------------------------------
    def search_text(
        self,
        vector: np.ndarray,
        *,
        k: int,
        before_t: float,
        levels: Sequence[str] = LEVELS,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[TextHit]:
        return self.search.text(
            vector,
            k=k,
            before_t=before_t,
            levels=levels,
            session_id=session_id,
            earlier_sessions=earlier_sessions,
        )

    def search_keyframes(
        self,
        vector: np.ndarray,
        *,
        k: int,
        before_t: float,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[KeyframeHit]:
        return self.search.keyframes(
            vector, k=k, before_t=before_t, session_id=session_id, earlier_sessions=earlier_sessions
        )

    # -- retention (Retention) -------------------------------------------------------------
    def expired_keyframes(self, older_than_wall: float) -> list[tuple[int, str]]:
        return self.retention.expired_keyframes(older_than_wall)

    def clear_keyframe_paths(self, ids: Sequence[int]) -> None:
        self.retention.clear_keyframe_paths(ids)

    def forget_before(
        self, cutoff_wall: float, tombstone_key: str
    ) -> tuple[list[tuple[str, int]], list[str]]:
        return self.retention.forget_before(cutoff_wall, tombstone_key)

    def forgettable(self, cutoff_wall: float) -> tuple[list[tuple[str, int]], list[str], list[str]]:
        return self.retention.forgettable(cutoff_wall)

    def vacuum(self) -> None:
        self.retention.vacuum()

    # -- the text index (IndexUpkeep) ------------------------------------------------------
    def index_pending(self) -> bool:
        return self.index_upkeep.index_pending()

    def index_step(self, max_s: float = 0.5) -> bool:
        return self.index_upkeep.index_step(max_s)

    def stop_training(self) -> None:
        self.index_upkeep.stop_training()

    @property
    def longest_index_tx_s(self) -> float:
        return self.index_upkeep.longest_index_tx_s

    @property
    def longest_index_tx_kind(self) -> str:
        return self.index_upkeep.longest_index_tx_kind

    # -- accounts (StoreReport) ------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        return self.report.stats()

    def export_rows(self) -> Iterator[dict[str, Any]]:
        return self.report.export_rows()


def file_bytes(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
