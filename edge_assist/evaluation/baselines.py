"""Baseline assistants, run through the same pipeline and scored by the same harness.

They implement the `Assistant` protocol, so `run_replay(..., assistant=...)` plays them
exactly like the real assistant. Every report shows them beside our rows: on
CaptainCook4D, speaking Error Recovery at every caption already reaches a sizeable F1,
so F1 without these rows flatters.
"""

from __future__ import annotations

from edge_assist.events import Decision, SubType
from edge_assist.reasoning.api import SearchGate, StepContext

# Generic on purpose: a trivial policy knows nothing about what went wrong.
ER_EVERY_CAPTION_TEXT = "Check that step against the recipe: something may have gone wrong."


class NeverSpeak:
    """Stays silent at every step: zero false alarms, zero recall."""

    name = "never-speak"

    async def step(self, ctx: StepContext, gate: SearchGate | None = None) -> Decision:
        c = ctx.caption
        return Decision(c.t, ctx.session_id, c.index, c.t0, c.t1, False, reason="baseline: never speak")


class ErrorRecoveryEveryCaption:
    """Speaks an Error Recovery service at every caption."""

    name = "er-every-caption"

    async def step(self, ctx: StepContext, gate: SearchGate | None = None) -> Decision:
        c = ctx.caption
        if ctx.query is not None:
            return Decision(
                c.t,
                ctx.session_id,
                c.index,
                c.t0,
                c.t1,
                False,
                trigger="query",
                reason="baseline: answers no questions",
            )
        return Decision(
            c.t,
            ctx.session_id,
            c.index,
            c.t0,
            c.t1,
            True,
            SubType.ERROR_RECOVERY,
            ER_EVERY_CAPTION_TEXT,
            reason="baseline: Error Recovery at every caption",
        )


BASELINES = {b.name: b for b in (NeverSpeak, ErrorRecoveryEveryCaption)}
