"""The real assistant: one step per caption, or per question.

Proactive step: the step tracker reads the caption against the task; by default
(`reasoner.decider = "gate"`) the learned gate decides from its reading whether speaking
helps, a hazard match is an Instant Safety alert, and the sentence is a template from the
finding (or the LLM's, checked against it). With "llm" EgoMemo's pass 1 decides: silent,
respond, or search (the scheduler's gate says what may run; temporal, graph and visual
paths at once, bounded by the step's stream time; reconstruction and fusion) and pass 2
decides on that evidence; "gate+llm" hands the gate's unsure cases to pass 1. The policy
may still suppress the response; the reason is kept.

Reactive step (the wearer asked): progress questions are answered by the tracker, others
by a grounded answer (`answering.py`) or, with `reasoner.answerer = "free"`, the earlier
free-written path. Offline questions over a store: `reasoning/offline_answer.py`.

Every step fills `Decision.timings_s` per section and `Decision.trace` with what each
pass saw and said, what each path found and when it ran.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from edge_assist.answers.grounded import GroundedAnswerer
from edge_assist.answers.offline import NO_ANSWER, Answer, OfflineAnswerer, cited_clips, nonempty
from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.errors import ConfigError
from edge_assist.events import Decision, SubType
from edge_assist.inference.base import LLM, VLM, ImageEncoder, TextEncoder
from edge_assist.inference.llm_call import call_json
from edge_assist.memory.api import CaptionRecord, MemoryReader
from edge_assist.outputs.trace_format import TRACE_VERSION
from edge_assist.reasoning import answer_text, prompts, schemas
from edge_assist.reasoning.api import SearchGate, StepContext
from edge_assist.reasoning.gate import SHIPPED, Gate
from edge_assist.reasoning.gate_decider import GateDecider
from edge_assist.reasoning.hazards import HazardMatcher
from edge_assist.reasoning.phrasing import Phraser, repeat_key
from edge_assist.reasoning.policy import InterventionPolicy
from edge_assist.retrieval.api import SearchPlan
from edge_assist.retrieval.fusion import RetrievedContext
from edge_assist.retrieval.recall import Recall
from edge_assist.retrieval.retriever import Retrieval, Retriever
from edge_assist.runtime.budgets import CURRENT_STEP
from edge_assist.tasks.findings import KINDS, Finding
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.session import TaskSession
from edge_assist.tasks.vector_file import FILE_NAME as VECTOR_FILE

log = logging.getLogger(__name__)

PROGRESS_RECENT = 2


def cue_finding(findings: tuple[Finding, ...], kinds: tuple[str, ...]) -> Finding | None:
    """The tracker finding the progress cue speaks about: the first of the configured kinds."""
    for kind in kinds:
        for f in findings:
            if f.kind == kind:
                return f
    return None


def _triple(c: Any) -> tuple[float, float, str]:
    return (c.t0, c.t1, c.text)


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
        self.llm = llm
        self.text_encoder = text_encoder
        self.memory = memory
        self.clock = clock
        self.retriever = Retriever(
            cfg, memory, llm=llm, text_encoder=text_encoder, clock=clock, vlm=vlm, image_encoder=image_encoder
        )
        self.policy = InterventionPolicy(cfg.policy, text_encoder=text_encoder, clock=clock)
        kinds = tuple(k.strip() for k in cfg.reasoner.cue_findings.split(",") if k.strip())
        bad = [k for k in kinds if k not in KINDS]
        if bad:
            raise ConfigError(
                f"reasoner.cue_findings: unknown finding kind {bad[0]!r} (known: {', '.join(KINDS)})"
            )
        self.cue_kinds = kinds
        self.tasks = TaskSession(
            library if library is not None else TaskLibrary.load([cfg.data_path("tasks")]),
            text_encoder,
            clock,
            vector_path=cfg.data_path(VECTOR_FILE),  # step and hazard vectors of earlier starts
        )
        r = cfg.reasoner
        hazards = HazardMatcher.load(text_encoder, vector_file=self.tasks.vector_file) if r.hazards else None
        self.decider = None
        if r.decider != "llm":
            gate = Gate.load(r.gate_file or SHIPPED)
            self.decider = GateDecider(
                gate,
                hazards,
                chattiness=cfg.policy.chattiness,
                llm_too=r.decider == "gate+llm",
                unsure_band=r.unsure_band,
            )
        self.phraser = Phraser(
            llm, text_encoder, clock, use_llm=r.phrasing == "llm", time_left_s=_time_left_s
        )
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
        self.offline = OfflineAnswerer(cfg, llm, text_encoder, recall, clock, self.retriever, self.grounded)

    async def warm(self, task: str = "", task_context: str = "") -> None:
        """What the first step would otherwise pay for: the step vectors of the task."""
        await self.clock.run_blocking(
            self.tasks.warm, task or self.cfg.reasoner.task, task_context or self.cfg.reasoner.task_context
        )

    # -- one step ------------------------------------------------------------------
    async def step(self, ctx: StepContext, gate: SearchGate | None = None) -> Decision:
        started = time.perf_counter()
        timings: dict[str, float] = {}
        cap = ctx.caption
        trace: dict[str, Any] = {
            "version": TRACE_VERSION,
            "prompt_version": prompts.PROMPT_VERSION,
            "assistant": self.name,
            "session_id": ctx.session_id,
            "clip_index": cap.index,
            "t0": cap.t0,
            "t1": cap.t1,
            "now_t": ctx.now_t,
            "caption": cap.text,
            "query": ctx.query.text if ctx.query else None,
            "trigger": "query" if ctx.query else "proactive",
        }
        if ctx.query is not None:
            decision = await self._reactive(ctx, gate, timings, trace)
        else:
            decision = await self._proactive(ctx, gate, timings, trace)
        total = time.perf_counter() - started
        timings["total"] = total
        return Decision(
            t=self.clock.now(),
            session_id=ctx.session_id,
            clip_index=cap.index,
            stream_t0=cap.t0,
            stream_t1=cap.t1,
            latency_s=total,
            timings_s=timings,
            trace=trace,
            **decision,
        )

    def _task(self, ctx: StepContext) -> str:
        return ctx.task_context or self.cfg.reasoner.task_context

    async def _proactive(
        self, ctx: StepContext, gate: SearchGate | None, timings: dict[str, float], trace: dict[str, Any]
    ) -> dict[str, Any]:
        r = self.cfg.reasoner
        start = time.perf_counter()
        reading = await self.tasks.observe(
            ctx.session_id,
            ctx.caption.text,
            task_name=ctx.task or r.task,
            task_context=self._task(ctx),
            index=ctx.caption.index,
            earlier=tuple((c.index, c.text) for c in ctx.recent),
        )
        timings["tracker"] = time.perf_counter() - start
        timings["tracker_cpu"] = self.tasks.last_cpu_s
        state = reading.state if reading is not None else None
        if reading is not None:
            trace["task"] = reading.to_json()
        # With the tracker's reading in the prompt the done steps are already listed: two
        # earlier captions suffice for continuity, and every token saved is prompt time on a Pi.
        if self.decider is not None:
            start, cpu = time.perf_counter(), time.thread_time()
            vec = self.tasks.vectors.get([ctx.caption.text])[0]
            verdict = self.decider.decide(
                ctx.session_id,
                ctx.caption.t0,
                ctx.caption.t1,
                state,
                self.tasks.step_hazards(state.step_id) if state is not None else (),
                vec,
            )
            timings["gate"] = time.perf_counter() - start
            timings["gate_cpu"] = time.thread_time() - cpu
            trace["gate"] = verdict.trace | {"action": verdict.action}
            if verdict.action == "silent":
                return {"speak": False, "reason": verdict.reason}
            if verdict.action == "speak" and verdict.sub_type is not None:
                instant = verdict.sub_type is SubType.SAFETY
                if verdict.hazard is not None:
                    text, how = verdict.hazard.say, "template (instant)"
                else:
                    phrased = await self.phraser.phrase(verdict.finding, state, instant=instant)
                    timings["phrasing"] = phrased.seconds
                    text, how = phrased.text, phrased.how
                trace["phrasing"] = how
                return await self._admit(
                    ctx,
                    verdict.sub_type,
                    text,
                    verdict.reason,
                    timings,
                    trace,
                    about=repeat_key(verdict.finding, state),
                )
            trace["gate"]["handed_to"] = "llm pass 1"
        recent = list(ctx.recent)[-PROGRESS_RECENT:] if state is not None else list(ctx.recent)
        msgs = prompts.pass1_messages(
            task=self._task(ctx),
            activity_summary=ctx.activity_summary,
            recent=[_triple(c) for c in recent],
            now=_triple(ctx.caption),
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
        timings["pass1"] = p1.seconds
        trace["pass1"] = p1.trace()
        if p1.value is None:
            return {"speak": False, "reason": p1.error}
        first = p1.value
        trace["pass1"]["action"] = first.action
        if first.action == "silent":
            finding = (
                cue_finding(state.findings, self.cue_kinds)
                if state is not None and r.progress_cue == "speak"
                else None
            )
            if finding is not None:
                # The model had the findings in its prompt and did not act on them; the
                # tracker's own verdict speaks instead (measured: benchmarks/eval_tracker.py).
                trace["progress_cue"] = finding.to_json()
                return await self._admit(
                    ctx,
                    SubType.ERROR_RECOVERY,
                    finding.say(),
                    f"progress cue: {finding.kind}: {finding.evidence}",
                    timings,
                    trace,
                )
            return {"speak": False, "reason": f"pass 1: silent ({first.why or first.observation})"}
        if first.action == "respond":
            assert first.sub_type is not None
            return await self._admit(ctx, first.sub_type, first.text, f"pass 1: {first.why}", timings, trace)

        retrieval = await self._search(ctx, first.query, first.why, gate, timings, trace, instant=False)
        if retrieval is None:
            return {"speak": False, "reason": trace["search"]["outcome"]}
        msgs = prompts.pass2_messages(
            task=self._task(ctx),
            now=_triple(ctx.caption),
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
        timings["pass2"] = p2.seconds
        trace["pass2"] = p2.trace()
        if p2.value is None:
            return {"speak": False, "reason": p2.error}
        second = p2.value
        if not second.speak or second.sub_type is None:
            return {"speak": False, "reason": f"pass 2: silent ({second.evidence})"}
        return await self._admit(
            ctx, second.sub_type, second.text, f"pass 2: {second.evidence}", timings, trace
        )

    async def _admit(
        self,
        ctx: StepContext,
        sub_type: SubType,
        text: str,
        reason: str,
        timings: dict[str, float],
        trace: dict[str, Any],
        *,
        about: str = "",
    ) -> dict[str, Any]:
        start = time.perf_counter()
        verdict = await self.policy.admit(
            session_id=ctx.session_id,
            sub_type=sub_type,
            text=text,
            now_t=ctx.caption.t1,
            trigger="proactive",
            about=about,
        )
        timings["policy"] = time.perf_counter() - start
        trace["policy"] = {"allowed": verdict.allowed, "reason": verdict.reason}
        return {
            "speak": verdict.allowed,
            "sub_type": sub_type,
            "text": text,
            "reason": reason,
            "suppressed_by": verdict.reason,
        }

    async def _search(
        self,
        ctx: StepContext,
        query: str,
        why: str,
        gate: SearchGate | None,
        timings: dict[str, float],
        trace: dict[str, Any],
        *,
        instant: bool,
    ) -> Retrieval | None:
        """Ask the gate, then retrieve. None when the search is deferred or nothing may run."""
        plan = self.retriever.default_plan()
        if gate is not None:
            start = time.perf_counter()
            granted = await gate.request(query, instant=instant)
            timings["gate"] = time.perf_counter() - start
            plan = SearchPlan(
                paths=tuple(p for p in granted.paths if p in plan.paths),
                top_k=min(granted.top_k, plan.top_k),
                reconstruction=granted.reconstruction and plan.reconstruction,
                deferred=granted.deferred,
                note=granted.note,
            )
        trace["search"] = {
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
            trace["search"]["outcome"] = f"search deferred by the scheduler ({plan.note or 'no budget now'})"
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
        timings.update(retrieval.timings_s)
        trace["retrieval"] = retrieval.trace()
        trace["search"]["outcome"] = "retrieved" if not retrieval.context.empty else "nothing found"
        return retrieval

    async def _reactive(
        self, ctx: StepContext, gate: SearchGate | None, timings: dict[str, float], trace: dict[str, Any]
    ) -> dict[str, Any]:
        assert ctx.query is not None
        r = self.cfg.reasoner
        question = ctx.query.text
        # "What's next?", "what did I miss?", "how far am I?": the tracker knows, at once.
        start = time.perf_counter()
        told = await self.tasks.answer(ctx.session_id, question)
        timings["tracker"] = time.perf_counter() - start
        if told is not None:
            trace["task_answer"] = told
            return self._answer_fields(told, "", "task tracker")
        if r.answerer == "grounded":
            # The captions in view count as memory too: the writer may not have stored them yet.
            in_view = [
                CaptionRecord(c.session_id, c.index, c.t0, c.t1, c.text) for c in (*ctx.recent, ctx.caption)
            ]
            ga = await self.grounded.answer(
                question,
                before_t=ctx.now_t,
                session_id=ctx.session_id,
                past_sessions=self.cfg.retrieval.past_sessions,
                in_view=in_view,
            )
            timings.update({f"answer.{k}": v for k, v in ga.timings_s.items() if k != "total"})
            trace["answer"] = {**ga.trace, "cited_clips": cited_clips(ga)}
            reason = f"grounded: {ga.trace.get('outcome', '')}"
            return self._answer_fields(ga.text, "", reason)
        query = question
        why = "the wearer asked"
        if r.query_search == "auto":
            msgs = prompts.query_pass1_messages(
                task=self._task(ctx),
                recent=[_triple(c) for c in ctx.recent],
                now=_triple(ctx.caption),
                question=question,
            )
            p1 = await call_json(
                self.llm,
                self.clock,
                "pass 1 (question)",
                msgs,
                schemas.query_pass1_schema(),
                lambda raw: schemas.parse_query_pass1(raw, question),
                max_tokens=r.max_tokens,
                temperature=r.temperature,
            )
            timings["pass1"] = p1.seconds
            trace["pass1"] = p1.trace()
            if p1.value is not None and p1.value.action == "respond":
                # Answered from the captions in view: those are the clips it rests on.
                shown = [*ctx.recent, ctx.caption]
                cite = "seen at " + ", ".join(prompts.clip_time(c.t0, c.t1) for c in shown[-3:])
                return self._answer_fields(p1.value.text, cite, "pass 1")
            if p1.value is not None:
                query, why = p1.value.query, p1.value.why or why
        else:
            trace["pass1"] = {"skipped": "reasoner.query_search = always: a question goes to memory first"}
        retrieval = await self._search(ctx, query, why, gate, timings, trace, instant=True)
        context = retrieval.context if retrieval is not None else RetrievedContext()
        msgs = prompts.answer_messages(task=self._task(ctx), question=question, retrieved=context.text)
        p2 = await call_json(
            self.llm,
            self.clock,
            "pass 2 (answer)",
            msgs,
            schemas.answer_schema(),
            lambda raw: nonempty(answer_text.grammar_cut(str(raw.get("the_answer", "")), schemas.SAY_CHARS)),
            max_tokens=r.max_tokens,
            temperature=r.temperature,
        )
        timings["pass2"] = p2.seconds
        trace["pass2"] = p2.trace()
        text = p2.value or NO_ANSWER
        return self._answer_fields(
            text, context.citation(), "pass 2" if p2.value else (p2.error or "no answer")
        )

    @staticmethod
    def _answer_fields(text: str, citation: str, reason: str) -> dict[str, Any]:
        spoken = f"{text} ({citation})" if citation else text
        # An answer is not a proactive service, so it has no sub-type: the trigger says it was
        # asked, which gives it answer priority and keeps it out of proactive scoring.
        return {"speak": True, "sub_type": None, "text": spoken, "reason": reason, "trigger": "query"}

    # -- questions over a store (ask) ---------------------------------------------------
    async def answer(
        self,
        question: str,
        *,
        choices: tuple[str, ...] = (),
        before_t: float = math.inf,
        session_id: str | None = None,
        past_sessions: bool = False,
    ) -> Answer:
        """A question over what memory holds (`edge-assist ask`, `eval qa`): offline_answer.py.
        `past_sessions`: the sessions before `session_id` are searched too, as its past."""
        return await self.offline.answer(
            question, choices=choices, before_t=before_t, session_id=session_id, past_sessions=past_sessions
        )


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
