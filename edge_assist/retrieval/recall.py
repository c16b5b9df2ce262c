"""What the answers room may read of memory: moments, periods and summaries, never the store.

Answers to questions are composed from what retrieval hands up. This is the one object they
hold: it proposes candidate moments for a question, steps to a neighbouring clip, lists the
clips of a span of days with their stored vectors, and reads the written summaries. Every
call is bounded by the time the question is about (causality).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder
from edge_assist.memory.api import CaptionRecord, MemoryReader, TextHit
from edge_assist.retrieval import moments
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.relations import Relations


class Recall:
    def __init__(self, memory: MemoryReader) -> None:
        self._memory = memory
        self._relations: Relations | None = None

    @property
    def relations(self) -> Relations:
        """What the entity graph links to a thing across two hops (the tray and what was on it)."""
        if self._relations is None:
            self._relations = Relations(self._memory, self._memory.graph_hops())
        return self._relations

    def session_starts(self) -> dict[str, float]:
        """Wall-clock start of every session, oldest first. Blocking."""
        return self._memory.session_starts()

    def session_task(self, session_id: str) -> tuple[str, str]:
        """The task the session's stream named (name, task context), blanks if none. Blocking."""
        return self._memory.session_task(session_id)

    def clips_in_period(
        self, session_id: str, t_from: float, t_to: float
    ) -> tuple[list[CaptionRecord], np.ndarray]:
        """Clips that began in [t_from, t_to) of the session's stream, with their text vectors. Blocking."""
        return self._memory.clips_with_vectors(session_id, t_from, t_to)

    def summaries(self, level: str, *, before_t: float, session_id: str | None = None) -> list[TextHit]:
        """Every summary of `level` written by `before_t`. Blocking."""
        return self._memory.summaries(level, before_t=before_t, session_id=session_id)

    def nearest_summaries(
        self, vector: np.ndarray, *, k: int, before_t: float, level: str, session_id: str | None = None
    ) -> list[TextHit]:
        """The `k` summaries of `level` closest to `vector`, written by `before_t`. Blocking."""
        return list(
            self._memory.search_text(vector, k=k, before_t=before_t, levels=(level,), session_id=session_id)
        )

    async def candidate_moments(
        self,
        encoder: TextEncoder,
        clock: Clock,
        focus: str,
        *,
        before_t: float,
        session_id: str | None,
        k: int,
        past_sessions: bool = False,
        extra: Sequence[CaptionRecord] = (),
        graph: bool = True,
    ) -> list[Moment]:
        return await moments.candidate_moments(
            self._memory,
            encoder,
            clock,
            focus,
            before_t=before_t,
            session_id=session_id,
            k=k,
            past_sessions=past_sessions,
            extra=extra,
            graph=graph,
        )

    async def neighbour(self, clock: Clock, m: Moment, *, step: int, before_t: float) -> Moment | None:
        return await moments.neighbour(self._memory, clock, m, step=step, before_t=before_t)

    async def neighbours(
        self, clock: Clock, m: Moment, *, step: int, count: int, before_t: float
    ) -> list[Moment]:
        return await moments.neighbours(self._memory, clock, m, step=step, count=count, before_t=before_t)
