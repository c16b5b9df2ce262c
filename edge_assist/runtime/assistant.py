"""The real assistant: one step per caption, or per question.

A caption is a proactive step (`steps/proactive.py`): the step tracker reads it against
the task, then the configured decider (the learned gate, EgoMemo's LLM passes, or both)
says whether to speak, and the intervention policy has the last word. A wearer's question
is a reactive step (`steps/questions.py`). Either returns a `Verdict`, stamped here as the
step's `Decision` with `timings_s` per section and `trace` (what each pass saw and said,
what each path found and when it ran). Questions over a whole store (`edge-assist ask`,
`eval qa`) go to `answers/offline.py`.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from edge_assist.answers.answered import Answer
from edge_assist.answers.conversation import Conversation
from edge_assist.answers.grounded import GroundedAnswerer
from edge_assist.answers.offline import OfflineAnswerer
from edge_assist.answers.procedure import ProcedureAnswers
from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.errors import ConfigError
from edge_assist.events import Decision
from edge_assist.inference.base import LLM, VLM, ImageEncoder, TextEncoder
from edge_assist.memory.api import MemoryReader
from edge_assist.outputs.trace_format import TRACE_VERSION
from edge_assist.reasoning import prompts
from edge_assist.reasoning.api import SearchGate, StepContext
from edge_assist.reasoning.gate import SHIPPED, Gate
from edge_assist.reasoning.gate_decider import GateDecider
from edge_assist.reasoning.hazard_phrases import HazardMatcher
from edge_assist.reasoning.hazards import HazardDetector
from edge_assist.reasoning.phrasing import Phraser
from edge_assist.reasoning.policy import InterventionPolicy
from edge_assist.retrieval.recall import Recall
from edge_assist.retrieval.retriever import Retriever
from edge_assist.runtime.budgets import CURRENT_STEP
from edge_assist.runtime.steps.gate import GateStep
from edge_assist.runtime.steps.passes import LlmPasses
from edge_assist.runtime.steps.proactive import ProactiveStep
from edge_assist.runtime.steps.questions import QuestionStep
from edge_assist.runtime.steps.search import StepSearch
from edge_assist.runtime.steps.verdict import StepNotes
from edge_assist.tasks.findings import KINDS
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.session import TaskSession
from edge_assist.tasks.vector_file import FILE_NAME as VECTOR_FILE

log = logging.getLogger(__name__)


def cue_kinds(cfg: Config) -> tuple[str, ...]:
    """The finding kinds the progress cue may speak about (`reasoner.cue_findings`)."""
    kinds = tuple(k.strip() for k in cfg.reasoner.cue_findings.split(",") if k.strip())
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ConfigError(
            f"reasoner.cue_findings: unknown finding kind {bad[0]!r} (known: {', '.join(KINDS)})"
        )
    return kinds


def trace_head(assistant: str, ctx: StepContext) -> dict[str, Any]:
    """What every step's trace starts with: the step and what it was about."""
    cap = ctx.caption
    return {
        "version": TRACE_VERSION,
        "prompt_version": prompts.PROMPT_VERSION,
        "assistant": assistant,
        "session_id": ctx.session_id,
        "clip_index": cap.index,
        "t0": cap.t0,
        "t1": cap.t1,
        "now_t": ctx.now_t,
        "caption": cap.text,
        "query": ctx.query.text if ctx.query else None,
        "trigger": "query" if ctx.query else "proactive",
    }


class EgoMemoAssistant:
    name = "egomemo"

    def __init__(
        self,
        cfg: Config,
        llm: LLM,
        text_encoder: TextEncoder,
        memory: MemoryReader,
        *,
        clock: Clock,
        vlm: VLM | None = None,
        image_encoder: ImageEncoder | None = None,
        library: TaskLibrary | None = None,
    ) -> None:
        self.cfg = cfg
        self.clock = clock
        retriever = Retriever(
            cfg, memory, llm=llm, text_encoder=text_encoder, clock=clock, vlm=vlm, image_encoder=image_encoder
        )
        policy = InterventionPolicy(cfg.policy, text_encoder=text_encoder, clock=clock)
        kinds = cue_kinds(cfg)
        self.tasks = TaskSession(
            library if library is not None else TaskLibrary.load([cfg.data_path("tasks")]),
            text_encoder,
            clock,
            vector_path=cfg.data_path(VECTOR_FILE),  # step and hazard vectors of earlier starts
        )
        hazards, phrases = None, None
        if cfg.reasoner.hazards:
            hazards = HazardDetector.load(text_encoder, vector_file=self.tasks.vector_file)
            # The shipped gate file was trained on the phrase list's cosine; it still reads it.
            phrases = HazardMatcher.load(text_encoder, vector_file=self.tasks.vector_file)
        recall = Recall(memory)
        self.grounded = GroundedAnswerer(
            cfg,
            llm,
            text_encoder,
            recall,
            clock=clock,
            library=self.tasks.library,
            vectors=self.tasks.vectors,
        )
        procedure = ProcedureAnswers(self.tasks, text_encoder, recall, clock)
        self.offline = OfflineAnswerer(
            cfg, llm, text_encoder, recall, clock, retriever, self.grounded, procedure
        )
        search = StepSearch(cfg, retriever)
        passes = LlmPasses(cfg, llm, clock, search, policy, kinds)
        gate = _gate_step(cfg, llm, text_encoder, clock, policy, hazards, phrases)
        self.proactive = ProactiveStep(cfg, self.tasks, gate, passes)
        self.questions = QuestionStep(cfg, llm, clock, self.tasks, self.grounded, search)

    async def warm(self, task: str = "", task_context: str = "") -> None:
        """What the first step would otherwise pay for: the step vectors of the task."""
        await self.clock.run_blocking(
            self.tasks.warm, task or self.cfg.reasoner.task, task_context or self.cfg.reasoner.task_context
        )

    async def step(self, ctx: StepContext, gate: SearchGate | None = None) -> Decision:
        started = time.perf_counter()
        notes = StepNotes(trace=trace_head(self.name, ctx))
        if ctx.query is not None:
            verdict = await self.questions.run(ctx, gate, notes)
        else:
            verdict = await self.proactive.run(ctx, gate, notes)
        total = time.perf_counter() - started
        notes.timings["total"] = total
        decision = verdict.decision(
            t=self.clock.now(), caption=ctx.caption, session_id=ctx.session_id, latency_s=total, notes=notes
        )
        return decision if ctx.query is None else self.questions.stamp(decision, ctx)

    async def answer(
        self,
        question: str,
        *,
        choices: tuple[str, ...] = (),
        before_t: float = math.inf,
        session_id: str | None = None,
        past_sessions: bool = False,
        conversation: Conversation | None = None,
        asked_at: float | None = None,
        task: str = "",
        task_context: str = "",
    ) -> Answer:
        """A question over what memory holds (`edge-assist ask`, `eval qa`): answers/offline.py.
        `past_sessions`: the sessions before `session_id` are searched too, as its past.
        `conversation`: the turns before it, so a follow-up ("and after that?") leans on the
        last answer; the question and its answer are added to it. `asked_at`: when it was
        asked on the conversation's clock (default: that clock's now). `task`, `task_context`:
        the session's task as its stream names it, for procedure questions ("what's next?"),
        which replay the tracker over the session as live would have read it."""
        return await self.offline.answer(
            question,
            choices=choices,
            before_t=before_t,
            session_id=session_id,
            past_sessions=past_sessions,
            conversation=conversation,
            asked_at=asked_at,
            task=task,
            task_context=task_context,
        )


def _gate_step(
    cfg: Config,
    llm: LLM,
    text_encoder: TextEncoder,
    clock: Clock,
    policy: InterventionPolicy,
    hazards: HazardDetector | None,
    phrases: HazardMatcher | None = None,
) -> GateStep | None:
    """The learned gate with its hazards and phrasing; None when the LLM's passes decide alone."""
    r = cfg.reasoner
    if r.decider == "llm":
        return None
    decider = GateDecider(
        Gate.load(r.gate_file or SHIPPED),
        hazards,
        chattiness=cfg.policy.chattiness,
        llm_too=r.decider == "gate+llm",
        unsure_band=r.unsure_band,
        phrases=phrases,
    )
    phraser = Phraser(llm, text_encoder, clock, use_llm=r.phrasing == "llm", time_left_s=_time_left_s)
    return GateStep(decider, phraser, policy)


def _time_left_s() -> float | None:
    budget = CURRENT_STEP.get()
    return budget.remaining_s() if budget is not None else None


def build_assistant(
    cfg: Config,
    llm: LLM,
    text_encoder: TextEncoder,
    memory: MemoryReader,
    *,
    vlm: VLM | None = None,
    image_encoder: ImageEncoder | None = None,
    clock: Clock,
) -> EgoMemoAssistant:
    """The assistant the app, `ask` and the evaluation run."""
    return EgoMemoAssistant(cfg, llm, text_encoder, memory, clock=clock, vlm=vlm, image_encoder=image_encoder)
