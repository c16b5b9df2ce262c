"""Latency budgets, priorities and cancellation: what may run, and when.

On glasses the CPU is small and the world does not wait. Three mechanisms:

1. **Budgets** (`budgets.py`). Every step (one clip, or one wearer question) gets a
   `StepBudget`: `scheduler.step_budget_s` (shrunk while the glasses report heat or low
   battery), counted from the end of the clip, so the captioner's time is spent from it
   too. When the reasoner asks to search, `Scheduler.request` (the `SearchGate`) prices
   the search with measured section costs and grants it whole, degrades it (no
   reconstruction, then fewer paths, then fewer hits) or defers it to the next idle
   slot, and says which.
2. **Lanes** (`lanes.py`). Every model call runs in a lane, and one call at a time uses
   the CPU-bound models, highest lane first: an instant decision never waits behind a
   search, and roll-ups use idle time.
3. **Measurement.** Per-section latency histograms, real-time factor, degradations,
   deferrals, preemptions and drop counts (`stats()`), for `run --stats` and the log.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from edge_assist.config import Config
from edge_assist.reasoning.api import StepContext
from edge_assist.retrieval.api import PATHS, SearchPlan
from edge_assist.runtime.budgets import CURRENT_STEP, Histogram, StepBudget
from edge_assist.runtime.lanes import LANE, Lane, ModelArbiter

log = logging.getLogger(__name__)

# Measured section costs are smoothed so one slow call does not swing every plan.
EMA_WEIGHT = 0.3


class Scheduler:
    """The SearchGate handed to the assistant, plus budgets, lanes and statistics."""

    def __init__(
        self, cfg: Config, *, available_paths: Sequence[str] = PATHS, arbiter: ModelArbiter | None = None
    ) -> None:
        self.cfg = cfg
        self.arbiter = arbiter or ModelArbiter()
        enabled = {
            "temporal": cfg.retrieval.temporal,
            "graph": cfg.retrieval.graph,
            "visual": cfg.retrieval.visual,
        }
        self.paths = tuple(p for p in PATHS if enabled[p] and p in available_paths)
        self.estimates = {
            "retrieval": cfg.scheduler.retrieval_estimate_s,
            "reconstruction": cfg.scheduler.reconstruction_estimate_s,
            "pass2": cfg.scheduler.pass2_estimate_s,
        }
        # Fraction of the budget the glasses allow now (GlassesStatus.budget_factor: heat, battery).
        self.device_factor = 1.0
        self.histograms: dict[str, Histogram] = {}
        self.counters = {
            "steps": 0,
            "granted": 0,
            "degraded": 0,
            "deferred": 0,
            "deferred_run": 0,
            "preempted_steps": 0,
            "over_budget": 0,
        }
        self.deferred: deque[StepContext] = deque(maxlen=16)
        self.overhead_s = 0.0  # time spent inside the scheduler's own decisions
        self._timer: Callable[[], float] = time.perf_counter
        self._learn = True  # replace the estimates by measured section costs

    def use_stream_time(self, now: Callable[[], float]) -> None:
        """Price searches in stream time, with fixed estimates: what a replay on a virtual clock needs.

        Measured compute times differ from run to run, so a plan priced with them (degrade,
        defer) would make two replays of the same recording send different model requests.
        On a virtual clock compute costs no stream time; budgets then follow stream time
        (scripted delays in tests still count) and the configured estimates. Measurements
        still go to the statistics.
        """
        self._timer = now
        self._learn = False

    # -- device state ------------------------------------------------------------------
    def update_device(self, budget_factor: float) -> None:
        """The glasses report heat or a low battery: spend less per step (factor 0-1)."""
        if budget_factor != self.device_factor:
            log.info("step budget now %.0f%% (glasses status)", 100 * budget_factor)
        self.device_factor = min(1.0, max(0.05, budget_factor))

    def budget_s(self) -> float:
        return self.cfg.scheduler.step_budget_s * self.device_factor

    # -- steps -------------------------------------------------------------------------
    def new_step(self, ctx: StepContext, *, caption_latency_s: float = 0.0) -> StepBudget:
        wall_started = time.perf_counter() - caption_latency_s
        # A caption's latency is measured wall time: part of a live step, not of stream time.
        started = wall_started if self._timer is time.perf_counter else self._timer()
        return StepBudget(
            total_s=self.budget_s(),
            started=started,
            is_query=ctx.query is not None,
            timer=self._timer,
            wall_started=wall_started,
        )

    def record(self, section: str, seconds: float) -> None:
        self.histograms.setdefault(section, Histogram()).add(seconds)

    def step_done(self, budget: StepBudget, timings: dict[str, float]) -> None:
        t0 = time.perf_counter()
        self.counters["steps"] += 1
        for name, seconds in timings.items():
            self.record(name, seconds)
            if self._learn and name in self.estimates and seconds > 0:
                self.estimates[name] = (1 - EMA_WEIGHT) * self.estimates[name] + EMA_WEIGHT * seconds
        # The histogram is about the device (wall time); the budget about the step's own timer.
        self.record("step", time.perf_counter() - budget.wall_started)
        if budget.elapsed_s() > budget.total_s:
            self.counters["over_budget"] += 1
        self.overhead_s += time.perf_counter() - t0

    # -- the SearchGate ----------------------------------------------------------------
    def price(self, plan: SearchPlan) -> float:
        if not plan.paths:
            return self.estimates["pass2"]
        cost = self.estimates["retrieval"] + self.estimates["pass2"]
        if plan.reconstruction:
            # The estimate is for all configured paths (one account each); scale by how many run.
            cost += self.estimates["reconstruction"] * len(plan.paths) / max(1, len(self.paths))
        return cost

    def plan(self, remaining_s: float, *, is_query: bool) -> SearchPlan:
        """The largest search that fits `remaining_s`, or a deferral. Pure: easy to test."""
        k = self.cfg.retrieval.top_k
        full = SearchPlan(paths=self.paths, top_k=k, reconstruction=self.cfg.retrieval.reconstruction)
        if self.price(full) <= remaining_s:
            return full
        if self.cfg.scheduler.search_policy == "defer" and not is_query:
            return replace(
                full,
                deferred=True,
                note=f"deferred: needs ~{self.price(full):.1f} s, {remaining_s:.1f} s left",
            )
        # Degrade step by step: reconstruction is the dearest part, then the visual and
        # graph paths (temporal alone still finds the right moment), then fewer hits.
        order = [p for p in ("temporal", "graph", "visual") if p in self.paths]
        candidates = [replace(full, reconstruction=False)]
        for n in range(len(order) - 1, 0, -1):
            candidates.append(SearchPlan(paths=tuple(order[:n]), top_k=k, reconstruction=False))
        if order:
            candidates.append(SearchPlan(paths=tuple(order[:1]), top_k=max(1, k // 2), reconstruction=False))
        for c in candidates:
            if self.price(c) <= remaining_s:
                shape = f"{'+'.join(c.paths)} k={c.top_k} reconstruction={c.reconstruction}"
                return replace(c, note=f"degraded to {shape}: {remaining_s:.1f} s left")
        if is_query:
            # A wearer waiting for an answer gets the smallest search rather than none.
            return replace(
                candidates[-1], note=f"over budget for a question: smallest search, {remaining_s:.1f} s left"
            )
        return replace(
            full, deferred=True, note=f"deferred: even the smallest search does not fit {remaining_s:.1f} s"
        )

    async def request(self, query: str, *, instant: bool = False) -> SearchPlan:
        t0 = time.perf_counter()
        budget = CURRENT_STEP.get()
        remaining = budget.remaining_s() if budget is not None else float("inf")
        is_query = budget.is_query if budget is not None else instant
        plan = self.plan(remaining, is_query=is_query)
        if plan.deferred:
            self.counters["deferred"] += 1
        elif plan.note:
            self.counters["degraded"] += 1
        else:
            self.counters["granted"] += 1
        if budget is not None:
            budget.plan_note = plan.note
            budget.deferred = plan.deferred
        if plan.note:
            log.info("search %r: %s", query[:60], plan.note)
        # From here on this step's model calls yield to new captions and questions.
        LANE.set(Lane.ANSWER if is_query else Lane.SEARCH)
        self.overhead_s += time.perf_counter() - t0
        return plan

    def defer(self, ctx: StepContext) -> None:
        self.deferred.append(ctx)

    def stats(self) -> dict[str, Any]:
        return {
            "budget_s": round(self.budget_s(), 3),
            "estimates_s": {k: round(v, 4) for k, v in self.estimates.items()},
            "counters": dict(self.counters)
            | {
                "model_preemptions": self.arbiter.preemptions,
                "background_forced": self.arbiter.background_forced,
            },
            "sections": {k: h.to_json() for k, h in sorted(self.histograms.items())},
            "overhead_s": round(self.overhead_s, 6),
        }


class GrantedGate:
    """A SearchGate for an idle slot: the whole search, no budget (deferred searches)."""

    def __init__(self, plan: SearchPlan) -> None:
        self._plan = plan

    async def request(self, query: str, *, instant: bool = False) -> SearchPlan:
        LANE.set(Lane.SEARCH)
        return self._plan
