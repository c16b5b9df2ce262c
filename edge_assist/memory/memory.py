"""`Memory`: the wearer's memory as one object, what the pipeline opens and reads.

It ties the SQLite store (`store`), the Kùzu entity graph (`graph`), the keyframe files
(`keyframes`), the roll-up (`rollup`) and the models together, implements the
`MemoryReader` protocol for retrieval, and offers the synchronous `ingest` path that the
background `MemoryWriter` and offline tools both use.

Files, beside each other in `data_dir`: `<wearer>.sqlite` (+ `-wal`), `<wearer>.kuzu`
(+ `.wal`), `<wearer>.keyframes/`.

Consistency across a kill (SQLite is the source of truth, the graph a derived index):
1. A caption, its text vector and its keyframe rows/vectors are committed in ONE SQLite
   transaction, keyed by UNIQUE(session, level, clip index): it is there entirely or not
   at all, and writing it again is a no-op. Its `graph_done` flag starts at 0.
2. The entity extraction (LLM or lexical, `graph_update`) is then saved in the caption's
   row, before the graph sees it, so a crash never costs a second LLM call for the same
   caption.
3. The extraction goes into Kùzu in one Kùzu transaction made only of MERGEs; after it
   commits, `graph_done` is set to 1. A kill between the two leaves `graph_done = 0`,
   and re-applying is harmless because MERGE is idempotent.
4. On open, every caption with `graph_done = 0` and a saved extraction is re-applied;
   captions never extracted are extracted by `catch_up()` (the writer calls it first).
   A missing or new graph (the Kùzu file deleted or corrupt and moved aside) is detected
   by a store id kept on both sides, and rebuilt in full from the saved extractions.
5. Roll-ups are derived from committed captions: which windows are full is recomputed
   from the store, so a summary interrupted by a kill is simply written on the next
   caption; UNIQUE(session, level, window) makes it written once.
6. `forget` deletes in SQLite first (one transaction, plus a tombstone), then in the
   graph; a tombstone left by a kill is replayed on the next open. The graph is then
   rebuilt from the kept extractions, since Kùzu leaves deleted names in freed pages.
The resume point of a session is `next_clip_index`: one past the highest stored clip.

`Memory` composes one part per job, each given the store and the graph it needs:
`GraphUpdates` (entity extraction into Kùzu, `graph_update`), `MemoryIngest` (ingest,
roll-ups, index work, `writing`), `MemoryReads` (summaries as hits, keyframe images,
`reading`; plain reads go straight to the store and the graph) and `Upkeep` (repair on
open, consistency, stats, export, retention, forgetting, `upkeep`);
`layout` names the files and checks the config. This module opens and closes, hands each
call to its part, and re-exports the names callers import from here.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from edge_assist.config import Config
from edge_assist.errors import StoreError
from edge_assist.events import Caption
from edge_assist.inference.base import LLM, ImageEncoder, StopFlag, TextEncoder
from edge_assist.memory.api import LEVELS, CaptionRecord, EntityHit, KeyframeHit, TextHit
from edge_assist.memory.graph import EntityGraph
from edge_assist.memory.graph_hops import GraphHops
from edge_assist.memory.graph_update import GraphUpdates
from edge_assist.memory.heap import release_freed
from edge_assist.memory.keyframes import KeyframeFiles
from edge_assist.memory.layout import Paths, check_windows, ivf_settings, usable_keyframes
from edge_assist.memory.reading import MemoryReads
from edge_assist.memory.store import MemoryStore
from edge_assist.memory.upkeep import FORGET_TOMBSTONE, Upkeep
from edge_assist.memory.writing import IngestResult, MemoryIngest

__all__ = [
    "FORGET_TOMBSTONE",
    "IngestResult",
    "Memory",
    "Paths",
    "check_windows",
    "ivf_settings",
    "usable_keyframes",
]

log = logging.getLogger(__name__)
# Store meta key (plus the session id) of the task a session's stream named.
SESSION_TASK = "session_task:"


class Memory:
    """The facade: `MemoryReader` for retrieval, `ingest` for the writer and tools."""

    def __init__(
        self,
        cfg: Config,
        paths: Paths,
        store: MemoryStore,
        graph: EntityGraph,
        llm: LLM | None,
        text_encoder: TextEncoder | None,
        image_encoder: ImageEncoder | None,
    ) -> None:
        self.cfg = cfg
        self.paths = paths
        self.store = store
        self.graph = graph
        self.llm = llm
        self.text_encoder = text_encoder
        self.image_encoder = image_encoder
        self.keyframes = KeyframeFiles(
            paths.keyframes,
            jpeg_quality=cfg.memory.keyframe_jpeg_quality,
            retention_days=cfg.memory.keyframe_retention_days,
        )
        # What the LLM was asked, by purpose: the no-recomputation tests and the benchmark read it.
        # One dict, counted into by the parts that call the LLM.
        self._llm_calls: dict[str, int] = {"entities": 0, "activity": 0, "session": 0}
        self.graph_updates = GraphUpdates(cfg, store, graph, llm, self._llm_calls)
        self.ingester = MemoryIngest(
            cfg, store, self.graph_updates, text_encoder, image_encoder, self.keyframes
        )
        self.reads = MemoryReads(store)
        self.upkeep = Upkeep(cfg, paths, store, self.graph_updates, self.keyframes)
        self.windows = self.ingester.windows

    # -- opening -----------------------------------------------------------------------
    @classmethod
    def open(
        cls,
        cfg: Config,
        llm: LLM | None,
        text_encoder: TextEncoder,
        image_encoder: ImageEncoder | None = None,
        *,
        wall: Callable[[], float] | None = None,
    ) -> Memory:
        """Open (or create) the wearer's memory; check it; repair the graph side if a kill left it behind.

        `wall` is the wall clock rows are stamped with (default `time.time`): a replay of a
        recorded day or a simulated week passes its own, so session order and retention
        follow that calendar.
        """
        check_windows(cfg)
        paths = Paths.of(cfg)
        store = MemoryStore.open(
            paths.sqlite,
            text_encoder=text_encoder.name,
            text_dim=int(text_encoder.dim),
            image_encoder=image_encoder.name if image_encoder is not None else None,
            image_dim=int(image_encoder.dim) if image_encoder is not None else None,
            max_store_mb=cfg.memory.max_store_mb,
            ivf=ivf_settings(cfg),
        )
        if wall is not None:
            store.wall = wall
        return cls._finish_open(cfg, paths, store, llm, text_encoder, image_encoder)

    @classmethod
    def open_existing(cls, cfg: Config) -> Memory:
        """Open a store for inspection and deletion (stats, export, forget): no models needed.

        Ingest and search need the models; this mode refuses them.
        """
        paths = Paths.of(cfg)
        if not paths.sqlite.exists():
            raise StoreError(
                f"no memory store for wearer {cfg.general.wearer!r} at {paths.sqlite}; nothing to show"
            )
        from edge_assist.memory.store_check import read_store_meta

        meta = read_store_meta(paths.sqlite)
        store = MemoryStore.open(
            paths.sqlite,
            text_encoder=meta.get("text_encoder", ""),
            text_dim=int(meta.get("text_dim", "0")),
            image_encoder=meta.get("image_encoder"),
            image_dim=int(meta["image_dim"]) if "image_dim" in meta else None,
            max_store_mb=cfg.memory.max_store_mb,
            ivf=ivf_settings(cfg),
        )
        return cls._finish_open(cfg, paths, store, None, None, None)

    @classmethod
    def _finish_open(
        cls,
        cfg: Config,
        paths: Paths,
        store: MemoryStore,
        llm: LLM | None,
        text_encoder: TextEncoder | None,
        image_encoder: ImageEncoder | None,
    ) -> Memory:
        try:
            graph, _created = EntityGraph.open(paths.graph, cfg.memory.graph_buffer_mb)
        except BaseException:
            store.close()
            raise
        mem = cls(cfg, paths, store, graph, llm, text_encoder, image_encoder)
        try:
            mem.upkeep.reconcile()
        except BaseException:
            mem.close()
            raise
        return mem

    @property
    def llm_calls(self) -> dict[str, int]:
        return self._llm_calls

    @llm_calls.setter
    def llm_calls(self, counts: dict[str, int]) -> None:
        # In place: the parts count into this very dict.
        self._llm_calls.clear()
        self._llm_calls.update(counts)

    # -- ingest (MemoryIngest, GraphUpdates) -----------------------------------------------
    def ingest(self, caption: Caption, stop: StopFlag | None = None) -> IngestResult:
        """Everything for one caption, synchronously: store, graph, roll-ups. Idempotent."""
        return self.ingester.ingest(caption, stop)

    def store_caption(self, caption: Caption) -> bool:
        return self.ingester.store_caption(caption)

    def update_graph(self, stop: StopFlag | None = None, *, force: bool = False) -> int:
        return self.graph_updates.update_graph(stop, force=force)

    def roll_up(
        self, session_id: str, *, flush: bool = False, stop: StopFlag | None = None
    ) -> list[tuple[str, int]]:
        return self.ingester.roll_up(session_id, flush=flush, stop=stop)

    def catch_up(self, stop: StopFlag | None = None) -> int:
        return self.ingester.catch_up(stop)

    def flush(
        self, session_ids: Sequence[str] | None = None, stop: StopFlag | None = None
    ) -> list[tuple[str, int]]:
        return self.ingester.flush(session_ids, stop)

    def next_clip_index(self, session_id: str) -> int:
        return self.ingester.next_clip_index(session_id)

    def maintain_index(self, max_s: float = 0.5) -> bool:
        return self.ingester.maintain_index(max_s)

    def index_pending(self) -> bool:
        return self.ingester.index_pending()

    def uses_llm_for_entities(self) -> bool:
        return self.graph_updates.uses_llm_for_entities()

    def extracts_entities(self) -> bool:
        return self.graph_updates.extracts_entities()

    # -- reads: the MemoryReader protocol (the store, the graph, MemoryReads) ----------------------
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
        return self.store.search_text(
            vector,
            k=k,
            before_t=before_t,
            levels=levels,
            session_id=session_id,
            earlier_sessions=earlier_sessions,
        )

    def session_starts(self) -> dict[str, float]:
        return self.store.session_starts()

    def earlier_sessions(self, session_id: str) -> list[str]:
        return self.store.earlier_sessions(session_id)

    def session_task(self, session_id: str) -> tuple[str, str]:
        raw = self.store.meta().get(SESSION_TASK + session_id)
        if not raw:
            return "", ""
        try:
            told = json.loads(raw)
            return str(told.get("task", "")), str(told.get("task_context", ""))
        except (ValueError, AttributeError):
            return "", ""  # an unreadable note only loses the named task: recognition still works

    def note_session_task(self, session_id: str, task: str, task_context: str) -> None:
        """Kept so a question asked after the run (`ask`) follows the task the run followed."""
        if (task, task_context) == self.session_task(session_id):
            return
        told = json.dumps({"task": task, "task_context": task_context}, ensure_ascii=False)
        self.store.set_meta(SESSION_TASK + session_id, told)

    def captions(self, session_id: str, clip_indices: Sequence[int]) -> list[CaptionRecord]:
        return self.store.captions(session_id, clip_indices)

    def recent_captions(self, session_id: str, *, before_t: float, n: int) -> list[CaptionRecord]:
        return self.store.recent_captions(session_id, before_t=before_t, n=n)

    def clips_with_vectors(
        self, session_id: str, t_from: float, t_to: float
    ) -> tuple[list[CaptionRecord], np.ndarray]:
        return self.store.clips_with_vectors(session_id, t_from, t_to)

    def latest_summary(self, session_id: str, level: str, *, before_t: float) -> TextHit | None:
        return self.reads.latest_summary(session_id, level, before_t=before_t)

    def summaries(self, level: str, *, before_t: float, session_id: str | None = None) -> list[TextHit]:
        return self.reads.summaries(level, before_t=before_t, session_id=session_id)

    def graph_neighbourhood(
        self,
        names: Sequence[str],
        *,
        before_t: float,
        k: int,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[EntityHit]:
        return self.graph.neighbourhood(
            names, before_t=before_t, k=k, session_id=session_id, earlier_sessions=earlier_sessions
        )

    def graph_hops(self) -> GraphHops:
        return GraphHops(self.graph)

    def search_keyframes(
        self,
        vector: np.ndarray,
        *,
        k: int,
        before_t: float,
        session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[KeyframeHit]:
        return self.store.search_keyframes(
            vector, k=k, before_t=before_t, session_id=session_id, earlier_sessions=earlier_sessions
        )

    def keyframe_images(self, session_id: str, clip_index: int) -> list[np.ndarray]:
        return self.reads.keyframe_images(session_id, clip_index)

    # -- upkeep (Upkeep) -------------------------------------------------------------------
    def consistency(self) -> dict[str, Any]:
        return self.upkeep.consistency()

    def stats(self) -> dict[str, Any]:
        return self.upkeep.stats()

    def export(self) -> Iterator[dict[str, Any]]:
        return self.upkeep.export()

    def sweep_keyframes(self) -> int:
        """Delete keyframe files past retention; their vectors stay."""
        return self.upkeep.sweep_keyframes()

    def forgettable(self, cutoff_wall: float) -> tuple[list[tuple[str, int]], list[str], list[str]]:
        return self.upkeep.forgettable(cutoff_wall)

    def forget_before(self, cutoff_wall: float) -> dict[str, int]:
        """Delete everything written before `cutoff_wall` (epoch seconds): rows, vectors, graph, JPEGs."""
        return self.upkeep.forget_before(cutoff_wall)

    def close(self) -> None:
        try:
            self.graph.close()
        finally:
            self.store.close()
            # What the store and graph held is free now; without a trim glibc keeps it resident
            # (a process that closes and reopens memory kept 28-50 MB more each time).
            release_freed()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
