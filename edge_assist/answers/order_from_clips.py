"""Order questions answered from the session's clips when retrieval did not find both acts.

Two things put in ("did the butter go in before the vanilla?") are answered by the things
alone: a caption may tell the butter melted in the cup, never "added". Then every clip that
names one thing must come before every clip that names the other (`by_things`): a thing named
on both sides of the other, or in one clip with it, leaves the order unknown.

An act asked to come before or after another that never happened did not come before or after
anything: that "No" is earned as a yes/no question's is, over a session memory covers from its
start. The act never happened when a thing it names is nowhere in memory, in any words
(answers/earned_no.py: "did I add the basil before the cheese?" where no basil was seen), or when
no clip ever tells it on a thing the clips do show ("did I whisk the egg before it went in the
microwave?" where the egg was only poured and zapped; answers/unseen_act.py).

A second act that no clip tells on its thing may be told with no thing at all: "I zapped for two
mins" is the egg's zap when the egg is what is in the dish. Such clips, naming nothing but the
appliance of the act, stand for the second act when every one of them falls on one side of every
moment that may tell the first (`second_told_bare`).
"""

from __future__ import annotations

from collections.abc import Sequence

from edge_assist.answers import meaning, thing_naming, unseen_act
from edge_assist.answers.earned_no import NEAREST, compose, covers, unseen_thing_no
from edge_assist.answers.focus import VAGUE
from edge_assist.answers.order import Found, Ordered, before_or_after, clip_key, first_then, holds_then
from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.action_families import ACTING_APPLIANCES, BROAD, covers_act
from edge_assist.text.numbers import CARDINALS, FRACTIONS
from edge_assist.text.stop_words import DETERMINERS, FUNCTION_WORDS
from edge_assist.text.units import UNITS


def by_things(asked: Ordered, clips: Sequence[CaptionRecord]) -> tuple[str, list[Moment]] | None:
    """The order of two things put in, from the clips that name each (`clips` in time order), or
    None: the acts are not both putting in an ingredient (or a thing no lexicon knows), or the
    clips naming the two are not all in one order. Of the clips naming a thing, those that put it
    in stand for it when there are any ("opening a can of tuna" is not the tuna going in)."""
    first, second = _put(asked.first), _put(asked.second)
    if asked.second_which or first is None or second is None:
        return None
    ones, others = _putting(*first, clips), _putting(*second, clips)
    if not ones or not others or {clip_key(c) for c in ones} & {clip_key(c) for c in others}:
        return None
    if max(c.t0 for c in ones) < min(c.t0 for c in others):
        first_came = True
    elif max(c.t0 for c in others) < min(c.t0 for c in ones):
        first_came = False
    else:
        return None
    a, b = (Moment.of_clip(ones[0]), Moment.of_clip(others[0]))
    early, late = (a, b) if first_came else (b, a)
    if asked.word == "first":
        return first_then(early, late), [early, late]
    if asked.word == "either":
        return before_or_after(first_came, early, late), [a, b]
    holds = first_came if asked.word == "before" else not first_came
    return holds_then(holds, early, late), [a, b]


# The verbs of putting a thing in, as the focus parser gives them ("throw in", "toss in": add).
_PUTS = frozenset({"add", "put", "pour"})


def _put(focus: str) -> tuple[str, set[str]] | None:
    """The thing a focus puts in and the words said before it ("add the black pepper": pepper,
    {black}), an ingredient or a word no lexicon knows ("sriracha"), never a tool or a vague word
    ("the stuff"); None otherwise."""
    asked = meaning.parse(focus, verb_first=True)
    thing = asked.thing
    if asked.verb not in _PUTS or not thing or {thing, f"{thing}s"} & VAGUE:
        return None
    if lexical_kind(thing) not in (MATERIAL, None):
        return None
    words = meaning.tokens(focus.lower())
    before = words[asked.verb_at + max(asked.verb_words, 1) : asked.thing_at]
    return thing, {w for w in before if w not in DETERMINERS}


def _putting(thing: str, describers: set[str], clips: Sequence[CaptionRecord]) -> list[CaptionRecord]:
    """The clips that name `thing` as asked, those that put it in when any do."""
    named = [c for c in clips if _names(thing, describers, c.text)]
    put = [c for c in named if any(covers_act("add", told) for _, told in meaning.caption_verbs(c.text))]
    return put or named


def _names(thing: str, describers: set[str], text: str) -> bool:
    """Whether a clip names `thing` with no describer other than those asked: "red bell pepper" is
    not the black pepper asked about; "a quarter tsp pepper" may be."""
    word = thing_naming.thing_in(thing, text, general=False)
    if word is None:
        return False
    words = meaning.tokens(text.lower())
    at = words.index(word.lower()) if word.lower() in words else -1
    said = words[at - 1] if at > 0 else ""
    return not describers or said in describers or not _describes(said)


def _describes(word: str) -> bool:
    """A word that may tell which of a thing's kinds it is ("red", "bell", "diced"), not its amount
    or its place in the sentence ("a", "tsp", "quarter", "to", "plus")."""
    if not word.isalpha() or word in DETERMINERS or word in FUNCTION_WORDS or word in UNITS:
        return False
    return word not in CARDINALS and word not in FRACTIONS and word != "plus"


async def first_unseen(
    asked: Ordered,
    first: Found,
    clips: Sequence[CaptionRecord],
    before_t: float,
    clock: Clock,
    encoder: TextEncoder,
) -> tuple[str, list[Moment]] | None:
    """ "No: ..., but I didn't see you whisk the egg." for a before/after question whose first act
    never happened, earned as a yes/no question's "No" is (answers/earned_no.py): a thing it names
    that memory never shows, in any words, or an act no clip tells on a thing the clips show;
    else None. An act that never happened came neither before nor after anything."""
    if asked.word not in ("before", "after") or not covers(clips, before_t):
        return None
    thing_no = await unseen_thing_no(clock, encoder, asked.first, clips, first.ranked[:NEAREST])
    if thing_no is not None:
        said, _, seen = thing_no
        return said, [seen] if seen is not None else []
    act, _ = await unseen_act.earned(clock, encoder, asked.first, clips)
    if act is None:
        return None
    last = Moment.of_clip(act.showing[-1])  # what was last done to the thing
    return compose(asked.first, last), [last]


def second_told_bare(
    asked: Ordered, first: Found, clips: Sequence[CaptionRecord]
) -> tuple[str, list[Moment]] | None:
    """The order of the first act's moments and the clips that tell the second act on nothing they
    name ("I zapped for two mins, without stirring"), when they all agree; None otherwise."""
    verb = meaning.parse(asked.second, verb_first=True).verb
    if asked.word not in ("before", "after") or not first.offered or not verb or verb in BROAD:
        return None
    bare = [c for c in clips if meaning.tells(verb, c.text) and _names_nothing(c.text)]
    firsts = first.plausible or first.offered
    if not bare or len({x.t0 < y.t0 for x in firsts for y in bare}) != 1:
        return None
    a, b = first.offered[0], Moment.of_clip(bare[0])
    if clip_key(a) == clip_key(b):
        return None
    holds = a.t0 < b.t0 if asked.word == "before" else a.t0 > b.t0
    early, late = sorted((a, b), key=lambda m: m.t0)
    return holds_then(holds, early, late), [a, b]


def _names_nothing(text: str) -> bool:
    """Whether a clip names no food and no vessel: an appliance that does the act may be named."""
    for w in meaning.tokens(text.lower()):
        kind = lexical_kind(w)
        if kind == MATERIAL or (kind == TOOL and w not in ACTING_APPLIANCES):
            return False
    return True
