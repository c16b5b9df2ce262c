"""A "No" the task's tracker earns: "did I grease the cup?" when the step that greases it was
skipped, "have I added the cheese yet?" when that step is still to come.

The earned "No" of `earned_no.py` rests on a thing memory never names; an act on things memory
does name ("did I put the bread in the egg?" when the bread was only cut) is left at "I don't
remember". The task's steps say more: when the question names what one step of the followed
task does (the same act, on the same things, `names_step`), the tracker replayed over memory up
to the time asked (`procedure.py`) tells whether that step was done. It is said "No" only when

- memory covers the session up to the time asked (`earned_no.covers`), no moment supported the
  question (the grounded answer abstained), and the question is about this session's time;
- every step the question names is not done, and either skipped (a step that must come after it
  is done) or, asked with "yet" or "already", still to come (nothing after it is done);
- no caption in memory tells the question's act on all the things it names (`told_anywhere`),
  so a caption the tracker did not align with the step still keeps the "No" from being said.

The answer names the step, so the wearer hears what it rests on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from edge_assist.answers import earned_no, meaning, thing_naming
from edge_assist.answers.procedure import ProcedureAnswers
from edge_assist.clock import Clock
from edge_assist.reasoning.answer_text import content_words, question_focus
from edge_assist.retrieval.api import CaptionRecord
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.findings import TrackerState
from edge_assist.tasks.model import Task
from edge_assist.tasks.step_phrases import VESSELS, singular
from edge_assist.text.action_families import ANY_ACT, BROAD, covers_act, known

# "have I added the cheese yet?": a question about progress, where a step still to come is a "No".
_SO_FAR = re.compile(r"\b(?:yet|already|so\s+far)\b", re.I)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# "the bowl of peppers": a vessel pointed at by what it holds ("a cup of milk" is an amount)
_VESSEL_OF = re.compile(r"\b(?:the|my|that|this)\s+([a-z]+)\s+of\s+(?:the\s+|my\s+)?(?:[a-z-]+\s+)?([a-z-]+)")


@dataclass(frozen=True)
class StepNo:
    """The steps a question names, none done, and how they stand."""

    steps: tuple[str, ...]  # their texts
    skipped: bool  # True: a later step is done; False: still to come


def _step_verbs(text: str) -> set[str]:
    return {b for w in _WORD.findall(text) if (b := meaning.verb_base(w)) is not None}


def names_step(focus: str, step_text: str) -> bool:
    """Whether a yes/no question's focus ("grease the cup") names what a step does: every thing
    it names is named there (in any number, not by a general word), and its verb, when it is one
    we know the act of, is told by one of the step's verbs."""
    asked = meaning.parse(focus, verb_first=True)
    things = meaning.things(focus, verb_first=True)
    if _of_a_pronoun(focus, asked, things):
        # "have I rolled it up yet?": the act alone names the step that does it
        return _acts(asked.verb) and any(_tells(asked.verb, t) for _, t in meaning.caption_verbs(step_text))
    if things:
        # "nuke the bowl of peppers" names the step "Microwave the bowl": what the vessel holds
        # is said to point at it, and a step names the vessel
        held = {singular(m.group(2)) for m in _VESSEL_OF.finditer(focus.lower()) if m.group(1) in VESSELS}
        kept = [t for t in things if singular(t) not in held] or things
        if not all(thing_naming.thing_in(t, step_text, general=False) for t in kept):
            return False
    else:
        # No thing parsed ("use cooking spray"): the words after the verb, all in the step.
        rest = content_words(" ".join(_WORD.findall(focus)[max(1, asked.verb_words) :]))
        if not rest or not rest <= content_words(step_text):
            return False
    verb = asked.verb.lower()
    if not verb or not known(verb) or verb in ANY_ACT:
        return bool(things) or bool(verb)
    # A step's own acts are its verbs where a verb stands ("Pat rinsed mushrooms dry" pats); a
    # step said with no verb ("1 tsp Sriracha sauce to the bowl") adds its thing.
    told = [t for _, t in meaning.caption_verbs(step_text)] or ["add"]
    return any(_tells(verb, t) for t in told)


def _of_a_pronoun(focus: str, asked: meaning.Asked, things: list[str]) -> bool:
    """ "roll it up", "flip them": a focus whose only object is a pronoun."""
    words = _WORD.findall(focus.lower())
    after = asked.verb_at + max(asked.verb_words, 1)
    return not things and len(words) > after and words[after] in ("it", "them", "they")


def _acts(verb: str) -> bool:
    """A verb that tells one act of its own ("roll", "flip"), not any act ("add", "use", "do")."""
    return known(verb) and verb not in BROAD and verb not in ANY_ACT


def _tells(asked: str, told: str) -> bool:
    """`told` tells the act `asked` names; two general verbs ("put", "add") tell each other."""
    both_broad = BROAD.get(asked, frozenset()) & BROAD.get(told, frozenset())
    return covers_act(asked, told) or (told not in ANY_ACT and bool(both_broad))


def _act_told(focus: str, text: str) -> bool:
    """A caption tells the focus's act on every thing it names."""
    verb = meaning.parse(focus, verb_first=True).verb.lower()
    things = meaning.things(focus, verb_first=True)
    if not things or not all(thing_naming.thing_in(t, text) for t in things):
        return False
    if not verb or not known(verb) or verb in BROAD:
        return True  # "add", "use": any act on the things may be it
    return any(covers_act(verb, told) for told in _step_verbs(text))


def told_anywhere(focus: str, clips: Sequence[CaptionRecord]) -> bool:
    asked = meaning.parse(focus, verb_first=True)
    if _of_a_pronoun(focus, asked, meaning.things(focus, verb_first=True)):
        # "roll it up": any caption that tells the act may be it
        return any(covers_act(asked.verb, t) for c in clips for t in _step_verbs(c.text))
    return any(_act_told(focus, c.text) for c in clips)


def not_done(question: str, focus: str, task: Task, state: TrackerState) -> StepNo | None:
    """The steps of `task` the question names, when none is done and each is skipped (or, asked
    "yet", still to come); None otherwise."""
    named = [i for i, s in enumerate(task.steps) if names_step(focus, s.text)]
    asked = meaning.parse(focus, verb_first=True)
    if not named or len(named) > 1 and _of_a_pronoun(focus, asked, meaning.things(focus, verb_first=True)):
        return None  # "stir it" of a task that stirs twice names no one step
    done = set(state.done)
    if any(task.steps[i].id in done for i in named):
        return None
    idx = task.index()
    anc = task.ancestor_masks()
    later_done = [any(anc[idx[d]] >> i & 1 for d in done if d in idx) for i in named]
    texts = tuple(task.steps[i].text for i in named)
    if all(later_done):
        return StepNo(texts, True)
    if not any(later_done) and _SO_FAR.search(question):
        return StepNo(texts, False)
    return None


def asked_focus(question: str, task: Task) -> str:
    """What the question asks done, as a step of `task` would say it: "did I salt the pan?" names
    the step "Add 1/3 tsp salt to the pan" as "add salt to the pan" does. A verb that names a step
    in its own words ("grease the cup" of "Coat the cup with cooking spray") stays as asked."""
    focus = question_focus(question)
    said = meaning.implied(focus)
    if said == focus or any(names_step(focus, s.text) for s in task.steps):
        return focus
    return said


def compose(found: StepNo) -> str:
    step = found.steps[0].rstrip(".")
    if found.skipped:
        return f'No: you skipped the step "{step}" (the steps after it were done).'
    return f'Not yet: the step "{step}" is still to come.'


async def answer(
    procedure: ProcedureAnswers,
    recall: Recall,
    clock: Clock,
    question: str,
    *,
    session_id: str | None,
    before_t: float,
    task: str,
    task_context: str,
) -> tuple[str | None, dict[str, Any]]:
    """The tracker's "No" to a yes/no question no moment answered, or None, with why."""
    if session_id is None or not earned_no.may_say_no(question, session_id):
        return None, {"step_no": "not earned: no session of today, or not about this session's time"}
    clips, _ = await clock.run_blocking(recall.clips_in_period, session_id, 0.0, before_t)
    clips = [c for c in clips if c.t1 <= before_t + 1e-6]
    if not earned_no.covers(clips, before_t):
        return None, {"step_no": f"not earned: memory does not cover the session ({len(clips)} clips)"}
    told = "not earned: a caption tells the act on the things asked"
    if told_anywhere(question_focus(question), clips):
        return None, {"step_no": told}  # before the tracker's replay, which costs more
    steps = await procedure.steps(session_id, before_t, task, task_context)
    if steps is None:
        return None, {"step_no": "not earned: no task followed"}
    focus = asked_focus(question, steps[0])
    if focus != question_focus(question) and told_anywhere(focus, clips):
        return None, {"step_no": told}
    found = not_done(question, focus, *steps)
    if found is None:
        return None, {"step_no": "not earned: no step named, or one is done"}
    why = "skipped" if found.skipped else "still to come"
    return compose(found), {"step_no": f"earned: {why}", "steps": list(found.steps)}
