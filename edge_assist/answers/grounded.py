"""Grounded answers to the wearer's questions, live (`run`, `replay --ask`) and offline (`ask`).

Retrieval proposes candidate moments (clips with their time and caption, up to now);
the model chooses the one that answers, or none; the answer is composed from the chosen
moment in the second person with its time. Nothing close enough in memory, or the model
choosing none, is the honest "I don't remember you doing that". A yes/no question is
yes exactly when a supporting moment is chosen; "what did I do right after X" finds X
and tells the clip that followed it. Multiple-choice questions return the option the
evidence supports.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from edge_assist.answers import (
    anchored,
    backing,
    choice,
    contents,
    day_recall,
    earned_no,
    grounding,
    meaning,
    mishaps,
    multi_hop,
    named_moments,
    next_act,
    order,
    order_from_clips,
    quantity_question,
    run_length,
    thing_history,
)
from edge_assist.answers import support as answer_support
from edge_assist.answers.answer_record import GroundedAnswer
from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.vector_cache import VectorCache

# Moments offered to the model: few, so a 135M model's short context holds them all.
OFFERED = 5


class GroundedAnswerer:
    def __init__(
        self,
        cfg: Config,
        llm: LLM,
        text_encoder: TextEncoder,
        recall: Recall,
        *,
        clock: Clock,
        library: TaskLibrary | None = None,
        vectors: VectorCache | None = None,
    ) -> None:
        self.cfg, self.llm, self.text_encoder, self.recall, self.clock = cfg, llm, text_encoder, recall, clock
        self.gate = answer_support.load_gate(cfg.reasoner.answer_gate_file)
        # The task library and its step vectors, for "what did I cook yesterday evening"
        # (day_recall.py): the live tracker's when the assistant has one, else loaded on first use.
        self._library, self._vectors = library, vectors

    def _tasks(self) -> tuple[TaskLibrary, VectorCache]:
        if self._library is None:
            self._library = TaskLibrary.load([self.cfg.data_path("tasks")])
        if self._vectors is None:
            self._vectors = VectorCache(self.text_encoder.encode)
        return self._library, self._vectors

    def _backing(self, focus: str, found: Sequence[Moment], act_needed: bool | None) -> dict[Moment, float]:
        return backing.backing(self.gate, self.text_encoder, focus, found, act_needed=act_needed)

    async def _in_run(
        self, question: str, focus: str, kind: str, chosen: Moment | None, before_t: float
    ) -> tuple[Moment | None, Moment | None]:
        """The chosen moment at its run's start when the first time is asked, and the moment
        answered: the chosen one, or the clip right after (before) its run for "after" ("before")."""
        if chosen is None:
            return None, None
        act_needed = not anchored.asks_time_or_amount(question)
        threshold = self.cfg.reasoner.answer_min_score or self.gate.threshold

        async def backs(near: list[Moment]) -> list[bool]:
            p = await self.clock.run_blocking(self._backing, focus, near, act_needed)
            # "when did I start slicing the onion?": not the peeling before it, nor the thinning out
            # of "cut out doughs" after "cut the dough up"
            return [p[m] >= threshold and meaning.tells_asked_act(focus, m.text) for m in near]

        which = quantity_question.which_time(question)
        if kind == "yesno" and which == "all":
            chosen = await run_length.first_time(self.recall, self.clock, focus, chosen)
        if kind in ("when", "yesno") and which == "first":
            chosen = await choice.run_edge(self.recall, self.clock, chosen, before_t, backs)
        if kind not in ("after", "before"):
            return chosen, chosen
        step = 1 if kind == "after" else -1
        edge = await choice.run_edge(self.recall, self.clock, chosen, before_t, backs, step=step)
        near = await self.recall.neighbour(self.clock, edge, step=step, before_t=before_t)
        if near is not None and (verb := next_act.asked_act(question)) is not None:
            near = await next_act.of_act(self.recall, self.clock, near, verb, step=step, before_t=before_t)
        return chosen, near

    async def _graph_answer(
        self,
        question: str,
        before_t: float,
        session_id: str | None,
        past_sessions: bool,
        started: float,
        trace: dict[str, Any],
    ) -> GroundedAnswer | None:
        """A question about a span of days, or about what a thing was with (two hops), else None."""
        if past_sessions:
            recalled = await day_recall.answer(
                self.recall, self.clock, self._tasks, question, before_t, session_id, started, trace
            )
            if recalled is not None:
                return recalled
        if (asked := order.parse(question)) is not None:
            return await self._order_answer(asked, before_t, session_id, past_sessions, started, trace)
        if said := await mishaps.answered(self.recall, self.clock, question, before_t, session_id):
            text, m, why = said
            trace.update(why, kind="yesno")
            return GroundedAnswer(text, "yesno", m, m, None, [m] if m else [], {}, trace)
        if done_with := await thing_history.answer(self.recall, self.clock, question, before_t, session_id):
            text, last, told = done_with
            trace.update(kind="what", outcome="every act on the thing asked", composed=text)
            return GroundedAnswer(text, "what", last, last, None, told, {}, trace)
        if multi_hop.parse(question) is None:
            return None
        hop = await multi_hop.answer(
            self.recall.relations,
            self.clock,
            question,
            before_t=before_t,
            session_id=session_id,
            past_sessions=past_sessions,
        )
        if hop is None:
            return None
        trace.update(hop.trace)
        timings = {**hop.timings_s, "total": time.perf_counter() - started}
        return GroundedAnswer(hop.text, "related", hop.moment, hop.moment, None, hop.evidence, timings, trace)

    async def _order_answer(
        self,
        asked: order.Ordered,
        before_t: float,
        session_id: str | None,
        past_sessions: bool,
        started: float,
        trace: dict[str, Any],
    ) -> GroundedAnswer | None:
        """Whether one act came before (or after) another: both found, their times compared."""

        async def find(focus: str) -> order.Found:
            seen: dict[str, Any] = {}
            found, offered = await self._offered(
                focus, focus, before_t=before_t, session_id=session_id, past_sessions=past_sessions,
                in_view=(), timings={}, trace=seen, anchors=False,
            )  # fmt: skip
            bar = seen["min_score"] * order.PLAUSIBLE_SHARE
            backed = list(zip(found, seen["candidates"], strict=True))  # the trace row ends with its backing
            plausible = [m for m, row in backed if row[-1] >= bar]
            ranked = [m for m, _ in sorted(backed, key=lambda mr: -mr[1][-1])]
            return order.telling(focus, order.Found(offered, plausible, ranked))

        founds: list[order.Found] = []

        async def counted(focus: str) -> order.Found:
            founds.append(await find(focus))
            return founds[-1]

        told = await order.answer(asked, counted)
        acts = [len(f.offered) for f in founds]
        found_as = "found" if told else f"not both found (moments offered per act: {acts})"
        if told is None and 0 in acts and session_id is not None:
            clips, _ = await self.clock.run_blocking(self.recall.clips_in_period, session_id, 0.0, before_t)
            clips = [c for c in clips if c.t1 <= before_t + 1e-6]
            told, found_as = await self._order_from_clips(asked, clips, before_t, founds[0], found_as)
        trace["order"] = [asked.first, asked.word, asked.second, found_as]
        if told is None:
            return None
        text, moments = told
        kind = "what" if asked.word in ("first", "either") else "yesno"  # "which came first" names one
        trace.update(kind=kind, outcome="order of two moments", composed=text)
        timings = {"total": time.perf_counter() - started}
        shown = moments[0] if moments else None  # a "No" to an act never seen may show no moment
        return GroundedAnswer(text, kind, shown, shown, None, moments, timings, trace)

    async def _order_from_clips(
        self, asked: order.Ordered, clips: list[CaptionRecord], before_t: float, first: order.Found, why: str
    ) -> tuple[tuple[str, list[Moment]] | None, str]:
        """An order retrieval did not find both acts of, read from the session's clips, and how."""
        if told := order_from_clips.by_things(asked, clips):
            return told, "found by the things alone"
        if told := await order_from_clips.first_unseen(
            asked, first, clips, before_t, self.clock, self.text_encoder
        ):
            return told, "the first act never seen"
        if told := order_from_clips.second_told_bare(asked, first, clips):
            return told, "the second act told with no thing"
        return None, why

    async def answer(
        self,
        question: str,
        *,
        before_t: float = math.inf,
        session_id: str | None = None,
        past_sessions: bool = False,
        choices: Sequence[str] = (),
        in_view: Sequence[CaptionRecord] = (),
    ) -> GroundedAnswer:
        started = time.perf_counter()
        timings: dict[str, float] = {}
        kind = answer_text.question_kind(question)
        focus = answer_text.question_focus(question)
        at = None if math.isinf(before_t) else before_t
        trace: dict[str, Any] = {"answerer": "grounded", "kind": kind, "focus": focus, "before_t": at}
        if not choices:
            told = await self._graph_answer(question, before_t, session_id, past_sessions, started, trace)
            if told is not None:
                return told
        found, offered = await self._offered(
            question,
            focus,
            before_t=before_t,
            session_id=session_id,
            past_sessions=past_sessions,
            in_view=in_view,
            timings=timings,
            trace=trace,
        )
        chosen = await choice.choose(
            self.llm, self.clock, question, found, offered, self.cfg.reasoner.temperature, timings, trace
        )
        chosen = await earned_no.earned(
            self.recall, self.clock, self.text_encoder, question, focus, "" if choices else kind,
            chosen, found, before_t=before_t, session_id=session_id, trace=trace,
        )  # fmt: skip
        chosen, moment = await self._in_run(question, focus, kind, chosen, before_t)
        if chosen is not None and moment is None:
            trace["outcome"] = f"no clip {kind} the chosen one in memory"
        if moment is None:
            text = choice.unanswered(kind, chosen)
            if kind == "yesno" and not choices:
                # the earned "No" to a yes/no question no moment answers (answers/earned_no.py)
                said, why = await earned_no.answer(
                    self.recall, self.clock, self.text_encoder, question, focus, found,
                    before_t=before_t, session_id=session_id,
                )  # fmt: skip
                trace.update(why)
                text = said or text
            timings["total"] = time.perf_counter() - started
            return GroundedAnswer(text, kind, None, chosen, None, found, timings, trace)
        composed, moment = await self._composed(question, focus, kind, moment, bool(choices), before_t)
        trace["composed"] = composed
        text, option = await self._said(question, composed, moment, choices, timings, trace)
        timings["total"] = time.perf_counter() - started
        return GroundedAnswer(text, kind, moment, chosen, option, found, timings, trace)

    async def _composed(
        self, question: str, focus: str, kind: str, moment: Moment, choices: bool, before_t: float
    ) -> tuple[str, Moment]:
        """The answer told from `moment`, and the moment it rests on."""
        if kind == "howmuch" and not moment.note:
            span = await run_length.told(self.recall, self.clock, question, focus, moment, before_t)
            if span is not None:  # "how long": the act's stretch, not one clip
                return span[0], Moment.of_clip(span[1], moment.score)
        # with options to choose from, the option says what was used; the sentence only why
        kind = "what" if choices and kind == "with" else kind
        return answer_text.compose(kind, moment.text, moment.t0, moment.note), moment

    async def _said(
        self,
        question: str,
        composed: str,
        moment: Moment,
        choices: Sequence[str],
        timings: dict[str, float],
        trace: dict[str, Any],
    ) -> tuple[str, str | None]:
        """What is said (the composed sentence, or its faithful rephrasing) and the option chosen."""
        r = self.cfg.reasoner
        text = composed
        if r.answer_rephrase:
            text = await grounding.rephrased(
                self.llm,
                self.clock,
                self.text_encoder,
                question,
                composed,
                moment,
                r.temperature,
                timings,
                trace,
            )
        if not choices:
            return text, None
        return text, await grounding.option(self.clock, self.text_encoder, choices, moment, composed)

    async def _offered(
        self,
        question: str,
        focus: str,
        *,
        before_t: float,
        session_id: str | None,
        past_sessions: bool,
        in_view: Sequence[CaptionRecord],
        timings: dict[str, float],
        trace: dict[str, Any],
        anchors: bool = True,
    ) -> tuple[list[Moment], list[Moment]]:
        """The candidate moments, ranked by the answer gate, and the few of them put to the model;
        `anchors`: read the question by its anchor too (answers/anchored.py; not for an order's
        acts, whose "No" needs every moment that may tell either act to agree)."""
        r = self.cfg.reasoner
        t = time.perf_counter()
        found = await self.recall.candidate_moments(
            self.text_encoder,
            self.clock,
            focus,
            before_t=before_t,
            session_id=session_id,
            k=max(OFFERED, self.cfg.retrieval.top_k),
            past_sessions=past_sessions,
            extra=in_view,
            graph=self.cfg.retrieval.graph,
        )
        found += await named_moments.naming(
            self.recall, self.clock, self.text_encoder, focus, found, before_t=before_t, session_id=session_id
        )
        timings["candidates"] = time.perf_counter() - t
        # Retrieval proposes; the answer gate (answers/support.py) says how likely each moment is
        # to be the one the question is about, and moments are ranked by that. What is below the
        # threshold is not evidence. A 135M model picks nearly at random among far-apart
        # options (measured), so only moments close to the best are put to it.
        # "the contents of the mug" said with what went in it, for matching and in the answer
        found = await contents.with_contents(self.recall, self.clock, found, before_t=before_t, asked=focus)
        act_needed = not anchored.asks_time_or_amount(question) if anchors else None
        backing = await self.clock.run_blocking(self._backing, focus, found, act_needed)
        found.sort(key=lambda m: -backing[m])
        threshold = r.answer_min_score or self.gate.threshold
        found = _today_first(found, backing, threshold, question, past_sessions, trace)
        top = backing[found[0]] if found else 0.0
        offered = [
            m for m in found if backing[m] >= threshold and backing[m] >= top - r.answer_choice_margin
        ][:OFFERED]
        if offered and anchors and quantity_question.which_time(question) in ("first", "last"):
            # "did I put ketchup on at the end?": the first or last time of the act is among every
            # moment that plausibly tells it on the thing, not only the closest few
            offered += choice.plausible_times(focus, found, offered, backing, threshold)
        trace["candidates"] = [choice.trace_row(m, backing[m]) for m in found]
        trace["min_score"] = threshold
        return found, offered


def _today_first(
    found: list[Moment],
    backing: dict[Moment, float],
    threshold: float,
    question: str,
    past: bool,
    trace: dict[str, Any],
) -> list[Moment]:
    """Today first: when this session holds a moment that answers, the wearer asking "what did I do
    with the bowl" means today's bowl, not a closer caption from days ago; a question that names an
    earlier day ("yesterday") is left to the ranking."""
    if (
        not past
        or answer_text.names_past_day(question)
        or not any(m.note == "" and backing[m] >= threshold for m in found)
    ):
        return found
    trace["today_first"] = [[m.session_id, m.clip_index] for m in found if m.note != ""][:OFFERED]
    return [m for m in found if m.note == ""]
