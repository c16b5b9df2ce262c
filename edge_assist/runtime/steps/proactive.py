"""The proactive step, one per caption: the step tracker reads the caption against the
task, then the configured decider says whether to speak: the learned gate ("gate", the
default), EgoMemo's LLM passes ("llm"), or the gate with its unsure cases handed to the
passes ("gate+llm"). The intervention policy may still hold a response back; the reason
is kept. A step that says nothing may say an alert a cooldown held back earlier, when its
finding still stands in the tracker's reading now."""

from __future__ import annotations

import time

from edge_assist.config import Config
from edge_assist.reasoning.api import SearchGate, StepContext
from edge_assist.reasoning.task_alerts import TaskBasis
from edge_assist.runtime.steps.gate import GateStep
from edge_assist.runtime.steps.passes import LlmPasses, task_context
from edge_assist.runtime.steps.verdict import StepNotes, Verdict, reoffer
from edge_assist.tasks.session import TaskSession, Tracked


class ProactiveStep:
    def __init__(self, cfg: Config, tasks: TaskSession, gate: GateStep | None, passes: LlmPasses) -> None:
        self.cfg = cfg
        self.tasks = tasks
        self.gate = gate  # None: the LLM's passes decide alone
        self.passes = passes

    async def run(self, ctx: StepContext, search_gate: SearchGate | None, notes: StepNotes) -> Verdict:
        tracked = await self._track(ctx, notes)
        verdict = await self._decide(ctx, tracked, search_gate, notes)
        if verdict.speak:
            return verdict
        # Nothing said this step: an alert a cooldown held back may be due now.
        again = await reoffer(self.passes.policy, ctx, tracked.state, notes)
        return again if again is not None else verdict

    async def _decide(
        self, ctx: StepContext, tracked: Tracked, search_gate: SearchGate | None, notes: StepNotes
    ) -> Verdict:
        if self.gate is not None:
            verdict = await self.gate.decide(ctx, tracked, notes)
            if verdict is not None:
                return verdict
        return await self.passes.decide(ctx, tracked.state, search_gate, notes)

    async def _track(self, ctx: StepContext, notes: StepNotes) -> Tracked:
        start = time.perf_counter()
        tracked = await self.tasks.track(
            ctx.session_id,
            ctx.caption.text,
            task_name=ctx.task or self.cfg.reasoner.task,
            task_context=task_context(ctx, self.cfg),
            index=ctx.caption.index,
            earlier=tuple((c.index, c.text) for c in ctx.recent),
        )
        notes.timings["tracker"] = time.perf_counter() - start
        notes.timings["tracker_cpu"] = tracked.cpu_s
        if tracked.reading is not None:
            notes.trace["task"] = tracked.reading.to_json()
        reading = tracked.reading
        notes.task = (
            TaskBasis(reading.state.task, reading.source, "", reading.state.step_id, reading.state.similarity)
            if reading is not None
            else TaskBasis()
        )
        return tracked
