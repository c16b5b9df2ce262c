"""Whether a caption names a thing a question asks about, and by which of its words.

A caption names the thing in any number ("tomatoes"), as a member of a general word the question
says ("vegetables": the lettuce), by the head word of a compound ("spring onions" for a
scallion), or, for a vessel, by another of its names ("the bowl" is the dish a captioner saw);
a plate or a dish is named by its verb too ("plated up the pancakes with strawberries" puts the
strawberries on a plate).
"""

from __future__ import annotations

import re

from edge_assist.answers.contents import one_vessel
from edge_assist.answers.focus import WORDS_OF, verb_base
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, lexical_kind
from edge_assist.text.kinds_of_things import LOOKS, covers, same_thing
from edge_assist.text.stop_words import DETERMINERS, FUNCTION_WORDS

# Heads of a dish or a product named by what it is made of: "fish soup" puts no fish anywhere,
# "peanut butter" and "vegetable oil" are no peanuts or vegetables. A sauce, a paste or a powder is
# the thing in another form ("tomato sauce" is tomato poured), and stays named by it.
MADE_OF = frozenset("soup stew stock broth oil butter milk".split())
# Where food is served, named by the verb that serves it: "plate up", "dish up".
_SERVED_ON = frozenset({"plate", "dish"})
# "put the stuff back in the fridge": whatever food the caption names ("refrigerates ingredients")
_ANY_FOOD = frozenset({"stuff", "thing", "everything", "food"})
_FOOD_WORDS = frozenset({"ingredient", "food", "grocery", "leftover", "shopping"})


def thing_in(thing: str, caption: str, *, general: bool = True, look: str = "") -> str | None:
    """The caption's word for `thing`: the thing itself in any number, or a member of it when it
    is a general word ("vegetable" -> "lettuce") and `general`, that looks as `look` says when
    one is said ("the yellow fruit": a banana), another name of the same vessel ("bowl" ->
    "dish") or the verb that serves on it ("plate" -> "plated"); None when it names none of these."""
    words = WORDS_OF.findall(caption)  # "microwave-safe" names the microwave, "mug's" the mug
    if thing.lower() in _ANY_FOOD and general:
        food = (w for w in words if singular(w.lower()) in _FOOD_WORDS or lexical_kind(w.lower()) == MATERIAL)
        found = next(food, None)
        if found is not None:
            return found  # else "sort out some stuff" is told by "organizes items", below
    # a thing that is itself such a product ("hot-sauce", "olive oil") is named by its kinds
    made = singular(re.split(r"[\s-]", thing.lower())[-1]) not in MADE_OF
    for i, w in enumerate(words):
        s = singular(w.lower())
        if made and _made_of(words, i):
            continue  # "fish soup", "olive oil": a dish or a product made of it, not the thing
        if same_thing(thing, s) or (general and covers(thing, s) and (not look or covers(look, s))):
            return w
        if i + 1 < len(words) and same_thing(thing, f"{w.lower()}-{singular(words[i + 1].lower())}"):
            return words[i + 1]  # "spring onions" for a scallion: the head word stands for it
    # A vessel is called a bowl by one and a dish by another (contents.one_vessel), when the
    # caption names none by the word asked; a plate is named by plating up.
    t = thing.lower()
    served = (w for w in words if t in _SERVED_ON and verb_base(w.lower()) == t)
    vessels = (
        w for i, w in enumerate(words) if one_vessel(t, singular(w.lower())) and not _made_of(words, i)
    )
    return next(vessels, next(served, None))


def _made_of(words: list[str], at: int) -> bool:
    """Whether the word at `at` says what the product after it is made of ("fish soup"), not which
    kind of that product it is ("soy sauce", "sriracha sauce": the kinds name the sauce)."""
    if at + 1 >= len(words):
        return False
    head = singular(words[at + 1].lower())
    return head in MADE_OF and not covers(head, singular(words[at].lower()))


def general_word(words: list[str], at: int) -> bool:
    """A general word stands for its members unless a word qualifies it: "italian seasoning" is
    one thing, "any vegetables" every vegetable."""
    prev = words[at - 1].lower() if at > 0 else ""
    return (
        not prev
        or prev in DETERMINERS
        or prev in FUNCTION_WORDS
        or prev[0].isdigit()
        or bool(verb_base(prev))
    )


def look_before(words: list[str], at: int) -> str:
    """The look said right before a general word ("the yellow fruit", "the red sauce"), or ""."""
    prev = words[at - 1].lower() if at > 0 else ""
    return prev if prev in LOOKS and words[at].lower() != prev else ""
