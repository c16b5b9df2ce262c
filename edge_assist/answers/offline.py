"""Questions over what memory holds, asked offline (`edge-assist ask`, `eval qa`).

By default a grounded answer (`answers/grounded.py`): retrieval proposes moments, the model
chooses among them, the answer is composed from the chosen one with its time, or is "I
don't remember you doing that". `reasoner.answerer = "free"` keeps the earlier path,
measured beside it in `eval qa`: coarse to fine (summaries first, clip retrieval only when
they are not enough), then a free-written answer citing its clips. A multiple-choice
question returns one of its options either way.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from edge_assist.answers import (
    appliances,
    contradicted,
    counted_no,
    follow_ups,
    forgot,
    skipped_step,
    substituted,
)
from edge_assist.answers.answer_record import cited, cited_clips
from edge_assist.answers.answered import Answer, Asked
from edge_assist.answers.at_time import TimeAnswers
from edge_assist.answers.contexts import moment_context, summary_context
from edge_assist.answers.conversation import Conversation, Turn
from edge_assist.answers.grounded import GroundedAnswerer
from edge_assist.answers.procedure import ProcedureAnswers
from edge_assist.answers.quantities import QuantityAnswers
from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.inference.llm_call import call_json
from edge_assist.outputs.trace_format import TRACE_VERSION
from edge_assist.reasoning import answer_text, prompts, schemas
from edge_assist.retrieval.api import TextHit
from edge_assist.retrieval.fusion import RetrievedContext
from edge_assist.retrieval.recall import Recall
from edge_assist.retrieval.retriever import Retriever
from edge_assist.text.question_voice import as_wearers
from edge_assist.text.spoken_questions import plain

# An answer must always come back to a question (d_t = 1); when the model cannot give
# one twice, this is what the wearer hears instead of nothing.
NO_ANSWER = "Sorry, I could not work that out from what I remember."
OFFLINE_MAX_TOKENS = 128


class OfflineAnswerer:
    def __init__(
        self,
        cfg: Config,
        llm: LLM,
        text_encoder: TextEncoder,
        recall: Recall,
        clock: Clock,
        retriever: Retriever,
        grounded: GroundedAnswerer,
        procedure: ProcedureAnswers,
    ) -> None:
        self.cfg = cfg
        self.procedure = procedure
        self.quantities = QuantityAnswers(recall, clock)
        self.at_time = TimeAnswers(recall, clock)
        self.llm = llm
        self.text_encoder = text_encoder
        self.recall = recall
        self.clock = clock
        self.retriever = retriever
        self.grounded = grounded

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
        """`question` read against the conversation (a follow-up leans on the last answer), then
        answered; the turn is added to the conversation. `task`, `task_context`: the session's
        task as its stream names it (default: the config's; else recognised from the captions)."""
        started = time.perf_counter()
        at = asked_at if asked_at is not None else (conversation.now() if conversation else time.time())
        res = await follow_ups.resolve(
            conversation,
            plain(question),
            at=at,
            recall=self.recall,
            clock=self.clock,
            before_t=before_t,
            kinds=self.procedure.kinds,
            said=question,
        )
        if res.reply is not None:
            ans = _told(res, question, before_t)
        else:
            said_as = as_wearers(res.question)  # "was the butter softened?": "did I soften the butter?"
            left = forgot.inner(said_as)  # "did I forget to add salt?": "did I add salt?", turned round
            asked = Asked(left or said_as, choices, before_t, session_id, past_sessions, task, task_context)
            ans = await self._answer(asked)
            if left is not None:
                ans.text, ans.trace["forgot"] = forgot.turned(ans.text), left
            ans.text = await follow_ups.told_ago(question, ans, before_t, self.recall, self.clock)
            if res.follow is not None:
                ans.trace["follow_up"] = {"kind": res.follow.kind, "asked_as": res.question}
            ans.trace.update({"asked_as": said_as} if said_as != res.question else {})
        ans.timings_s.setdefault("total", time.perf_counter() - started)
        ans.asked_at = at
        if conversation is not None and res.keep:
            about = None if math.isinf(before_t) else before_t
            conversation.add(Turn(question, res.question, ans.text, at, session_id, about, ans.moment))
        return ans

    async def _answer(self, asked: Asked) -> Answer:
        """A procedure question by the tracker; else, with the grounded answerer, from the moment
        chosen; else coarse to fine: summaries first, clip retrieval only when they are not enough."""
        question, choices, before_t = asked.question, asked.choices, asked.before_t
        session_id, past_sessions = asked.session_id, asked.past_sessions
        started = time.perf_counter()
        timings: dict[str, float] = {}
        trace: dict[str, Any] = {
            "version": TRACE_VERSION,
            "prompt_version": prompts.PROMPT_VERSION,
            "question": question,
            "choices": list(choices),
            "before_t": None if math.isinf(before_t) else before_t,
        }
        if not choices:
            told = await self._procedure(asked, trace) or await self._quantity(asked, trace)
            if told is not None:
                return told
        if self.cfg.reasoner.answerer == "grounded":
            ans = await self._grounded_answer(question, choices, before_t, session_id, past_sessions, trace)
            return await self._step_no(asked, ans) if ans.moment is None and not choices else ans
        n_tokens = max(self.cfg.reasoner.max_tokens, OFFLINE_MAX_TOKENS)
        if self.cfg.retrieval.multiscale:
            coarse = await self._coarse_answer(
                question, choices, before_t, session_id, n_tokens, timings, trace
            )
            if coarse is not None:
                timings["total"] = time.perf_counter() - started
                return coarse
        else:
            trace["coarse"] = {"skipped": "retrieval.multiscale = false: clip level only"}

        answer = await self._fine_answer(
            question, choices, before_t, session_id, past_sessions, n_tokens, timings, trace
        )
        timings["total"] = time.perf_counter() - started
        return answer

    async def _procedure(self, asked: Asked, trace: dict[str, Any]) -> Answer | None:
        """The tracker's answer, replayed over the session up to the time asked about."""
        started = time.perf_counter()
        task = asked.task or self.cfg.reasoner.task
        context = asked.task_context or self.cfg.reasoner.task_context
        if not (task or context) and asked.session_id is not None:
            # Over a store a run wrote: the task its stream named, as the run followed it.
            task, context = await self.clock.run_blocking(self.recall.session_task, asked.session_id)
        told = await self.procedure.answer(
            asked.question,
            session_id=asked.session_id,
            before_t=asked.before_t,
            task=task,
            task_context=context,
        )
        if told is None:
            return None
        text, why = told
        trace.update(task_answer=text, procedure=why, outcome="task tracker")
        timings = {"tracker": time.perf_counter() - started}
        return Answer(text, None, "", "task tracker", RetrievedContext(), timings, trace)

    async def _step_no(self, asked: Asked, ans: Answer) -> Answer:
        """A yes/no question no moment answered: the tracker's "No" when a step it names was
        skipped or is still to come (answers/skipped_step.py)."""
        if ans.trace.get("kind") != "yesno" or ans.text != answer_text.DONT_REMEMBER:
            return ans
        said, why = await skipped_step.answer(
            self.procedure,
            self.recall,
            self.clock,
            asked.question,
            session_id=asked.session_id,
            before_t=asked.before_t,
            task=asked.task or self.cfg.reasoner.task,
            task_context=asked.task_context or self.cfg.reasoner.task_context,
        )
        ans.trace.update(why)
        if said is not None:
            ans.text = said
        return ans

    async def _quantity(self, asked: Asked, trace: dict[str, Any]) -> Answer | None:
        """How many, how much, how long: from the amounts the matching captions say; or what was
        done at a time the question names ("what was I doing two minutes in?")."""
        started = time.perf_counter()
        for stage, source in (("at a time", self.at_time), ("quantities", self.quantities)):
            told = await source.answer(asked.question, session_id=asked.session_id, before_t=asked.before_t)
            if told is None:
                continue
            text, m, why = told
            if m is not None and (d := appliances.appliance_difference(asked.question, m.text)):
                text = contradicted.compose(d, m)  # "how long on the hob?" over a microwaving: No
            trace.update({"at_time" if source is self.at_time else "quantity": why})
            trace["outcome"] = str(why.get("outcome", ""))
            timings = {stage: time.perf_counter() - started}
            return Answer(text, None, cited(m), stage, moment_context(m), timings, trace, m)
        return None

    async def _fine_answer(
        self,
        question: str,
        choices: tuple[str, ...],
        before_t: float,
        session_id: str | None,
        past_sessions: bool,
        n_tokens: int,
        timings: dict[str, float],
        trace: dict[str, Any],
    ) -> Answer:
        """The answer from the clips retrieval hands on, written by the model."""
        retrieval = await self.retriever.retrieve(
            question, before_t=before_t, session_id=session_id, past_sessions=past_sessions
        )
        timings.update(retrieval.timings_s)
        trace["retrieval"] = retrieval.trace()
        context = retrieval.context
        res = await call_json(
            self.llm,
            self.clock,
            "fine answer",
            prompts.answer_messages(
                task=self.cfg.reasoner.task_context,
                question=question,
                retrieved=context.text,
                choices=choices,
            ),
            schemas.answer_schema(choices),
            lambda raw: nonempty(str(raw.get("the_answer", ""))),
            max_tokens=n_tokens,
        )
        timings["answer"] = res.seconds
        trace["answer"] = res.trace()
        text: str | None = res.value
        if text is None and choices:
            # A multiple-choice question still gets one of its options: the one closest to the evidence.
            text = await self._closest_choice(choices, context.text or question)
            trace["answer"]["fallback"] = f"closest option by text similarity ({res.error})"
        return Answer(
            text or NO_ANSWER, text if choices else None, context.citation(), "clips", context, timings, trace
        )

    async def _coarse_answer(
        self,
        question: str,
        choices: tuple[str, ...],
        before_t: float,
        session_id: str | None,
        n_tokens: int,
        timings: dict[str, float],
        trace: dict[str, Any],
    ) -> Answer | None:
        """The answer from the summaries alone, or None when the model says they are not enough."""
        t = time.perf_counter()
        summaries = await self._summaries(question, before_t=before_t, session_id=session_id)
        timings["summaries"] = time.perf_counter() - t
        coarse = summary_context(summaries, self.cfg.retrieval.context_chars)
        trace["coarse"] = {
            "summaries": [[h.level, round(h.t0, 2), round(h.t1, 2), h.text] for h in summaries]
        }
        if not summaries:
            return None
        res = await call_json(
            self.llm,
            self.clock,
            "coarse answer",
            prompts.coarse_messages(question=question, summaries=coarse.text, choices=choices),
            schemas.sufficiency_schema(choices),
            lambda raw: raw,
            max_tokens=n_tokens,
        )
        timings["coarse"] = res.seconds
        trace["coarse"].update(res.trace())
        raw = res.value
        if raw is None or raw.get("is_enough") is not True or not str(raw.get("the_answer", "")).strip():
            return None
        text = str(raw["the_answer"]).strip()
        return Answer(text, text if choices else None, coarse.citation(), "summaries", coarse, timings, trace)

    async def _grounded_answer(
        self,
        question: str,
        choices: tuple[str, ...],
        before_t: float,
        session_id: str | None,
        past_sessions: bool,
        trace: dict[str, Any],
    ) -> Answer:
        ga = await self.grounded.answer(
            question, before_t=before_t, session_id=session_id, choices=choices, past_sessions=past_sessions
        )
        trace.update(ga.trace)
        trace["cited_clips"] = cited_clips(ga)
        if choices:
            trace["evidence"] = ga.text  # the option is the answer; the sentence says why
        text, rests_on = (ga.choice or ga.text) if choices else ga.text, ga.moment
        if ga.kind == "yesno" and not choices and "order" not in trace:
            # "was the oil on medium heat?" over "on low heat, I'm heating the oil": No, and why
            g, focus = self.grounded.gate, trace.get("focus", question)
            th = self.cfg.reasoner.answer_min_score or g.threshold
            said = await contradicted.checked(ga, focus, g, self.text_encoder, self.clock, th)
            if said is None:  # "did I chop two shallots?" over "cutting up one shallot": No
                said = await counted_no.checked(ga, focus, self.recall, self.clock, session_id, before_t)
            if said is None:  # "did I use the ramekin?" over "a big mug instead of ramekin cup": No
                said = substituted.checked(ga, focus, session_id)
            if said is not None:
                text, rests_on, trace["contradicted"] = said
        context = moment_context(rests_on)
        return Answer(text, ga.choice, cited(rests_on), "moments", context, ga.timings_s, trace, rests_on)

    async def _summaries(self, question: str, *, before_t: float, session_id: str | None) -> list[TextHit]:
        hits: list[TextHit] = []
        for level in ("session", "activity"):
            hits.extend(
                await self.clock.run_blocking(
                    lambda lv=level: self.recall.summaries(lv, before_t=before_t, session_id=session_id)  # type: ignore[misc]
                )
            )
        if sum(len(h.text) for h in hits) <= self.cfg.retrieval.context_chars:
            return hits
        # Too many to show: the sessions, plus the activities nearest the question.
        vec = (await self.clock.run_blocking(self.text_encoder.encode, [question]))[0]
        near = await self.clock.run_blocking(
            lambda: self.recall.nearest_summaries(
                vec,
                k=self.cfg.retrieval.top_k * 2,
                before_t=before_t,
                level="activity",
                session_id=session_id,
            )
        )
        return [h for h in hits if h.level == "session"] + list(near)

    async def _closest_choice(self, choices: tuple[str, ...], evidence: str) -> str:
        vecs = await self.clock.run_blocking(self.text_encoder.encode, [evidence, *choices])
        sims = np.asarray(vecs[1:]) @ np.asarray(vecs[0])
        return choices[int(np.argmax(sims))]


def _told(res: follow_ups.Resolved, question: str, before_t: float) -> Answer:
    """A follow-up answered from the conversation alone."""
    trace: dict[str, Any] = {
        "version": TRACE_VERSION,
        "question": question,
        "before_t": None if math.isinf(before_t) else before_t,
        "follow_up": {"kind": res.follow.kind if res.follow else "", "outcome": res.outcome},
        "outcome": res.outcome,
    }
    m = res.moment
    return Answer(res.reply or "", None, cited(m), "conversation", moment_context(m), {}, trace, m)


def nonempty(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        raise schemas.AnswerFormatError("empty answer")
    return text
