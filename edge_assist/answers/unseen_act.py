"""An act never seen on a thing memory does show: "did I mash the avocado?" over a session where
the avocado was grabbed, sliced and laid on the leaves, and nothing was ever mashed.

The thing is there, so its absence earns nothing (answers/earned_no.py); the act's absence can,
but only where a caption could not have told it in words we miss. The "No" is said when:

- the question's verb is a specific act we know (a group of text/action_families.py), not a
  general one ("add", "use", "make") that a caption tells in a hundred ways;
- every clip that names the thing tells acts we know, none of them related to the asked one
  (`meaning.read(...).other_act`), and no word of it is a form of the asked act ("mashed
  avocado" tells the mash, though as a state);
- no clip of the session tells the act on anything else that may hold the thing unnamed ("it",
  "the stuff of the bowl"): a clip telling the act on things it names, none of them the asked
  one, is another thing's act;
- no word of the clips naming the thing is near the asked verb for the word encoder (`earned`).

A confident "No" about something that happened is the worst answer there is, so each of these
keeps it unsaid when in doubt: the question then gets "I don't remember you doing that".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from edge_assist.answers import meaning, thing_naming
from edge_assist.answers.focus import tokens
from edge_assist.answers.support import WordEncoder, closest_word, is_content
from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder
from edge_assist.retrieval.api import CaptionRecord
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.action_families import BROAD, known, same_act, verb_base

# Verbs that name no act of their own on a thing: a question about them is about something else.
_NO_ACT = frozenset("make have get go keep leave let see look try need want".split())
# Words a caption uses for a thing it does not name: what it holds may be the thing asked.
_UNNAMED = re.compile(r"\b(?:it|them|stuff|contents?|mix|mixture|blend|batter|everything|all)\b", re.I)
# A word of a clip naming the thing this near the asked verb may be the act in other words.
NEAR_VERB_COSINE = 0.6


@dataclass(frozen=True)
class UnseenAct:
    """The act the question asks about, the thing memory shows, and the clips that show it."""

    verb: str
    said: str  # the verb as the question says it ("mashed")
    thing: str
    showing: tuple[CaptionRecord, ...]


def _any_form(verb: str, text: str) -> bool:
    """Whether any word of `text`, a verb of its own or not ("the mashed avocado"), is a form of an
    act that `verb` names."""
    for w in tokens(text):
        base = verb_base(w)
        if base is not None and same_act(verb, base):
            return True
    return False


def _names_food(text: str, thing: str) -> bool:
    """Whether the clip names some food other than `thing`, as the object of its act."""
    for w in tokens(text):
        s = w.lower()
        if singular(s) != thing and lexical_kind(s) == MATERIAL:
            return True
    return False


def unseen_act(focus: str, clips: Sequence[CaptionRecord]) -> UnseenAct | None:
    """The act of a yes/no focus that no clip of the session tells, on a thing clips do name;
    None when the act may have been told (or the focus is not one act on one thing)."""
    asked = meaning.parse(focus, verb_first=True)
    verb, thing = asked.verb, asked.thing
    if not verb or not thing or verb in BROAD or verb in _NO_ACT or not known(verb):
        return None
    if lexical_kind(thing) in (None, TOOL):
        return None
    showing = tuple(c for c in clips if thing_naming.thing_in(thing, c.text))
    if not showing:
        return None
    for c in showing:
        if _any_form(verb, c.text) or not meaning.read(focus, c.text).other_act:
            return None
    for c in clips:
        if c in showing or not _any_form(verb, c.text):
            continue
        if _UNNAMED.search(c.text) or not _names_food(c.text, thing):
            return None  # the act on something that may hold the thing
    return UnseenAct(verb, tokens(focus)[asked.verb_at], thing, showing)


async def earned(
    clock: Clock, encoder: TextEncoder, focus: str, clips: Sequence[CaptionRecord]
) -> tuple[UnseenAct | None, str]:
    """The unseen act of `focus` when its "No" is earned, with why (or why not) for the trace:
    `unseen_act`, then no word of the clips naming the thing near the asked verb."""
    act = unseen_act(focus, clips)
    if act is None:
        return None, "not earned: memory names everything the question does"
    if not isinstance(encoder, WordEncoder):
        return None, "not earned: no word vectors to look for the act in other words"
    asked, *showing = await clock.run_blocking(encoder.encode_words, [focus, *(c.text for c in act.showing)])
    near = closest_word(
        asked,
        lambda w: w.lower() == act.said.lower(),
        showing,
        lambda w: is_content(w) and thing_naming.thing_in(act.thing, w) is None,  # "with a peeler" may peel
    )
    if near >= NEAR_VERB_COSINE:
        return None, f"not earned: a word where the {act.thing} is shown is near {act.verb!r} ({near:.2f})"
    return (
        act,
        f"earned: {act.verb!r} never told, the {act.thing} shown in {len(act.showing)} clips ({near:.2f})",
    )
