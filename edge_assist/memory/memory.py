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
2. The entity extraction (LLM or lexical, `graph_update`) is then saved in the caption's row, before the graph sees it, so a
   crash never costs a second LLM call for the same caption.
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

The work is split by job: `layout` (files, config checks), `writing` (ingest, roll-ups),
`graph_update` (entity extraction into Kùzu), `reading` (the `MemoryReader` side),
`upkeep` (repair on open, consistency, stats, export, forgetting); this module opens and
closes, and re-exports the names callers import from here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from edge_assist.config import Config
from edge_assist.errors import StoreError
from edge_assist.inference.base import LLM, ImageEncoder, TextEncoder
from edge_assist.memory.graph import EntityGraph
from edge_assist.memory.heap import release_freed
from edge_assist.memory.keyframes import KeyframeFiles
from edge_assist.memory.layout import Paths, check_windows, ivf_settings, usable_keyframes
from edge_assist.memory.reading import Reading
from edge_assist.memory.store import MemoryStore
from edge_assist.memory.upkeep import FORGET_TOMBSTONE, Upkeep
from edge_assist.memory.writing import IngestResult, Writing

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


class Memory(Writing, Reading, Upkeep):
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
        self.windows = check_windows(cfg)
        self.keyframes = KeyframeFiles(
            paths.keyframes,
            jpeg_quality=cfg.memory.keyframe_jpeg_quality,
            retention_days=cfg.memory.keyframe_retention_days,
        )
        # What the LLM was asked, by purpose: the no-recomputation tests and the benchmark read it.
        self.llm_calls: dict[str, int] = {"entities": 0, "activity": 0, "session": 0}

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
            mem._reconcile()
        except BaseException:
            mem.close()
            raise
        return mem

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
