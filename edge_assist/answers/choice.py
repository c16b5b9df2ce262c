"""Which moment answers a question, of those the answer gate offered: the only one; the first or
the last when the question asks for that time of the act ("when did I first put it in the
microwave?"); else the model's pick. And what is said when none answers."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from edge_assist.answers import grounding, meaning, quantity_question, thing_naming
from edge_assist.answers.activity_span import GAP_S
from edge_assist.answers.order import PLAUSIBLE_SHARE
from edge_assist.clock import Clock
from edge_assist.inference.base import LLM
from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.recall import Recall


async def choose(
    llm: LLM,
    clock: Clock,
    question: str,
    found: Sequence[Moment],
    offered: Sequence[Moment],
    temperature: float,
    timings: dict[str, float],
    trace: dict[str, Any],
) -> Moment | None:
    """The moment that answers, or None."""
    if not offered:
        trace["outcome"] = "nothing in memory close enough" if found else "memory holds nothing before now"
        return None
    if len(offered) == 1:
        trace["outcome"] = "chosen (the only moment close enough)"
        return offered[0]
    if (which := quantity_question.which_time(question)) in ("first", "last"):
        # a time of the act is asked: the earliest or the latest, not the model's guess among them
        trace["outcome"] = f"chosen: the {which} of the moments close enough"
        return sorted(offered, key=lambda m: m.t0)[0 if which == "first" else -1]
    pick = await grounding.choose_moment(llm, clock, question, offered, temperature=temperature)
    timings["choose"] = pick.call.seconds
    trace["choose"] = pick.call.trace()
    trace["outcome"] = "chosen" if pick.moment is not None else (pick.call.error or "the model chose none")
    return pick.moment


def trace_row(m: Moment, backing: float) -> list[object]:
    return [m.session_id, m.clip_index, round(m.t0, 2), round(m.t1, 2), m.score, m.text, round(backing, 4)]


def unanswered(kind: str, chosen: Moment | None) -> str:
    """What is said when no moment answers: nothing after (or before) the chosen one, or abstain."""
    if chosen is not None and kind == "after":
        return answer_text.NOTHING_AFTER
    if chosen is not None and kind == "before":
        return answer_text.NOTHING_BEFORE
    return answer_text.abstention(kind)


async def run_edge(
    recall: Recall,
    clock: Clock,
    chosen: Moment,
    before_t: float,
    backed: Callable[[list[Moment]], Awaitable[list[bool]]],
    *,
    step: int = -1,
) -> Moment:
    """The first (`step` -1) or last (1) clip of the run `chosen` belongs to: "when did I start on
    the cabbage?" over a stream of 10-s clips is the first of the clips in a row that answer it,
    though a later one ranked higher, and what came right after the cutting comes after its last
    clip, not after the next clip of the same cutting. `backed` says which clips answer; the clips
    are read in batches that double (1, 2, 4, ...), so a run of a hundred clips costs a few gate
    calls, and a run of one reads one clip more."""
    m, count = chosen, 1
    while near := await recall.neighbours(clock, m, step=step, count=count, before_t=before_t):
        for clip, ok in zip(near, await backed(near), strict=True):
            gap = m.t0 - clip.t1 if step < 0 else clip.t0 - m.t1
            if gap > GAP_S or not ok:
                return m
            m = clip
        if len(near) < count:
            return m
        count *= 2
    return m


def plausible_times(
    focus: str,
    found: Sequence[Moment],
    offered: Sequence[Moment],
    backing: dict[Moment, float],
    threshold: float,
) -> list[Moment]:
    """The moments of `found` not offered that still plausibly tell the focus's act on its thing,
    below the threshold: times of it, for "the first time" or "at the end"."""
    thing = meaning.parse(focus).thing
    return [
        m
        for m in found
        if m not in offered
        and backing[m] >= PLAUSIBLE_SHARE * threshold
        and (not thing or thing_naming.thing_in(thing, m.text) is not None)
        and meaning.tells_asked_act(focus, m.text)
    ]
