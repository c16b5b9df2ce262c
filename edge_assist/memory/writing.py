"""Writing captions into memory: the caption and its vectors, the roll-ups, and the idle-time index work.

The graph side is `graph_update.GraphUpdates`. The steps and why they are crash-safe are in
`memory.py`'s docstring.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from edge_assist.config import Config
from edge_assist.errors import StoreError
from edge_assist.events import Caption
from edge_assist.inference.base import LLM, ImageEncoder, StopFlag, TextEncoder
from edge_assist.memory import rollup
from edge_assist.memory.graph_update import GraphUpdates
from edge_assist.memory.keyframes import KeyframeFiles
from edge_assist.memory.layout import check_windows, usable_keyframes
from edge_assist.memory.store import BadCaptionError, KeyframeRow, MemoryStore


@dataclass
class IngestResult:
    stored: bool  # False: this (session, clip index) was already in memory
    llm_calls: dict[str, int] = field(default_factory=dict)
    summaries: list[tuple[str, int]] = field(default_factory=list)  # (level, window index) written now
    index_pending: bool = False  # the text index has idle-time work to do (`maintain_index`)


class MemoryIngest:
    """`ingest` and its steps, for the background writer and offline tools."""

    def __init__(
        self,
        cfg: Config,
        store: MemoryStore,
        graph_updates: GraphUpdates,
        text_encoder: TextEncoder | None,
        image_encoder: ImageEncoder | None,
        keyframes: KeyframeFiles,
    ) -> None:
        self.cfg = cfg
        self.store = store
        self.graph_updates = graph_updates
        self.llm = graph_updates.llm
        self.llm_calls = graph_updates.llm_calls  # one count, shared with `Memory`
        self.text_encoder = text_encoder
        self.image_encoder = image_encoder
        self.keyframes = keyframes
        self.windows = check_windows(cfg)

    def _need_models(self) -> tuple[TextEncoder, LLM | None]:
        if self.text_encoder is None:
            raise StoreError(
                "this memory was opened for inspection only; open it with the models to ingest or search"
            )
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
        if (
            caption.index < 0
            or not (math.isfinite(caption.t0) and math.isfinite(caption.t1))
            or caption.t1 < caption.t0
        ):
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
            extract_entities=self.graph_updates.extracts_entities(),
        )

    def roll_up(
        self, session_id: str, *, flush: bool = False, stop: StopFlag | None = None
    ) -> list[tuple[str, int]]:
        """Step 3: summarise every full window not yet summarised (activity, then session)."""
        enc, llm = self._need_models()
        if self.cfg.memory.summaries == "extractive":
            llm = None  # summarise() then joins the members' words: no LLM call
        elif llm is None:
            return []
        frontier = self.store.frontier(session_id)
        if frontier is None:
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
        self.graph_updates.update_graph(stop=stop)
        summaries = self.roll_up(caption.session_id, stop=stop)
        return IngestResult(
            stored, {k: self.llm_calls[k] - before[k] for k in before}, summaries, self.store.index_pending()
        )

    def catch_up(self, stop: StopFlag | None = None) -> int:
        """Finish what a kill interrupted: graph updates and full windows of every session."""
        n = self.graph_updates.update_graph(stop=stop, force=True)
        for s in self.store.sessions():
            self.roll_up(s, stop=stop)
        return n

    def flush(
        self, session_ids: Sequence[str] | None = None, stop: StopFlag | None = None
    ) -> list[tuple[str, int]]:
        """End of stream: summarise the last, partial windows too."""
        self.graph_updates.update_graph(stop=stop, force=True)
        out: list[tuple[str, int]] = []
        for s in session_ids if session_ids is not None else self.store.sessions():
            out += self.roll_up(s, flush=True, stop=stop)
        return out

    def maintain_index(self, max_s: float = 0.5) -> bool:
        """Idle-time work on the text index (training, backfill) for about `max_s`; True if more remains."""
        return self.store.index_step(max_s)

    def index_pending(self) -> bool:
        return self.store.index_pending()
