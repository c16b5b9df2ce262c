"""Keeping memory whole: repair on open, the consistency check, stats, export, retention and forgetting."""

from __future__ import annotations

import json
import logging
import math
import uuid
from collections.abc import Iterator
from typing import Any

from edge_assist.config import Config
from edge_assist.errors import StoreError
from edge_assist.memory.graph import EntityGraph
from edge_assist.memory.graph_update import GraphUpdates
from edge_assist.memory.keyframes import KeyframeFiles
from edge_assist.memory.layout import Paths
from edge_assist.memory.store import MemoryStore

log = logging.getLogger(__name__)

FORGET_TOMBSTONE = "forget_pending"


class Upkeep:
    """The store is the source of truth; the graph is rebuilt from it when needed."""

    def __init__(
        self,
        cfg: Config,
        paths: Paths,
        store: MemoryStore,
        graph_updates: GraphUpdates,
        keyframes: KeyframeFiles,
    ) -> None:
        self.cfg = cfg
        self.paths = paths
        self.store = store
        self.graph_updates = graph_updates
        self.graph: EntityGraph = graph_updates.graph
        self.keyframes = keyframes
        self.llm_calls = graph_updates.llm_calls  # one count, shared with `Memory`

    def reconcile(self) -> None:
        """On open (and after a rebuild): the graph matches this store, forgets what it should,
        holds every saved extraction; keyframe files past retention go."""
        meta = self.store.meta()
        sid = meta.get("store_id")
        if sid is None:
            sid = uuid.uuid4().hex
            self.store.set_meta("store_id", sid)
        gid = self.graph.store_id()
        if gid is None:
            # A new graph next to an existing store: rebuild it from the saved extractions.
            rebuilt = self.store.reset_graph_flags()
            self.graph.set_store_id(sid)
            if rebuilt:
                log.info(
                    "entity graph %s is new; rebuilding it from %d stored captions", self.paths.graph, rebuilt
                )
        elif gid != sid:
            raise StoreError(
                f"entity graph {self.paths.graph} belongs to another memory store; move it aside and restart "
                "to rebuild it from the SQLite store"
            )
        tomb = meta.get(FORGET_TOMBSTONE)
        if tomb:
            self.graph.forget([(s, int(i)) for s, i in json.loads(tomb)])
            self.store.set_meta(FORGET_TOMBSTONE, None)
        self.graph_updates.apply_pending(extract_missing=False)
        self.sweep_keyframes()

    def consistency(self) -> dict[str, Any]:
        """Store, vectors and graph against each other, as a kill may have left them.

        `ok` holds when no (session, level, index) is stored twice, every item has its
        vector and every vector its item, every clip the store marks as applied is in the
        graph, and the graph holds no clip the store lacks. Clips not yet applied
        (`graph_pending`) are allowed: the next open or `catch_up` applies them.
        """
        rows = self.store.report.integrity_rows()
        stored = {(s, i) for s, i, _ in rows["clips"]}
        applied = {(s, i) for s, i, g in rows["clips"] if g}
        in_graph = set(self.graph.clip_keys())
        out = {
            "clips": len(stored),
            "levels": rows["levels"],
            "duplicates": len(rows["duplicates"]),
            "items_without_vector": int(rows["items_without_vector"]),
            "vectors_without_item": int(rows["vectors_without_item"]),
            "graph_missing": len(applied - in_graph),
            "graph_orphans": len(in_graph - stored),
            "graph_pending": len(self.store.pending_graph()),
        }
        out["ok"] = not any(
            out[k]
            for k in (
                "duplicates",
                "items_without_vector",
                "vectors_without_item",
                "graph_missing",
                "graph_orphans",
            )
        )
        return out

    def stats(self) -> dict[str, Any]:
        s = self.store.stats()
        s["graph"] = self.graph.counts()
        s["graph_bytes"] = sum(
            p.stat().st_size for p in self.paths.graph.parent.glob(self.paths.graph.name + "*")
        )
        s["keyframe_dir"] = str(self.paths.keyframes)
        s["llm_calls_this_run"] = dict(self.llm_calls)
        return s

    def export(self) -> Iterator[dict[str, Any]]:
        meta = self.store.meta()
        yield {
            "meta": {
                "wearer": self.cfg.general.wearer,
                "exported_wall": self.store.wall(),
                **{k: v for k, v in meta.items() if k != FORGET_TOMBSTONE},
            }
        }
        yield from self.store.export_rows()
        for key, name, kind in self.graph.entities():
            yield {"type": "entity", "key": key, "name": name, "kind": kind}

    def forgettable(self, cutoff_wall: float) -> tuple[list[tuple[str, int]], list[str], list[str]]:
        """What `forget_before` would delete: (session, clip index) pairs, texts, and the sessions
        left with nothing. Deletes nothing."""
        return self.store.forgettable(cutoff_wall)

    def forget_before(self, cutoff_wall: float) -> dict[str, int]:
        """Delete everything written before `cutoff_wall` (epoch seconds): rows, vectors, graph, JPEGs."""
        clips, files = self.store.forget_before(cutoff_wall, FORGET_TOMBSTONE)
        tomb = self.store.meta().get(FORGET_TOMBSTONE)
        if tomb:
            self.graph.forget([(s, int(i)) for s, i in json.loads(tomb)])
            self.store.set_meta(FORGET_TOMBSTONE, None)
        removed = KeyframeFiles.delete(files)
        self.store.vacuum()
        if clips:
            self._rebuild_graph()
        return {"clips": len(clips), "keyframe_files": removed}

    def _rebuild_graph(self) -> None:
        """Kùzu keeps deleted names in its freed pages: after a forget the graph is rebuilt
        from the extractions the store kept, so the file holds nothing forgotten. A kill in
        between leaves no graph, which the next open rebuilds the same way (point 4 above)."""
        self.graph.recreate()
        self.reconcile()

    def sweep_keyframes(self) -> int:
        """Delete keyframe files past retention; their vectors stay."""
        if self.cfg.memory.keyframe_retention_days <= 0:
            expired = self.store.expired_keyframes(math.inf)
        else:
            expired = self.store.expired_keyframes(self.keyframes.expiry_wall(self.store.wall()))
        if not expired:
            return 0
        KeyframeFiles.delete([p for _, p in expired])
        self.store.clear_keyframe_paths([i for i, _ in expired])
        return len(expired)
