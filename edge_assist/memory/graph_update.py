"""Captions into the entity graph: extraction (LLM per caption, LLM per batch, or lexical) and apply.

The extraction of a caption is saved in its SQLite row before Kùzu sees it, so a kill never
costs a second extraction (see `memory.py`, points 2-4). With `llm-batch` a caption waits
until `memory.entity_batch` captions are pending (or a flush / catch-up forces the rest):
the graph lags the stream by at most one batch, which the graph path tolerates because
the temporal path sees every caption at once.
"""

from __future__ import annotations

import logging

from edge_assist.config import Config
from edge_assist.errors import AnswerCutError, ModelError
from edge_assist.inference.base import LLM, StopFlag, warn_answer_cut
from edge_assist.memory.entities import Extraction, extract, extract_batch
from edge_assist.memory.graph import EntityGraph
from edge_assist.memory.lexical import extract_lexical
from edge_assist.memory.store import Item, MemoryStore

log = logging.getLogger(__name__)


class GraphUpdates:
    """The graph side of ingest: extractions saved in the store, then applied to the graph."""

    def __init__(
        self, cfg: Config, store: MemoryStore, graph: EntityGraph, llm: LLM | None, llm_calls: dict[str, int]
    ) -> None:
        self.cfg = cfg
        self.store = store
        self.graph = graph
        self.llm = llm
        self.llm_calls = llm_calls  # shared with `Memory`: what the LLM was asked, by purpose

    def uses_llm_for_entities(self) -> bool:
        return self.cfg.memory.entity_extractor != "lexical"

    def extracts_entities(self) -> bool:
        """Whether new captions get an extraction at all (the LLM paths need the model)."""
        return self.cfg.memory.extract_entities and (self.llm is not None or not self.uses_llm_for_entities())

    def update_graph(self, stop: StopFlag | None = None, *, force: bool = False) -> int:
        """Extract entities of captions not yet in the graph and apply them. Returns LLM calls.

        `force` also extracts a partial batch (end of stream, catch-up after a kill).
        """
        return self.apply_pending(extract_missing=True, stop=stop, force=force)

    def _extract_llm(self, items: list[Item], stop: StopFlag | None) -> list[Extraction]:
        assert self.llm is not None
        max_tokens = self.cfg.memory.entity_max_tokens
        what = f"clips {items[0].idx}-{items[-1].idx} of {items[0].session_id}"
        try:
            if len(items) == 1 and self.cfg.memory.entity_extractor == "llm":
                return [extract(self.llm, items[0].text, max_tokens=max_tokens, stop=stop)]
            return extract_batch(self.llm, [it.text for it in items], max_tokens=max_tokens, stop=stop)
        except ModelError as e:
            # Greedy decoding would fail the same way again: record "nothing found".
            if isinstance(e, AnswerCutError):
                warn_answer_cut(log, f"entities of {what}", "memory.entity_max_tokens", e.max_tokens)
            else:
                log.debug("entity extraction failed for %s: %s", what, e)
            return [Extraction((), ()) for _ in items]

    def apply_pending(
        self, *, extract_missing: bool, stop: StopFlag | None = None, force: bool = False
    ) -> int:
        """Apply every caption the graph has not seen; with `extract_missing`, extract those
        never extracted first (on open only the saved extractions are applied). Returns LLM calls."""
        calls = 0
        mode = self.cfg.memory.entity_extractor
        pending = self.store.pending_graph()
        batch = self.cfg.memory.entity_batch if mode == "llm-batch" else 1
        missing = [it for it, saved in pending if saved is None]
        if mode == "llm-batch" and not force and len(missing) < batch:
            missing = []  # wait for a full batch; what is extracted already is still applied below
        fresh: dict[tuple[str, int], Extraction] = {}
        if extract_missing and missing and (self.llm is not None or mode == "lexical"):
            for i in range(0, len(missing), batch):
                group = missing[i : i + batch]
                if mode == "lexical":
                    exs = [extract_lexical(it.text) for it in group]
                else:
                    exs = self._extract_llm(group, stop)
                    calls += 1
                    self.llm_calls["entities"] += 1
                for it, ex in zip(group, exs, strict=True):
                    self.store.set_entities(it.session_id, it.idx, ex.to_json())
                    fresh[(it.session_id, it.idx)] = ex
        for item, saved in pending:
            new = fresh.get((item.session_id, item.idx))
            if new is None and saved is None:
                continue  # not extracted yet (no model, or waiting for a full batch)
            self.graph.apply(
                item.session_id,
                item.idx,
                item.t0,
                item.t1,
                new if new is not None else Extraction.from_json(saved),
            )
            self.store.mark_graph_done(item.session_id, item.idx)
        return calls
