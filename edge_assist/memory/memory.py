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
2. The LLM extraction is then saved in the caption's row, before the graph sees it, so a
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
"""

from __future__ import annotations

import json
import logging
import math
import shutil
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.config import Config
from edge_assist.errors import AnswerCutError, ConfigError, ModelError, StoreError
from edge_assist.events import Caption
from edge_assist.inference.base import LLM, ImageEncoder, StopFlag, TextEncoder, warn_answer_cut
from edge_assist.memory import rollup
from edge_assist.memory.api import LEVELS, CaptionRecord, EntityHit, KeyframeHit, TextHit
from edge_assist.memory.entities import Extraction, extract
from edge_assist.memory.graph import EntityGraph
from edge_assist.memory.ivf import IvfSettings
from edge_assist.memory.keyframes import KeyframeFiles
from edge_assist.memory.store import BadCaptionError, KeyframeRow, MemoryStore, Windows

log = logging.getLogger(__name__)

FORGET_TOMBSTONE = "forget_pending"


@dataclass
class IngestResult:
    stored: bool  # False: this (session, clip index) was already in memory
    llm_calls: dict[str, int] = field(default_factory=dict)
    summaries: list[tuple[str, int]] = field(default_factory=list)  # (level, window index) written now
    index_pending: bool = False  # the text index has idle-time work to do (`maintain_index`)


@dataclass
class Paths:
    sqlite: Path
    graph: Path
    keyframes: Path

    @classmethod
    def of(cls, cfg: Config) -> Paths:
        base = cfg.data_dir / cfg.general.wearer
        return cls(Path(f"{base}.sqlite"), Path(f"{base}.kuzu"), Path(f"{base}.keyframes"))


def usable_keyframes(caption: Caption) -> list[Any]:
    """The caption's keyframes that are images (H x W x 3 uint8); a corrupt one is left out, logged.

    A broken frame from the camera costs that picture, never the caption nor the run.
    """
    out = []
    for k, kf in enumerate(caption.keyframes):
        img = kf.image
        if (isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
                and img.shape[0] > 0 and img.shape[1] > 0):
            out.append(kf)
        else:
            what = f"{img.dtype} {img.shape}" if isinstance(img, np.ndarray) else type(img).__name__
            log.warning("keyframe %d of clip %d of %s is corrupt (%s); the caption is stored without it",
                        k, caption.index, caption.session_id, what)
    return out
def ivf_settings(cfg: Config) -> IvfSettings:
    m = cfg.memory
    return IvfSettings(min_items=m.ann_min_items, list_size=m.ann_list_size, probe=m.ann_probe)


def check_windows(cfg: Config) -> Windows:
    clip_s, act_s, ses_s = cfg.memory_windows_s
    ratio = ses_s / act_s
    if act_s < clip_s or ses_s < act_s or abs(ratio - round(ratio)) > 1e-6:
        raise ConfigError(
            f"memory windows {clip_s:g}/{act_s:g}/{ses_s:g} s must grow and memory.session_s must be a whole "
            "multiple of memory.activity_s, so every activity summary falls inside one session window"
        )
    return Windows(clip_s, act_s, ses_s)


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
        cls, cfg: Config, llm: LLM | None, text_encoder: TextEncoder, image_encoder: ImageEncoder | None = None
    ) -> Memory:
        """Open (or create) the wearer's memory; check it; repair the graph side if a kill left it behind."""
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
        return cls._finish_open(cfg, paths, store, llm, text_encoder, image_encoder)

    @classmethod
    def open_existing(cls, cfg: Config) -> Memory:
        """Open a store for inspection and deletion (stats, export, forget): no models needed.

        Ingest and search need the models; this mode refuses them.
        """
        paths = Paths.of(cfg)
        if not paths.sqlite.exists():
            raise StoreError(f"no memory store for wearer {cfg.general.wearer!r} at {paths.sqlite}; nothing to show")
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
            graph, _created = EntityGraph.open(paths.graph)
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

    def _reconcile(self) -> None:
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
                log.info("entity graph %s is new; rebuilding it from %d stored captions", self.paths.graph, rebuilt)
        elif gid != sid:
            raise StoreError(
                f"entity graph {self.paths.graph} belongs to another memory store; move it aside and restart "
                "to rebuild it from the SQLite store"
            )
        tomb = meta.get(FORGET_TOMBSTONE)
        if tomb:
            self.graph.forget([(s, int(i)) for s, i in json.loads(tomb)])
            self.store.set_meta(FORGET_TOMBSTONE, None)
        self._apply_pending_graph(extract_missing=False)
        self.sweep_keyframes()

    def close(self) -> None:
        try:
            self.graph.close()
        finally:
            self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- ingest ------------------------------------------------------------------------
    def _need_models(self) -> tuple[TextEncoder, LLM | None]:
        if self.text_encoder is None:
            raise StoreError("this memory was opened for inspection only; open it with the models to ingest or search")
        return self.text_encoder, self.llm

    def next_clip_index(self, session_id: str) -> int:
        """Where a session resumes: one past its highest stored clip (0 for a new session)."""
        return self.store.next_clip_index(session_id)

    def store_caption(self, caption: Caption) -> bool:
        """Step 1: the caption, its vector and keyframes, atomically. False if already stored."""
        enc, _ = self._need_models()
        text = " ".join(caption.text.split())
        if not text:
            raise BadCaptionError(f"caption {caption.index} of {caption.session_id} is empty; not stored")
        if caption.index < 0 or not (math.isfinite(caption.t0) and math.isfinite(caption.t1)) or caption.t1 < caption.t0:
            raise BadCaptionError(
                f"caption {caption.index} of {caption.session_id} has an invalid index or times "
                f"(t0={caption.t0}, t1={caption.t1}); not stored"
            )
        if self.store.has_clip(caption.session_id, caption.index):
            return False
        self.store.session_windows(caption.session_id, self.windows)
        vector = enc.encode([text])[0]
        rows: list[KeyframeRow] = []
        keyframes = usable_keyframes(caption)
        if keyframes:
            vecs = (
                self.image_encoder.encode_images([kf.image for kf in keyframes])
                if self.image_encoder is not None
                else None
            )
            for k, kf in enumerate(keyframes):
                path, nbytes = self.keyframes.save(caption.session_id, caption.index, k, kf.image)
                rows.append(KeyframeRow(k, kf.stream_t, path, nbytes, None if vecs is None else vecs[k]))
        return self.store.add_clip(
            session_id=caption.session_id,
            clip_index=caption.index,
            t0=caption.t0,
            t1=caption.t1,
            text=text,
            source=caption.source,
            vector=vector,
            keyframes=rows,
            extract_entities=self.cfg.memory.extract_entities and self.llm is not None,
        )

    def update_graph(self, stop: StopFlag | None = None) -> int:
        """Step 2: extract entities of captions not yet in the graph and apply them. Returns LLM calls."""
        return self._apply_pending_graph(extract_missing=True, stop=stop)

    def _apply_pending_graph(self, *, extract_missing: bool, stop: StopFlag | None = None) -> int:
        calls = 0
        for item, saved in self.store.pending_graph():
            if saved is None:
                if not extract_missing or self.llm is None:
                    continue
                try:
                    ex = extract(self.llm, item.text, max_tokens=self.cfg.memory.entity_max_tokens, stop=stop)
                except ModelError as e:
                    # Greedy decoding would fail the same way again: record "nothing found".
                    if isinstance(e, AnswerCutError):
                        warn_answer_cut(log, f"entities of clip {item.idx} of {item.session_id}",
                                        "memory.entity_max_tokens", e.max_tokens)
                    else:
                        log.debug("entity extraction failed for clip %d of %s: %s", item.idx, item.session_id, e)
                    ex = Extraction((), ())
                calls += 1
                self.llm_calls["entities"] += 1
                self.store.set_entities(item.session_id, item.idx, ex.to_json())
            else:
                ex = Extraction.from_json(saved)
            self.graph.apply(item.session_id, item.idx, item.t0, item.t1, ex)
            self.store.mark_graph_done(item.session_id, item.idx)
        return calls

    def roll_up(self, session_id: str, *, flush: bool = False, stop: StopFlag | None = None) -> list[tuple[str, int]]:
        """Step 3: summarise every full window not yet summarised (activity, then session)."""
        enc, llm = self._need_models()
        frontier = self.store.frontier(session_id)
        if frontier is None or llm is None:
            return []
        win = self.store.session_windows(session_id, self.windows)
        front = math.inf if flush else frontier
        written: list[tuple[str, int]] = []
        lower_items = {
            "activity": lambda after: self.store.clip_items(session_id, t1_after=after),
            "session": lambda after: [
                it for it in self.store.level_items("activity", session_id=session_id) if it.t1 > after
            ],
        }
        for level, window_s in (("activity", win.activity_s), ("session", win.session_s)):
            done = self.store.window_indices(session_id, level)
            # Windows up to the last summarised one are settled: only read what comes after.
            after = rollup.window_end(max(done), window_s) if done else -math.inf
            for idx, members, partial in rollup.full_windows(
                lower_items[level](after), window_s, front, done, flush=flush
            ):
                if partial and frontier > rollup.window_end(idx, window_s):
                    partial = False
                text, source, calls = rollup.summarise(
                    llm, level, members, max_tokens=self.cfg.memory.summary_max_tokens, stop=stop
                )
                self.llm_calls[level] += calls
                clips = sorted({c for it in members for c in it.clips})
                if self.store.add_summary(
                    level=level,
                    session_id=session_id,
                    window_index=idx,
                    t0=min(it.t0 for it in members),
                    t1=max(it.t1 for it in members),
                    text=text,
                    clips=clips,
                    source=source,
                    partial=partial,
                    vector=enc.encode([text])[0],
                ):
                    written.append((level, idx))
        return written

    def ingest(self, caption: Caption, stop: StopFlag | None = None) -> IngestResult:
        """Everything for one caption, synchronously: store, graph, roll-ups. Idempotent."""
        before = dict(self.llm_calls)
        stored = self.store_caption(caption)
        self.update_graph(stop=stop)
        summaries = self.roll_up(caption.session_id, stop=stop)
        return IngestResult(stored, {k: self.llm_calls[k] - before[k] for k in before}, summaries,
                            self.store.index_pending())

    def catch_up(self, stop: StopFlag | None = None) -> int:
        """Finish what a kill interrupted: graph updates and full windows of every session."""
        n = self.update_graph(stop=stop)
        for s in self.store.sessions():
            self.roll_up(s, stop=stop)
        return n

    def flush(self, session_ids: Sequence[str] | None = None, stop: StopFlag | None = None) -> list[tuple[str, int]]:
        """End of stream: summarise the last, partial windows too."""
        self.update_graph(stop=stop)
        out: list[tuple[str, int]] = []
        for s in session_ids if session_ids is not None else self.store.sessions():
            out += self.roll_up(s, flush=True, stop=stop)
        return out

    def maintain_index(self, max_s: float = 0.5) -> bool:
        """Idle-time work on the text index (training, backfill) for about `max_s`; True if more remains."""
        return self.store.index_step(max_s)

    def index_pending(self) -> bool:
        return self.store.index_pending()

    def sweep_keyframes(self) -> int:
        """Delete keyframe files past retention; their vectors stay."""
        if self.cfg.memory.keyframe_retention_days <= 0:
            expired = self.store.expired_keyframes(math.inf)
        else:
            expired = self.store.expired_keyframes(self.keyframes.expiry_wall())
        if not expired:
            return 0
        KeyframeFiles.delete([p for _, p in expired])
        self.store.clear_keyframe_paths([i for i, _ in expired])
        return len(expired)

    # -- MemoryReader ------------------------------------------------------------------
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
            vector, k=k, before_t=before_t, levels=levels, session_id=session_id, earlier_sessions=earlier_sessions
        )

    def session_starts(self) -> dict[str, float]:
        return self.store.session_starts()

    def earlier_sessions(self, session_id: str) -> list[str]:
        return self.store.earlier_sessions(session_id)

    def captions(self, session_id: str, clip_indices: Sequence[int]) -> list[CaptionRecord]:
        return self.store.captions(session_id, clip_indices)

    def recent_captions(self, session_id: str, *, before_t: float, n: int) -> list[CaptionRecord]:
        return self.store.recent_captions(session_id, before_t=before_t, n=n)

    def latest_summary(self, session_id: str, level: str, *, before_t: float) -> TextHit | None:
        items = self.store.level_items(level, before_t=before_t, session_id=session_id)
        if not items:
            return None
        it = items[-1]
        return TextHit(it.level, it.session_id, it.t0, it.t1, it.text, it.clips, 1.0)

    def summaries(self, level: str, *, before_t: float, session_id: str | None = None) -> list[TextHit]:
        return [
            TextHit(it.level, it.session_id, it.t0, it.t1, it.text, it.clips, 1.0)
            for it in self.store.level_items(level, before_t=before_t, session_id=session_id)
        ]

    def graph_neighbourhood(
        self, names: Sequence[str], *, before_t: float, k: int, session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[EntityHit]:
        return self.graph.neighbourhood(
            names, before_t=before_t, k=k, session_id=session_id, earlier_sessions=earlier_sessions
        )

    def search_keyframes(
        self, vector: np.ndarray, *, k: int, before_t: float, session_id: str | None = None,
        earlier_sessions: Sequence[str] = (),
    ) -> list[KeyframeHit]:
        return self.store.search_keyframes(
            vector, k=k, before_t=before_t, session_id=session_id, earlier_sessions=earlier_sessions
        )

    def keyframe_images(self, session_id: str, clip_index: int) -> list[np.ndarray]:
        out = []
        for p in self.store.keyframe_paths(session_id, clip_index):
            img = KeyframeFiles.load(p)
            if img is not None:
                out.append(img)
            else:
                # Reconstruction goes on from the caption text; say why the picture is missing.
                log.warning("keyframe %s of clip %d of %s is missing or corrupt; using the caption only",
                            p, clip_index, session_id)
        return out

    # -- administration ----------------------------------------------------------------
    def consistency(self) -> dict[str, Any]:
        """Store, vectors and graph against each other, as a kill may have left them.

        `ok` holds when no (session, level, index) is stored twice, every item has its
        vector and every vector its item, every clip the store marks as applied is in the
        graph, and the graph holds no clip the store lacks. Clips not yet applied
        (`graph_pending`) are allowed: the next open or `catch_up` applies them.
        """
        from edge_assist.memory.store import integrity_rows

        rows = integrity_rows(self.store)
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
        out["ok"] = not any(out[k] for k in ("duplicates", "items_without_vector", "vectors_without_item",
                                             "graph_missing", "graph_orphans"))
        return out

    def stats(self) -> dict[str, Any]:
        s = self.store.stats()
        s["graph"] = self.graph.counts()
        s["graph_bytes"] = sum(p.stat().st_size for p in self.paths.graph.parent.glob(self.paths.graph.name + "*"))
        s["keyframe_dir"] = str(self.paths.keyframes)
        s["llm_calls_this_run"] = dict(self.llm_calls)
        return s

    def export(self) -> Iterator[dict[str, Any]]:
        meta = self.store.meta()
        yield {"meta": {"wearer": self.cfg.general.wearer, "exported_wall": time.time(),
                        **{k: v for k, v in meta.items() if k != FORGET_TOMBSTONE}}}
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
        self.graph.close()
        for p in self.paths.graph.parent.glob(self.paths.graph.name + "*"):
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
        self.graph, _ = EntityGraph.open(self.paths.graph)
        self._reconcile()
