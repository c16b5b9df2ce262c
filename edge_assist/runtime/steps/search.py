"""A step's search: the scheduler's gate says what may run now, then retrieval runs it,
bounded by the step's stream time. Shared by the proactive passes and free answers."""

from __future__ import annotations

import time

from edge_assist.config import Config
from edge_assist.reasoning.api import SearchGate, StepContext
from edge_assist.retrieval.api import SearchPlan
from edge_assist.retrieval.retriever import Retrieval, Retriever
from edge_assist.runtime.steps.verdict import StepNotes


class StepSearch:
    def __init__(self, cfg: Config, retriever: Retriever) -> None:
        self.cfg = cfg
        self.retriever = retriever

    async def _plan(
        self, query: str, gate: SearchGate | None, notes: StepNotes, *, instant: bool
    ) -> SearchPlan:
        """The configured search, cut to what the gate grants now."""
        plan = self.retriever.default_plan()
        if gate is None:
            return plan
        start = time.perf_counter()
        granted = await gate.request(query, instant=instant)
        notes.timings["gate"] = time.perf_counter() - start
        return SearchPlan(
            paths=tuple(p for p in granted.paths if p in plan.paths),
            top_k=min(granted.top_k, plan.top_k),
            reconstruction=granted.reconstruction and plan.reconstruction,
            deferred=granted.deferred,
            note=granted.note,
        )

    async def run(
        self,
        ctx: StepContext,
        query: str,
        why: str,
        gate: SearchGate | None,
        notes: StepNotes,
        *,
        instant: bool,
    ) -> Retrieval | None:
        """Ask the gate, then retrieve. None when the search is deferred or nothing may run."""
        plan = await self._plan(query, gate, notes, instant=instant)
        search = notes.trace["search"] = {
            "query": query,
            "why": why,
            "plan": {
                "paths": list(plan.paths),
                "top_k": plan.top_k,
                "reconstruction": plan.reconstruction,
                "deferred": plan.deferred,
                "note": plan.note,
            },
        }
        if plan.deferred:
            search["outcome"] = f"search deferred by the scheduler ({plan.note or 'no budget now'})"
            return None
        # Stream time restarts with every session, so "before now" bounds the current one;
        # sessions that began earlier (earlier hours, days) are wholly past and are searched
        # whole when retrieval.past_sessions is on.
        retrieval = await self.retriever.retrieve(
            query,
            before_t=ctx.now_t,
            session_id=ctx.session_id,
            plan=plan,
            past_sessions=self.cfg.retrieval.past_sessions,
        )
        notes.timings.update(retrieval.timings_s)
        notes.trace["retrieval"] = retrieval.trace()
        search["outcome"] = "retrieved" if not retrieval.context.empty else "nothing found"
        return retrieval
