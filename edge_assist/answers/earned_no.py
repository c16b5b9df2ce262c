"""When a yes/no question may be answered "No", and what is said instead of a bare "No".

A confident "No" about something that happened is the worst answer an assistant can give:
the wearer believes it. Below the answer gate's threshold, a question is only not shown to
have happened; that is "I don't remember you doing that", unless the "No" is earned:

- memory covers the time the question is about: the session holds clips from its start to
  the time asked, with no gap longer than `COVERAGE_GAP_S` (the captioner was not off);
- something the question names, a thing the lexicons know (tasks/word_kinds.py: so are its
  other names), is nowhere in that memory: no clip names the thing, in any
  number or as a member of a general word (answers/meaning.py), and no word of the moments
  closest to the question is near it for the word encoder (`NAMED_COSINE`), so a caption
  that names it in other words ("sodium chloride" for salt) keeps the "No" from being said.

A question that places the act against another ("did I add salt while the pan heated?") is asked
of its act alone: an act that never happened happened at no time (`main_act`).

Then the answer says what was seen instead, the closest related thing done: a moment that
tells the same act on another thing ("No: at 3:39 you topped cup with 1 tablespoon of salsa,
but I didn't see you add salt."), else the moment ranked closest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from edge_assist.answers import meaning, order, quantity_question, thing_naming, unseen_act, varieties
from edge_assist.answers.support import WordEncoder, Words, closest_word, is_content
from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.answer_text import names_past_day, tell
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import TOOL, lexical_kind
from edge_assist.text import kinds_of_things

# A stretch of the session longer than this with no clip is time memory does not cover.
COVERAGE_GAP_S = 120.0
# A question's word this close (contextual word cosine) to a word of the closest moments may
# be named there in other words: its absence is not shown.
NAMED_COSINE = 0.6
# How many of the moments ranked closest to the question are read word by word for that.
NEAREST = 5


@dataclass(frozen=True)
class Unseen:
    """A thing the question names that memory never shows, and how near memory's nearest word is."""

    thing: str
    closest: float


def covers(clips: Sequence[CaptionRecord], before_t: float) -> bool:
    """Whether `clips` (one session, in time order) cover its stream from the start to `before_t`."""
    if not clips:
        return False
    ends = [0.0, *(c.t1 for c in clips)]
    starts = [c.t0 for c in clips]
    if any(s - e > COVERAGE_GAP_S for s, e in zip(starts, ends, strict=False)):
        return False
    last = max(c.t1 for c in clips)
    return before_t == float("inf") or before_t - last <= COVERAGE_GAP_S


def asked_things(focus: str) -> list[str]:
    """The things a yes/no question names (`meaning.things`), its first word taken for its verb,
    tools left out: a caption names the same bowl a dish, a basin or a pan, so a tool named
    nowhere does not show that the act did not happen."""
    said = meaning.implied(focus)  # "pepper the tuna" names the pepper too
    return [t for t in meaning.things(said, verb_first=said == focus) if lexical_kind(t) != TOOL]


def unseen(
    focus: str,
    clips: Sequence[CaptionRecord],
    focus_words: Words | None,
    nearest_words: Sequence[Words],
    *,
    others_apart: bool = False,
) -> Unseen | None:
    """The thing the question names that no clip names, in the same or other words, else None.
    With `others_apart`, a word naming another thing of the same kind is not the thing said
    otherwise, however close the encoder puts it ("strawberries" for the blueberries asked)."""
    for thing in asked_things(focus):
        if lexical_kind(thing) is None:
            # a word no lexicon knows ("stalks"): its other names ("stems") are not known either,
            # so its absence from memory shows nothing
            continue
        if any(thing_naming.thing_in(thing, c.text) for c in clips):
            continue
        closest = _closest(thing, focus_words, nearest_words, others_apart)
        if closest < NAMED_COSINE:
            return Unseen(thing, closest)
    return None


def _closest(
    thing: str, focus_words: Words | None, nearest_words: Sequence[Words], others_apart: bool = False
) -> float:
    """The best cosine between the question's word for `thing` and any word of the nearest moments
    (1.0 when the encoder gives no word vectors: nothing is shown absent then)."""

    def kept(word: str) -> bool:
        return is_content(word) and not (others_apart and another_of_its_kind(thing, singular(word.lower())))

    return closest_word(focus_words, lambda w: singular(w.lower()) == thing, nearest_words, kept)


def another_of_its_kind(thing: str, word: str) -> bool:
    """Whether `word` names a thing other than `thing` that a kind holds beside it: strawberry
    and blueberry (fruit), cheddar and mozzarella; not a name of the thing, a kind covering it
    ("berry", "fruit") or a kind it covers."""
    k = kinds_of_things
    if word == thing or k.same_thing(thing, word) or k.covers(thing, word) or k.covers(word, thing):
        return False
    if word.endswith(thing) or thing.endswith(word):
        return False  # "strawberry" is a berry, a "bell-pepper" a pepper
    return any(thing in members and word in members for members in k.KINDS.values())


def seen_instead(focus: str, ranked: Sequence[Moment], missing: str = "") -> Moment | None:
    """The closest related thing done: the best-ranked moment naming another of the missing
    thing's kind (butter for the oil asked), else one telling the question's act, else the
    best-ranked moment."""
    for m in ranked if missing else ():
        if varieties.sibling_difference(missing, m.text) is not None:
            return m
    verb = meaning.parse(focus).verb
    if verb:
        for m in ranked:
            if meaning.tells(verb, m.text):
                return m
    return ranked[0] if ranked else None


# A question that places the act against another ("before the cheese", "while it was in the
# microwave") asks about their relation: an absent thing shows no "No" to that.
_RELATION = re.compile(r"\b(?:before|after|while|during|until|since|when|once)\b", re.I)


def may_say_no(question: str, session_id: str | None) -> bool:
    """A "No" is about this session's time and one act: a question naming an earlier day, or
    placing the act against another, is left unsaid."""
    return session_id is not None and not names_past_day(question) and not _RELATION.search(question)


def main_act(question: str, focus: str) -> str | None:
    """The act a yes/no question asks about, without what it is placed against: "add salt" of
    "did I add salt while the pan heated?". An act that never happened happened at no time, so
    its "No" is earned as a plain question's is. None when the focus opens with the relation."""
    if not _RELATION.search(question):
        return focus
    at = _RELATION.search(focus)
    if at is None:
        return focus
    main = focus[: at.start()].strip(" ,")
    return main if len(main.split()) >= 2 else None


def compose(focus: str, seen: Moment | None) -> str:
    """ "No: at 3:39 you topped cup with 1 tablespoon of salsa, but I didn't see you add salt." """
    asked = _second_person(focus)
    if seen is None:
        return f"No, I didn't see you {asked}."
    told = tell(seen.text, seen.t0, seen.note).rstrip(".")
    return f"No: {told[0].lower()}{told[1:]}, but I didn't see you {asked}."


def _second_person(focus: str) -> str:
    s = " ".join(focus.split()).rstrip("?.! ")
    s = re.sub(r"\bmy\b", "your", s, flags=re.I)
    s = re.sub(r"\bmyself\b", "yourself", s, flags=re.I)
    s = re.sub(r"\b(?:I|me)\b", "you", s)
    return s[0].lower() + s[1:] if s[:1].isupper() and not s[:2].isupper() else s


async def answer(
    recall: Recall,
    clock: Clock,
    encoder: TextEncoder,
    question: str,
    focus: str,
    ranked: Sequence[Moment],
    *,
    before_t: float,
    session_id: str | None,
) -> tuple[str | None, dict[str, Any]]:
    """The earned "No" to a yes/no question no moment answered, or None ("I don't remember"),
    with what was found for the trace."""
    if session_id is None or names_past_day(question):
        return None, {"no": "not earned: no session of today, or the question names another day"}
    main = main_act(question, focus)
    if main is None:
        return None, {"no": "not earned: the question asks when, against another act"}
    focus = main
    clips, _ = await clock.run_blocking(recall.clips_in_period, session_id, 0.0, before_t)
    if not covers(clips, before_t):
        return None, {"no": f"not earned: memory does not cover the session ({len(clips)} clips)"}
    today = [m for m in ranked if m.note == "" and m.session_id == session_id][:NEAREST]
    thing_no = await unseen_thing_no(clock, encoder, focus, clips, today)
    if thing_no is None:
        return await _act_no(clock, encoder, focus, clips, today)
    said, missing, seen = thing_no
    trace = {
        "no": f"earned: {missing.thing!r} named nowhere in memory (closest word {missing.closest:.2f})",
        "seen_instead": None if seen is None else [seen.session_id, seen.clip_index, seen.text],
    }
    return said, trace


async def earned(
    recall: Recall,
    clock: Clock,
    encoder: TextEncoder,
    question: str,
    focus: str,
    kind: str,
    chosen: Moment | None,
    found: Sequence[Moment],
    *,
    before_t: float,
    session_id: str | None,
    trace: dict[str, Any],
) -> Moment | None:
    """The chosen moment, or None when it cannot be the answer: one act of an order question
    ("salt before the pepper"), or a Yes, a time or an amount of a thing memory names nowhere
    (`kind` "" when options are given: the option says what was used)."""
    if chosen is not None and "order" in trace and not order.tells_an_order(chosen.text):
        return None
    if chosen is None or kind not in ("yesno", "when", "howmuch"):
        return chosen
    if kind == "howmuch":
        # "how much butter did I melt in?": the amount of a thing, read as the act on it
        asked = quantity_question.parse(question)
        if asked is None or asked.times or not asked.said_thing:
            return chosen
        focus = f"{asked.verbs[0] if asked.verbs else 'use'} {asked.said_thing}"
    unearned = await yes_unearned(
        recall, clock, encoder, focus, chosen, found, before_t=before_t, session_id=session_id
    )
    if unearned is None:
        return chosen
    trace["unearned"] = f"{unearned!r} named nowhere in memory, nor by the chosen moment"
    return None


async def yes_unearned(
    recall: Recall,
    clock: Clock,
    encoder: TextEncoder,
    focus: str,
    chosen: Moment,
    ranked: Sequence[Moment],
    *,
    before_t: float,
    session_id: str | None,
) -> str | None:
    """The thing asked about, when no clip of the session names it and the chosen moment does not
    either: "did any tomatoes go in the sauce?" is not answered Yes by "adds soy sauce to the
    vegetables", however close the words; else None."""
    # only the thing the act is done to: "water to the tomato sauce" is the water, and a place
    # called otherwise ("tomato mix") is no reason to doubt it went in. Named by the chosen moment,
    # or a word no lexicon knows: nothing to read from memory (the common case, kept cheap)
    thing = meaning.parse(focus).thing
    if (
        session_id is None
        or not thing
        or lexical_kind(thing) is None
        or thing_naming.thing_in(thing, chosen.text)
    ):
        return None
    clips, _ = await clock.run_blocking(recall.clips_in_period, session_id, 0.0, before_t)
    today = [m for m in ranked if m.note == "" and m.session_id == session_id][:NEAREST]
    # a Yes needs the thing itself: another of its kind however near ("strawberries" for the
    # blueberries asked) does not earn one, though it is no reason for a "No" either
    told = await unseen_thing_no(clock, encoder, focus, clips, today, others_apart=True)
    return thing if told is not None and told[1].thing == thing else None


async def unseen_thing_no(
    clock: Clock,
    encoder: TextEncoder,
    focus: str,
    clips: Sequence[CaptionRecord],
    nearest: Sequence[Moment],
    *,
    others_apart: bool = False,
) -> tuple[str, Unseen, Moment | None] | None:
    """The "No" a thing of `focus` named nowhere in `clips` earns, with the thing and the moment
    told instead (of `nearest`, the moments closest to the question, whose words are read for the
    thing said otherwise); None when every thing may be shown."""
    words: list[Words | None] = [None] * (len(nearest) + 1)
    if isinstance(encoder, WordEncoder):
        words = list(await clock.run_blocking(encoder.encode_words, [focus, *(m.text for m in nearest)]))
    missing = unseen(
        focus, clips, words[0], [w for w in words[1:] if w is not None], others_apart=others_apart
    )
    if missing is None:
        return None
    seen = seen_instead(focus, nearest, missing.thing)
    return compose(focus, seen), missing, seen


async def _act_no(
    clock: Clock,
    encoder: TextEncoder,
    focus: str,
    clips: Sequence[CaptionRecord],
    today: Sequence[Moment],
) -> tuple[str | None, dict[str, Any]]:
    """The "No" to an act never told on a thing memory shows (answers/unseen_act.py), else None."""
    act, why = await unseen_act.earned(clock, encoder, focus, clips)
    if act is None:
        return None, {"no": why}
    shown = {(c.session_id, c.clip_index) for c in act.showing}
    seen = next((m for m in today if (m.session_id, m.clip_index) in shown), None)
    seen = seen or Moment.of_clip(act.showing[-1])  # else what was last done to the thing
    return compose(focus, seen), {"no": why, "seen_instead": [seen.session_id, seen.clip_index, seen.text]}
