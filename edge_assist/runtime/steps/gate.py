"""The learned gate's decision (`reasoner.decider = "gate"`, and first in "gate+llm").

The gate decides from the tracker's reading whether speaking helps, in milliseconds and
without a language model; a hazard match is an Instant Safety alert with its own words,
and any other alert's sentence is a template from the finding (or the LLM's, checked
against it). With "gate+llm" the cases the gate is unsure of go on to the LLM's passes.
"""

from __future__ import annotations

import time

from edge_assist.events import SubType
from edge_assist.reasoning.api import StepContext
from edge_assist.reasoning.gate_decider import GateDecider, GateVerdict
from edge_assist.reasoning.phrasing import Phraser, repeat_key
from edge_assist.reasoning.policy import InterventionPolicy
from edge_assist.runtime.steps.verdict import StepNotes, Verdict, admit
from edge_assist.tasks.session import Tracked


class GateStep:
    def __init__(self, decider: GateDecider, phraser: Phraser, policy: InterventionPolicy) -> None:
        self.decider = decider
        self.phraser = phraser
        self.policy = policy

    async def decide(self, ctx: StepContext, tracked: Tracked, notes: StepNotes) -> Verdict | None:
        """The gate's verdict, or None when it hands the step to the LLM's first pass."""
        start, cpu = time.perf_counter(), time.thread_time()
        said = self.decider.decide(
            ctx.session_id,
            ctx.caption.t0,
            ctx.caption.t1,
            tracked.state,
            tracked.hazards,
            tracked.vector,
            ctx.caption.text,
        )
        notes.timings["gate"] = time.perf_counter() - start
        notes.timings["gate_cpu"] = time.thread_time() - cpu
        notes.trace["gate"] = said.trace | {"action": said.action}
        if said.action == "silent":
            return Verdict.silent(said.reason)
        if said.action == "speak" and said.sub_type is not None:
            text = await self._words(said, tracked, notes)
            news = self.policy.chattiness != "quiet"
            about, severity = repeat_key(said.finding, tracked.state, late_step_is_news=news), 0
            if said.hazard is not None:
                # The same hazard is one alert while it stays as it is; worse, it is a new one.
                about, severity = f"hazard: {said.hazard.kind}", said.hazard.severity
            score = said.hazard.score if said.hazard is not None else said.probability
            subject = said.finding or (
                tracked.state.missing[0] if tracked.state and tracked.state.missing else None
            )
            return await admit(
                self.policy,
                ctx,
                said.sub_type,
                text,
                said.reason,
                notes,
                about=about,
                severity=severity,
                score=score,
                subject=subject,
            )
        notes.trace["gate"]["handed_to"] = "llm pass 1"
        return None

    async def _words(self, said: GateVerdict, tracked: Tracked, notes: StepNotes) -> str:
        if said.hazard is not None:
            text, how = said.hazard.say, "template (instant)"
        else:
            instant = said.sub_type is SubType.SAFETY
            phrased = await self.phraser.phrase(said.finding, tracked.state, instant=instant)
            notes.timings["phrasing"] = phrased.seconds
            text, how = phrased.text, phrased.how
        notes.trace["phrasing"] = how
        return text
