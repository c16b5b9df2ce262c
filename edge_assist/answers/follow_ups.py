"""Follow-up questions answered from the last answer of the conversation.

"and after that?" and "and before that?" step to the clip next to the moment the last
answer rested on; "how much?" and "for how long?" read the amount that moment's caption
says; "with what?" tells the tool its caption names; "where was that?" tells the place its
caption or the clips next to it name (answers/places.py); "how long ago?" measures from it to
the time asked about; "and the salt?" asks the last question again about the new thing, and
is answered like any question. A follow-up with no last answer to lean on (none within the
conversation's window) is answered "About what? Ask the whole question."; so is a question that
points ("it", "that", "them") and names no thing and no act of its own ("when did I do that?",
"where did I put it?", "how long did it take?"), whatever its form: it can only mean something
said before. One that names its act ("when did I flip them?") is about the task's things and
is answered. One after an answer
that rested on no moment ("I don't remember you doing that") is told that nothing was found to
lean on.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from edge_assist.answers import (
    activity_span,
    follow_up_kinds,
    meaning,
    next_act,
    places,
    quantity_question,
    run_length,
)
from edge_assist.answers.answered import Answer
from edge_assist.answers.contradicted import tool_named
from edge_assist.answers.conversation import ABOUT_WHAT, Conversation, FollowUp, Turn, follow_up
from edge_assist.answers.focus import verb_base
from edge_assist.clock import Clock
from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.details import parse_details
from edge_assist.tasks.question_kinds import QuestionKinds
from edge_assist.tasks.step_phrases import singular
from edge_assist.text.action_families import same_act
from edge_assist.text.caption_subject import action_words
from edge_assist.text.kinds_of_things import same_thing
from edge_assist.text.question_voice import as_wearers
from edge_assist.text.stop_words import FUNCTION_WORDS
from edge_assist.text.stream_time import age, stream_clock

NOTHING_TO_LEAN_ON = "I found nothing for your last question, so I can't tell you more about it."


@dataclass(frozen=True)
class Resolved:
    """A question as the conversation reads it: to be answered as `question`, or already
    answered (`reply`, resting on `moment`)."""

    question: str
    follow: FollowUp | None = None
    reply: str | None = None
    moment: Moment | None = None
    outcome: str = ""
    # False: nothing to lean on ("about what?"); the turn is not kept, so the last answer
    # still stands for the next question.
    keep: bool = True


# A pointing word, and the words that name neither a thing nor an act: a question made of these
# alone leans on something said before it.
_POINTING = re.compile(r"\b(?:it|that|this|them|they|those|these)\b|\b(?:which|the\s+other)\s+one\b")
_SAYS_NOTHING = FUNCTION_WORDS | frozenset(
    """does doing happen happened happens take took taken takes go went gone goes put puts
    putting use used uses using get got make made ones twice once times time long much many ago
    why whether last second ok okay oh um uh wait hmm s d ll re ve""".split()
)


def points_to_nothing_said(question: str) -> bool:
    """Whether `question` only points: a pointing word, and no thing or act named."""
    q = " ".join(question.lower().replace("’", "'").split()).strip(" ?.!")
    return _POINTING.search(q) is not None and all(w in _SAYS_NOTHING for w in re.findall(r"[a-z]+", q))


_HOW_MUCH = re.compile(r"^(how\s+(?:many|much))\s+(.+?)\s+((?:did|do|have|had|was|were)\b.*)$", re.I)
_PREPOSITION = frozenset("on in into onto with to from at over under for of off out by".split())


def with_object(question: str, obj: str) -> str | None:
    """`question` asked again about `obj`: "when did I add the salsa?" -> "when did I add the salt?"."""
    # "how much mayo went in?" is asked of the wearer's act: "how much mayo did I add?"
    q = " ".join(as_wearers(question).split()).rstrip("?.! ")
    m = _HOW_MUCH.match(q)
    if m is not None:  # "how much salt did I add?": no article after "how much"
        bare = re.sub(r"^(?:the|a|an|some|my)\s+", "", obj)
        return f"{m.group(1)} {bare} {m.group(3)}?"
    words = answer_text.question_focus(q).split()
    if len(words) < 2:
        return None
    # The focus is verb, object, then any place or tool phrase: the object ends at a preposition.
    thing: list[str] = []
    for w in words[1:]:
        if w.lower() in _PREPOSITION and thing:
            break
        thing.append(w)
    old = " ".join(thing)
    at = q.lower().rfind(old.lower())
    if not old or at < 0:
        return None
    return f"{q[:at]}{obj}{q[at + len(old) :]}?"


def _pointed(question: str, follow: FollowUp, last: Turn) -> Resolved:
    """ "and when did they go in the pan?": the question asked of the last question's thing."""
    there = follow_up_kinds.THERE.search(follow.obj) is not None
    thing = _last_place(last) if there else _answered_thing(last) or _last_thing(last.resolved)
    if not thing:
        return Resolved(question, follow, ABOUT_WHAT, outcome="no thing in the last question", keep=False)
    if there:
        again = follow_up_kinds.THERE.sub(rf"\1 the {thing}", follow.obj, count=1)
    else:
        again = re.sub(r"\b(?:it|they|them)\b", f"the {thing}", follow.obj, count=1)
    again = re.sub(r"\bi\b", "I", again)
    return Resolved(again, follow, outcome=f"asked about {thing}, the last question's thing")


_PLACE = re.compile(r"\b(?:at|in|into|to|by|near|on|inside)\s+(?:the|my|a)\s+([a-z][a-z-]+)", re.I)


def _last_place(last: Turn) -> str:
    """Where "in there" points: the place the last question named ("when was I at the fridge?"),
    else the one its answer's moment names."""
    for text in (last.resolved, last.moment.text if last.moment is not None else ""):
        if m := _PLACE.search(text):
            return m.group(1).lower()
    return ""


def _answered_thing(last: Turn) -> str:
    """The thing of the act the last answer told, when that act was new to the conversation:
    "and did I salt it?" after "what did I do right after cutting the carrot?" ("you pressed out
    juice from lime") asks about the lime, not the carrot. Other answers tell the question's own act."""
    kind = answer_text.question_kind(last.resolved)
    if last.moment is None or kind not in ("after", "before"):
        return ""
    told = activity_span.clauses(last.moment.text) or [last.moment.text]
    said = meaning.things(told[-1] if kind == "after" else told[0])
    return said[0] if said else ""


def _of_time(follow: FollowUp, last: Turn, *, when: bool = False) -> Resolved:
    """ "and the last one?": the last question, of that time of its act."""
    which = follow.obj
    if which == "other":  # "and the other time?" after "the first time" is the last one
        which = "last" if re.search(r"\b(?:first|1st)\b", last.resolved, re.I) else "first"
    asked = _WHICH_TIME.sub("", last.resolved.rstrip("?.! ")).rstrip(" ,")
    if when and answer_text.question_kind(asked) == "yesno":
        # "did I wash my hands?", then "when was the last time?": when, not whether
        asked = re.sub(r"^(?:did|have|had)\s+(?=i\b)", "when did ", asked, flags=re.I)
    said = " ".join(f"{asked} the {which} time?".split())
    return Resolved(said, follow, outcome=f"the last question, of the {which} time")


def _about_object(question: str, follow: FollowUp, last: Turn) -> Resolved:
    """ "and the salt?": the last question asked again about the new thing."""
    again = with_object(last.resolved, follow.obj)
    if again is None:
        return Resolved(question, follow, ABOUT_WHAT, outcome="no object in the last question", keep=False)
    return Resolved(again, follow, outcome=f"asked again about {follow.obj}")


def _tool(question: str, follow: FollowUp, frame: str, m: Moment) -> Resolved:
    """ "With what?" of the last moment: the tool its caption names. A question that names an
    act the last moment does not tell ("what did I use to flip?" after the cutting) asks its own
    question."""
    if follow.obj and not _tells(m.text, follow.obj):
        return Resolved(question)
    named = tool_named(m.text)
    if named is None:
        said = f"I don't remember what you used: {answer_text.tell(m.text, m.t0, m.note)}"
        return Resolved(frame, follow, said, None, outcome="the last moment names no tool")
    said = f"With a {named[0]}. {answer_text.tell(m.text, m.t0, m.note)}"
    return Resolved(frame, follow, said, m, outcome="the tool the last moment names")


def _tells(caption: str, verb: str) -> bool:
    base = verb_base(verb) or verb
    return any(same_act(base, told) for _, told in meaning.caption_verbs(caption))


def _last_thing(question: str) -> str:
    """The thing the last question asked about: "garlic cloves" of "how many garlic cloves did I
    peel?", "the cheese" of "when did I add the cheese?" (its article dropped)."""
    asked = quantity_question.parse(question)
    if asked is not None and asked.said_thing:
        return asked.said_thing
    focus = answer_text.question_focus(question)
    words = meaning.things(focus)
    return _said_together(focus, words) or (words[0] if words else "")


def _said_together(focus: str, things: list[str]) -> str:
    """Several things said side by side, as one name ("peanut butter"), or ""."""
    if len(things) < 2:
        return ""
    said = re.findall(r"[a-z][a-z'-]*", focus.lower())
    at = [i for i, w in enumerate(said) if any(same_thing(t, singular(w)) for t in things)]
    if len(at) != len(things) or at[-1] - at[0] != len(at) - 1:
        return ""
    return " ".join(said[at[0] : at[-1] + 1])


# Which time of an act a question asks about, taken out when a follow-up asks about another.
_WHICH_TIME = re.compile(
    r"\b(?:(?:for\s+)?(?:the|my)\s+(?:first|second|third|last|final)\s+(?:time|round|go)|at\s+first"
    r"|first|initially|at\s+the\s+(?:start|end)|finally|last)\b",
    re.I,
)
_AMOUNT_DIMS = {"much": ("volume", "mass", "count"), "many": ("count",), "long": ("time",)}


async def _amount_of(
    frame: str, follow: FollowUp, m: Moment, before_t: float, recall: Recall, clock: Clock
) -> Resolved:
    """ "How much?" of the last moment; "how long did that take?" where it states no time: the
    stretch of its act."""
    text = _amount(m, follow.obj)
    if text == answer_text.DONT_REMEMBER and follow.obj == "long" and not m.note:
        text = await _length(m, before_t, recall, clock) or text
    told = m if text != answer_text.DONT_REMEMBER else None
    return Resolved(frame, follow, text, told, outcome="the last moment's amount")


def _amount(m: Moment, how: str) -> str:
    """ "How much?" of the last moment: the amounts its caption says, and the moment."""
    said = dict.fromkeys(a.text for a in parse_details(m.text).amounts if a.dim in _AMOUNT_DIMS[how])
    if not said:
        return answer_text.DONT_REMEMBER
    return f"{' and '.join(said)}. {answer_text.tell(m.text, m.t0, m.note)}"


async def _length(m: Moment, before_t: float, recall: Recall, clock: Clock) -> str | None:
    """ "How long did that take?" where the last moment states no time: the stretch of clips around
    it that tell one of its actions again, as on a day cut into 10-s clips."""
    keys = {tuple(action_words(c)) for c in activity_span.clauses(m.text)}  # "The person slices" is "slices"
    clips, _ = await clock.run_blocking(recall.clips_in_period, m.session_id, -math.inf, before_t)
    found = activity_span.stretches(
        [c for c in clips if c.t1 <= before_t + 1e-6], lambda c: tuple(action_words(c)) in keys
    )
    at = [s for s in found if s.t0 <= m.t0 <= s.t1]
    if not at:
        return None
    return activity_span.told(at, "first", lambda c: answer_text.tell(c.text, c.t0))[0]


async def _ago(turn: Turn, m: Moment, before_t: float, recall: Recall, clock: Clock) -> str:
    if m.note:
        return f"{answer_text.when_text(m.t0, m.note)}."
    now = before_t if math.isfinite(before_t) else turn.about_t
    if now is None:
        # Asked "now" of a store: now is as far as memory of that session goes.
        later, _ = await clock.run_blocking(recall.clips_in_period, m.session_id, m.t0, math.inf)
        now = max((c.t1 for c in later), default=m.t1)
    return f"About {age(max(0.0, now - m.t0))} ago, at {stream_clock(m.t0)}."


async def told_ago(question: str, ans: Answer, before_t: float, recall: Recall, clock: Clock) -> str:
    """ "How long ago did I put the rice on?", answered as "when did I ...", said with the time
    since the act began (the first clip of its run): "About 9 minutes ago: at 14:30 you put the
    rice on." Other answers stay as they are."""
    text, m = ans.text, ans.moment
    if m is None or m.note or not run_length.asks_ago(question):
        return text
    if not text.startswith("At ") or " ago" in text:
        return text
    now = before_t
    if not math.isfinite(now):
        # Asked "now" of a store: now is as far as memory of that session goes.
        later, _ = await clock.run_blocking(recall.clips_in_period, m.session_id, m.t0, math.inf)
        now = max((c.t1 for c in later), default=m.t1)
    first = await run_length.run_start(recall, clock, str(ans.trace.get("focus", question)), m, now)
    t0 = m.t0
    if first is not None and first.t0 < m.t0:  # the run began before the clip that ranked first
        text, t0 = answer_text.tell(first.text, first.t0), first.t0
    return f"About {age(max(0.0, now - t0))} ago: {text[0].lower()}{text[1:]}"


async def _read(
    question: str, last: Turn | None, kinds: QuestionKinds | None, clock: Clock
) -> FollowUp | None:
    """The follow-up `question` is by its form, else (after a last turn) by its meaning."""
    follow = follow_up(question)
    if follow is None and kinds is not None and last is not None:
        follow = await clock.run_blocking(follow_up_kinds.by_meaning, question, kinds, last.resolved)
    return follow


def _as_asked(question: str, said: str, last: Turn | None) -> Resolved:
    """A question of no follow-up form: answered as asked, unless it only points and nothing was
    said before it to point to. Read as spoken: what is told around a question may name what it
    points to ("I think I forgot one step, which one?" is plainly "which one?")."""
    if last is None and points_to_nothing_said(said):
        return Resolved(question, None, ABOUT_WHAT, outcome="points to nothing said before", keep=False)
    if last is not None and points_to_nothing_said(said) and follow_up_kinds.POINTS.search(said.lower()):
        # "what did I do with it?": longer than a short follow-up, and about the last thing all the same
        plain = " ".join(said.lower().split()).rstrip("?.! ") + "?"
        return _pointed(question, FollowUp("pointer", plain), last)
    return Resolved(question)


async def resolve(
    conversation: Conversation | None,
    question: str,
    *,
    at: float | None,
    recall: Recall,
    clock: Clock,
    before_t: float,
    kinds: QuestionKinds | None = None,
    said: str = "",
) -> Resolved:
    """`question` read against the conversation: an ordinary question comes back as it is. `kinds`:
    the question-kind model, for follow-ups worded unlike the fixed forms; `said`: as spoken."""
    last = conversation.last(at) if conversation is not None else None
    follow = await _read(question, last, kinds, clock)
    if follow is None:
        return _as_asked(question, said or question, last)
    if follow.kind == "named":
        return Resolved(follow.obj, follow, outcome="a thing named, then asked about")
    if follow.kind == "vague":
        return Resolved(question, follow, ABOUT_WHAT, outcome="a pointer to nothing named", keep=False)
    if last is None and follow.kind == "tool" and follow.obj:
        return Resolved(question)  # "what did I use to flip them?" is a question of its own
    if last is None:
        return Resolved(question, follow, ABOUT_WHAT, outcome="follow-up with nothing before it", keep=False)
    if follow.kind == "pointer":
        return _pointed(question, follow, last)
    if follow.kind == "occurrence":
        return _of_time(follow, last, when=question.lstrip().lower().startswith(("when", "and when")))
    if follow.kind == "object":
        return _about_object(question, follow, last)
    m = last.moment
    # A follow-up on a moment keeps the last question's frame: "and the salt?" after "and
    # after that?" still asks the question before them.
    frame = last.resolved
    if m is None:
        return Resolved(frame, follow, NOTHING_TO_LEAN_ON, outcome="the last answer rests on no moment")
    if follow.kind in ("after", "before"):
        step = 1 if follow.kind == "after" else -1
        near = await run_length.past_run(recall, clock, m, step=step, before_t=before_t)
        if near is None:
            text = answer_text.NOTHING_AFTER if step == 1 else answer_text.NOTHING_BEFORE
            # Not kept: "how long ago?" next still means the last moment told.
            return Resolved(frame, follow, text, outcome=f"no clip {follow.kind} the last moment", keep=False)
        if (verb := next_act.asked_act(question)) is not None:
            near = await next_act.of_act(recall, clock, near, verb, step=step, before_t=before_t)
        text = answer_text.compose(follow.kind, near.text, near.t0, near.note)
        return Resolved(frame, follow, text, near, outcome=f"the clip {follow.kind} the last moment")
    if follow.kind == "amount":
        return await _amount_of(frame, follow, m, before_t, recall, clock)
    if follow.kind == "purpose":
        said = answer_text.tell(m.text, m.t0, m.note)
        return Resolved(frame, follow, said, m, outcome="what the last moment was doing")
    if follow.kind == "tool":
        return _tool(question, follow, frame, m)
    if follow.kind == "where":
        said = await places.where(m, recall, clock, before_t, went=follow.obj == "went")
        return Resolved(frame, follow, said, m, "where the last moment was")
    said = await _ago(last, m, before_t, recall, clock)
    return Resolved(frame, follow, said, m, outcome="the last moment's age")
