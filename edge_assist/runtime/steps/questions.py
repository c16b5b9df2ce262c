"""The reactive step: the wearer asked. A follow-up ("and after that?", "how long ago?",
"and the salt?") is read against the conversation first (`answers/follow_ups.py`).
Procedure questions ("what's next?", "what did I miss?", "how far am I?", "which recipe
am I making?") are answered by the tracker at once; a time named ("what was I doing two
minutes in?") by the moment then (`answers/at_time.py`); quantities ("how many eggs did I
use?") from the amounts in the captions (`answers/quantities.py`); others by a grounded
answer (`answers/grounded.py`) or, with `reasoner.answerer = "free"`, the free-written
path: a first pass that answers from the captions in view or asks memory, then an answer
written from what the search found. Offline questions over a store: `answers/offline.py`.
"""

from __future__ import annotations

import time
from dataclasses import replace

from edge_assist.answers import follow_ups
from edge_assist.answers.answer_record import cited_clips
from edge_assist.answers.at_time import TimeAnswers, named_time
from edge_assist.answers.conversation import Conversation, Turn
from edge_assist.answers.grounded import GroundedAnswerer
from edge_assist.answers.offline import NO_ANSWER, nonempty
from edge_assist.answers.procedure import TaskQuestion, task_title_answer
from edge_assist.answers.quantities import QuantityAnswers
from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.events import Decision
from edge_assist.inference.base import LLM
from edge_assist.inference.llm_call import call_json
from edge_assist.memory.api import CaptionRecord
from edge_assist.reasoning import answer_text, prompts, schemas
from edge_assist.reasoning.api import SearchGate, StepContext
from edge_assist.reasoning.schemas import FirstPass
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.fusion import RetrievedContext
from edge_assist.runtime.steps.passes import clip_triple, task_context
from edge_assist.runtime.steps.search import StepSearch
from edge_assist.runtime.steps.verdict import StepNotes, Verdict
from edge_assist.tasks.question_kinds import QuestionKinds
from edge_assist.tasks.session import TaskSession
from edge_assist.text.question_voice import as_wearers
from edge_assist.text.spoken_questions import plain


class QuestionStep:
    def __init__(
        self,
        cfg: Config,
        llm: LLM,
        clock: Clock,
        tasks: TaskSession,
        grounded: GroundedAnswerer,
        search: StepSearch,
    ) -> None:
        self.cfg = cfg
        self.llm = llm
        self.clock = clock
        self.tasks = tasks
        self.grounded = grounded
        self.search = search
        self.task_question = TaskQuestion(tasks.vectors)
        self.kinds = QuestionKinds(tasks.vectors)
        self.quantities = QuantityAnswers(grounded.recall, clock)
        self.at_time = TimeAnswers(grounded.recall, clock)
        # The wearer's last questions, on the pipeline's clock (stream time in a replay).
        self.conversation = Conversation(now=clock.now)

    async def run(self, ctx: StepContext, gate: SearchGate | None, notes: StepNotes) -> Verdict:
        assert ctx.query is not None
        asked = ctx.query.text
        # Said plain first, as `ask` says it: speech's fillers and terse forms read as questions.
        res = await follow_ups.resolve(
            self.conversation,
            plain(asked),
            at=ctx.query.t,
            recall=self.grounded.recall,
            clock=self.clock,
            before_t=ctx.now_t,
            kinds=self.kinds,
            said=asked,
        )
        if res.follow is not None:
            notes.trace["follow_up"] = {
                "kind": res.follow.kind,
                "asked_as": res.question,
                "outcome": res.outcome,
            }
        if res.reply is not None:
            verdict, moment = Verdict.answer(res.reply, "", f"conversation: {res.outcome}"), res.moment
        else:
            verdict, moment = await self._route(ctx, as_wearers(res.question), gate, notes)
        if res.keep:
            turn = Turn(asked, res.question, verdict.text, ctx.query.t, ctx.session_id, ctx.now_t, moment)
            self.conversation.add(turn)
        return verdict

    async def _route(
        self, ctx: StepContext, question: str, gate: SearchGate | None, notes: StepNotes
    ) -> tuple[Verdict, Moment | None]:
        # "What's next?", "what did I miss?", "how far am I?": the tracker knows, at once.
        start = time.perf_counter()
        # "What was I doing a minute in?" names a time: memory's, not the task's.
        at_a_time = named_time(question) is not None
        told = None if at_a_time else await self.tasks.answer(ctx.session_id, question)
        if (
            told is None
            and not at_a_time
            and await self.clock.run_blocking(self.task_question.asks_task, question)
        ):
            told = await task_title_answer(self.tasks, ctx.session_id, question)
        notes.timings["tracker"] = time.perf_counter() - start
        if told is not None:
            notes.trace["task_answer"] = told
            return Verdict.answer(told, "", "task tracker"), None
        start = time.perf_counter()
        at_time = await self.at_time.answer(question, session_id=ctx.session_id, before_t=ctx.now_t)
        counted = at_time or await self.quantities.answer(
            question, session_id=ctx.session_id, before_t=ctx.now_t, in_view=_in_view(ctx)
        )
        notes.timings["quantities"] = time.perf_counter() - start
        if counted is not None:
            text, moment, why = counted
            notes.trace["quantity"] = why
            return Verdict.answer(text, "", f"quantities: {why.get('outcome', '')}"), moment
        if self.cfg.reasoner.answerer == "grounded":
            return await self._grounded(ctx, question, notes)
        return await self._free(ctx, question, gate, notes), None

    @staticmethod
    def stamp(decision: Decision, ctx: StepContext) -> Decision:
        """The answer carries the question and the moment it was asked, not the last clip's end."""
        assert ctx.query is not None
        return replace(decision, t=ctx.query.t, stream_t1=asked_stream_t(ctx), question=ctx.query.text)

    async def _grounded(
        self, ctx: StepContext, question: str, notes: StepNotes
    ) -> tuple[Verdict, Moment | None]:
        ga = await self.grounded.answer(
            question,
            before_t=ctx.now_t,
            session_id=ctx.session_id,
            past_sessions=self.cfg.retrieval.past_sessions,
            in_view=_in_view(ctx),
        )
        notes.timings.update({f"answer.{k}": v for k, v in ga.timings_s.items() if k != "total"})
        notes.trace["answer"] = {**ga.trace, "cited_clips": cited_clips(ga)}
        return Verdict.answer(ga.text, "", f"grounded: {ga.trace.get('outcome', '')}"), ga.moment

    async def _free(
        self, ctx: StepContext, question: str, gate: SearchGate | None, notes: StepNotes
    ) -> Verdict:
        query, why = question, "the wearer asked"
        if self.cfg.reasoner.query_search == "auto":
            first = await self._pass1(ctx, question, notes)
            if first is not None and first.action == "respond":
                # Answered from the captions in view: those are the clips it rests on.
                shown = [*ctx.recent, ctx.caption]
                cite = "seen at " + ", ".join(prompts.clip_time(c.t0, c.t1) for c in shown[-3:])
                return Verdict.answer(first.text, cite, "pass 1")
            if first is not None:
                query, why = first.query, first.why or why
        else:
            notes.trace["pass1"] = {
                "skipped": "reasoner.query_search = always: a question goes to memory first"
            }
        retrieval = await self.search.run(ctx, query, why, gate, notes, instant=True)
        context = retrieval.context if retrieval is not None else RetrievedContext()
        return await self._answer(ctx, question, context, notes)

    async def _pass1(self, ctx: StepContext, question: str, notes: StepNotes) -> FirstPass | None:
        r = self.cfg.reasoner
        msgs = prompts.query_pass1_messages(
            task=task_context(ctx, self.cfg),
            recent=[clip_triple(c) for c in ctx.recent],
            now=clip_triple(ctx.caption),
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
        notes.timings["pass1"] = p1.seconds
        notes.trace["pass1"] = p1.trace()
        return p1.value

    async def _answer(
        self, ctx: StepContext, question: str, context: RetrievedContext, notes: StepNotes
    ) -> Verdict:
        r = self.cfg.reasoner
        msgs = prompts.answer_messages(
            task=task_context(ctx, self.cfg), question=question, retrieved=context.text
        )
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
        notes.timings["pass2"] = p2.seconds
        notes.trace["pass2"] = p2.trace()
        text = p2.value or NO_ANSWER
        return Verdict.answer(text, context.citation(), "pass 2" if p2.value else (p2.error or "no answer"))


def _in_view(ctx: StepContext) -> tuple[CaptionRecord, ...]:
    """The captions in view count as memory too: the writer may not have stored them yet."""
    return tuple(CaptionRecord(c.session_id, c.index, c.t0, c.t1, c.text) for c in (*ctx.recent, ctx.caption))


def asked_stream_t(ctx: StepContext) -> float:
    """Where on the stream the wearer asked: the time a replay planted the question at, or,
    for a question typed or spoken live, the last clip's end moved on by the clock time
    that passed between its caption and the question."""
    assert ctx.query is not None
    if ctx.query.stream_t is not None:
        return ctx.query.stream_t
    return ctx.caption.t1 + max(0.0, ctx.query.t - ctx.caption.t)
