"""How long an act went on, when the act was found by meaning, not by the quantity parser's words.

"How long was I working the fish into the garlic sauce?" names its act in words no list holds;
the answer gate still finds "The person mixes fish in garlic sauce." So the length is read from
the chosen moment's own act: the clips around it that tell the same act (the same verb about
the same things) make its stretches (answers/activity_span.py), and the question says which one
("the first time", "near the end") or that they add up.
"""

from __future__ import annotations

import math
import re

from edge_assist.answers import activity_span, quantity_question
from edge_assist.answers.focus import parse
from edge_assist.answers.meaning import caption_verbs, tells
from edge_assist.answers.thing_naming import thing_in
from edge_assist.clock import Clock
from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall

_AGO = re.compile(r"^\W*(?:(?:and|so|um|uh|hey|okay|ok)\W+)*how\s+long\s+ago\b", re.I)


def asks_ago(question: str) -> bool:
    """ "How long ago did I ...?": a time since, not a length."""
    return bool(_AGO.match(question))


def asks_length(question: str) -> bool:
    """ "How long was I at ...?", not "how long ago ...?" nor an amount."""
    q = quantity_question.parse(question)
    return q is not None and q.dims == ("time",) and not asks_ago(question)


def act_of(clause: str) -> tuple[frozenset[str], frozenset[str]]:
    """A clause's verbs (base forms) and its other content words, after its subject ("The person")."""
    verbs = caption_verbs(clause)
    words = clause.split()
    at = {i for i, _ in verbs}
    first = min(at, default=0)
    rest = " ".join(w for i, w in enumerate(words) if i not in at and i >= first)
    return frozenset(v for _, v in verbs), frozenset(answer_text.content_words(rest))


def alike(a: tuple[frozenset[str], frozenset[str]], b: tuple[frozenset[str], frozenset[str]]) -> bool:
    return bool(a[0] & b[0]) and a[1] == b[1]


def chosen_clause(caption: str, focus: str) -> str:
    """The clause of `caption` that tells the focus's act by a verb of its own, else the one that
    tells most of its words: "dry the board" is the second clause of "washes the board with water,
    then dries the board with towel"."""
    asked = answer_text.content_words(focus)
    verb, thing = parse(focus).verb, parse(focus).thing
    parts = activity_span.clauses(caption) or [caption]

    def rank(clause: str) -> tuple[bool, bool, int]:
        # the thing asked before the other words: "garnishes dish with cherries", not "serves
        # sliced carrot on plate", for "did the cherries go on the plate?"
        named = bool(thing) and thing_in(thing, clause) is not None
        return bool(verb) and tells(verb, clause), named, len(asked & answer_text.content_words(clause))

    return max(parts, key=rank)


async def told(
    recall: Recall, clock: Clock, question: str, focus: str, moment: Moment, before_t: float
) -> tuple[str, CaptionRecord] | None:
    """The length of the chosen moment's act as said ("About 1 minute 20 seconds, from ...") and
    the clip it rests on; None when the question asks no length or the moment tells no act."""
    if not asks_length(question):
        return None
    act = act_of(chosen_clause(moment.text, focus))
    if not act[0]:
        return None
    clips, _ = await clock.run_blocking(recall.clips_in_period, moment.session_id, -math.inf, before_t)
    clips = [c for c in clips if c.t1 <= before_t + 1e-6]
    found = activity_span.stretches(clips, lambda clause: alike(act_of(clause), act))
    if not found:
        return None
    # as the quantity parser's lengths are told: the time asked, or every stretch added up
    which = quantity_question.which_time(question)
    return activity_span.told(found, which, lambda c: answer_text.tell(c.text, c.t0))


async def run_start(
    recall: Recall, clock: Clock, focus: str, moment: Moment, before_t: float
) -> CaptionRecord | None:
    """The first clip of the run of clips in a row that tell the chosen moment's act: "how long ago
    did I put the steak on?" over four clips of "sets steak in preheated pan" is measured from the
    first, when it went on. None when the moment tells no act or is not in such a run."""
    act = act_of(chosen_clause(moment.text, focus))
    if not act[0] or moment.note:
        return None
    clips, _ = await clock.run_blocking(recall.clips_in_period, moment.session_id, -math.inf, moment.t1)
    found = activity_span.stretches(
        [c for c in clips if c.t1 <= min(before_t, moment.t1) + 1e-6],
        lambda clause: alike(act_of(clause), act),
    )
    at = next((s for s in found if s.t0 <= moment.t0 <= s.t1), None)
    return None if at is None else at.clips[0]


async def first_time(recall: Recall, clock: Clock, focus: str, moment: Moment) -> Moment:
    """The earliest clip of the session that tells the chosen moment's act (its clause's verb about
    the same things), or `moment` itself: "did I wash my hands at any point?" is answered by the
    first time, as a person recalls it, not by whichever of the times ranked highest."""
    act = act_of(chosen_clause(moment.text, focus))
    if not act[0] or moment.note:
        return moment
    clips, _ = await clock.run_blocking(recall.clips_in_period, moment.session_id, -math.inf, moment.t0)
    for c in sorted(clips, key=lambda c: (c.t0, c.clip_index)):
        if c.t0 < moment.t0 and any(alike(act_of(x), act) for x in activity_span.clauses(c.text)):
            return Moment.of_clip(c, moment.score)
    return moment


# How far a "what next?" looks past the moment for another act: a few minutes of 10-s clips.
_PAST_RUN = 30


async def past_run(
    recall: Recall, clock: Clock, moment: Moment, *, step: int, before_t: float
) -> Moment | None:
    """The first clip after (`step` 1) or before (-1) `moment` that tells an act of its own, not
    only `moment`'s act again: "and after that?" on a day cut into 10-s clips asks what came
    after the stretch, not for its next clip. The next clip when none of the nearby ones does."""
    near = await recall.neighbours(clock, moment, step=step, count=_PAST_RUN, before_t=before_t)
    own = {act_of(c) for c in activity_span.clauses(moment.text) or [moment.text]}
    for m in near:
        told = activity_span.clauses(m.text) or [m.text]
        if not all(any(alike(act_of(c), a) for a in own) for c in told):
            return m
    return near[0] if near else None
