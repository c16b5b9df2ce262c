"""EgoMemo's passes (`reasoner.decider = "llm"`, and the gate's unsure cases in "gate+llm").

Pass 1 reads the caption, the last few captions, the activity summary and the tracker's
reading, and says silent, respond or search. A search runs as the scheduler's gate allows
(temporal, graph and visual paths at once, bounded by the step's stream time;
reconstruction and fusion), and pass 2 decides on what it found. When pass 1 stays
silent over a finding it was shown, the tracker's own sentence may speak instead
(`reasoner.progress_cue = "speak"`).
"""

from __future__ import annotations

from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.events import Caption, SubType
from edge_assist.inference.base import LLM
from edge_assist.inference.llm_call import call_json
from edge_assist.reasoning import prompts, schemas
from edge_assist.reasoning.api import SearchGate, StepContext
from edge_assist.reasoning.policy import InterventionPolicy
from edge_assist.reasoning.schemas import FirstPass
from edge_assist.runtime.steps.search import StepSearch
from edge_assist.runtime.steps.verdict import StepNotes, Verdict, admit
from edge_assist.tasks.findings import Finding, TrackerState

# With the tracker's reading in the prompt the done steps are already listed: two
# earlier captions suffice for continuity, and every token saved is prompt time on a Pi.
PROGRESS_RECENT = 2


def cue_finding(findings: tuple[Finding, ...], kinds: tuple[str, ...]) -> Finding | None:
    """The tracker finding the progress cue speaks about: the first of the configured kinds."""
    for kind in kinds:
        for f in findings:
            if f.kind == kind:
                return f
    return None


def clip_triple(c: Caption) -> tuple[float, float, str]:
    return (c.t0, c.t1, c.text)


def task_context(ctx: StepContext, cfg: Config) -> str:
    return ctx.task_context or cfg.reasoner.task_context


class LlmPasses:
    def __init__(
        self,
        cfg: Config,
        llm: LLM,
        clock: Clock,
        search: StepSearch,
        policy: InterventionPolicy,
        cue_kinds: tuple[str, ...],
    ) -> None:
        self.cfg = cfg
        self.llm = llm
        self.clock = clock
        self.search = search
        self.policy = policy
        self.cue_kinds = cue_kinds

    async def decide(
        self, ctx: StepContext, state: TrackerState | None, gate: SearchGate | None, notes: StepNotes
    ) -> Verdict:
        first = await self._pass1(ctx, state, notes)
        if isinstance(first, Verdict):
            return first
        notes.trace["pass1"]["action"] = first.action
        if first.action == "silent":
            return await self._silent(ctx, state, first, notes)
        if first.action == "respond":
            assert first.sub_type is not None
            return await admit(self.policy, ctx, first.sub_type, first.text, f"pass 1: {first.why}", notes)
        return await self._search_then_pass2(ctx, first, gate, notes)

    async def _pass1(
        self, ctx: StepContext, state: TrackerState | None, notes: StepNotes
    ) -> FirstPass | Verdict:
        """Pass 1's decision, or a silent verdict when it gave no valid answer."""
        r = self.cfg.reasoner
        recent = list(ctx.recent)[-PROGRESS_RECENT:] if state is not None else list(ctx.recent)
        msgs = prompts.pass1_messages(
            task=task_context(ctx, self.cfg),
            activity_summary=ctx.activity_summary,
            recent=[clip_triple(c) for c in recent],
            now=clip_triple(ctx.caption),
            progress=state.prompt_text() if state is not None else "",
        )
        p1 = await call_json(
            self.llm,
            self.clock,
            "pass 1",
            msgs,
            schemas.pass1_schema(),
            schemas.parse_pass1,
            max_tokens=r.max_tokens,
            temperature=r.temperature,
        )
        notes.timings["pass1"] = p1.seconds
        notes.trace["pass1"] = p1.trace()
        return p1.value if p1.value is not None else Verdict.silent(p1.error)

    async def _silent(
        self, ctx: StepContext, state: TrackerState | None, first: FirstPass, notes: StepNotes
    ) -> Verdict:
        """Pass 1 stayed silent; the progress cue may still speak about a finding it was shown."""
        finding = (
            cue_finding(state.findings, self.cue_kinds)
            if state is not None and self.cfg.reasoner.progress_cue == "speak"
            else None
        )
        if finding is None:
            return Verdict.silent(f"pass 1: silent ({first.why or first.observation})")
        # The model had the findings in its prompt and did not act on them; the
        # tracker's own verdict speaks instead (measured: benchmarks/eval_tracker.py).
        notes.trace["progress_cue"] = finding.to_json()
        reason = f"progress cue: {finding.kind}: {finding.evidence}"
        return await admit(
            self.policy, ctx, SubType.ERROR_RECOVERY, finding.say(), reason, notes, subject=finding
        )

    async def _search_then_pass2(
        self, ctx: StepContext, first: FirstPass, gate: SearchGate | None, notes: StepNotes
    ) -> Verdict:
        r = self.cfg.reasoner
        retrieval = await self.search.run(ctx, first.query, first.why, gate, notes, instant=False)
        if retrieval is None:
            return Verdict.silent(notes.trace["search"]["outcome"])
        msgs = prompts.pass2_messages(
            task=task_context(ctx, self.cfg),
            now=clip_triple(ctx.caption),
            query=first.query,
            why=first.why,
            retrieved=retrieval.context.text,
        )
        p2 = await call_json(
            self.llm,
            self.clock,
            "pass 2",
            msgs,
            schemas.pass2_schema(must_answer=False),
            lambda raw: schemas.parse_pass2(raw, must_answer=False),
            max_tokens=r.max_tokens,
            temperature=r.temperature,
        )
        notes.timings["pass2"] = p2.seconds
        notes.trace["pass2"] = p2.trace()
        if p2.value is None:
            return Verdict.silent(p2.error)
        second = p2.value
        if not second.speak or second.sub_type is None:
            return Verdict.silent(f"pass 2: silent ({second.evidence})")
        return await admit(
            self.policy, ctx, second.sub_type, second.text, f"pass 2: {second.evidence}", notes
        )
