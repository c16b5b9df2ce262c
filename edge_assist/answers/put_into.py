"""Whether a caption puts a thing into or onto something: "grinding pepper to the dish",
"squeezing lemon into the bowl of batter". A verb of its own manner ("grind", "squeeze") then
still adds the thing, as the question's "add" asks."""

from __future__ import annotations

import re

from edge_assist.answers.focus import verb_base
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.action_families import BROAD, same_act
from edge_assist.text.kinds_of_things import covers, same_thing

# Where a caption puts its thing: "to the dish", "into a bowl", "onto the warm toast".
_INTO = re.compile(
    r"\b(?:to|into|onto)\s+(?:the|a|an|each|your|my|his|her|their)\s+([a-z-]+)(?:\s+([a-z-]+))?", re.I
)


def puts_into(caption: str, thing: str) -> bool:
    """Whether the caption puts `thing` into or onto a vessel or a food: not "to the table", and
    not into `thing` itself ("pour the egg into the cup" puts no cup anywhere)."""
    if lexical_kind(thing) == TOOL:
        return False  # a vessel is what things are put into, not what is put
    into = [w for m in _INTO.finditer(caption) for w in m.groups() if w]
    if any(same_thing(singular(w.lower()), thing) for w in into):
        return False
    return any(lexical_kind(w) in (TOOL, MATERIAL) for w in into)


# Where a question puts its thing: "milk in the eggs", "salt into the batter", "cheese on the toast";
# with a verb that only adds, "water in with the peppers" too ("top the cup with salsa" puts salsa).
_DESTINATION = frozenset({"in", "into", "to", "onto", "on", "over"})
_TOGETHER = _DESTINATION | {"with"}
_DESTINATION_MODIFIERS = frozenset({"the", "a", "an", "my", "some", "beaten", "whisked", "cooked"})


def without_food_destination(
    words: list[str], missing: list[str], thing_at: int, thing: str, caption: str, together: bool = False
) -> list[str]:
    """The question's words without the food it says `thing` went into, when the caption puts
    `thing` into a vessel and names no food as where it went: the egg was in the dish the milk
    was tipped into. A vessel asked ("in the bowl") and a food the caption names otherwise ("on
    the toast" for "on the muffin") still count as they are said."""
    into = [w.lower() for m in _INTO.finditer(caption) for w in m.groups() if w]
    if not into or lexical_kind(singular(into[0])) != TOOL or any(lexical_kind(w) == MATERIAL for w in into):
        return words
    out = list(words)
    for food in missing:
        if lexical_kind(food) != MATERIAL or same_thing(food, thing):
            return words
        at = next((i for i in range(len(out)) if i > thing_at and singular(out[i].lower()) == food), -1)
        prep = at - 1
        while prep > thing_at and out[prep].lower() in _DESTINATION_MODIFIERS:
            prep -= 1
        if at < 0 or prep <= thing_at or out[prep].lower() not in (_TOGETHER if together else _DESTINATION):
            return words
        out = out[:prep] + out[at + 1 :]
    return out


def coats(words: list[str], at: int) -> bool:
    """Whether the verb at `at` ("covering") greases its thing: "covering the mug with cooking
    spray", not "covering the bowl" with a lid or a plate, nor "the noodles with water"."""
    tail = [w.lower() for w in words[at + 1 : at + 9]]
    if "with" not in tail:
        return False
    after = tail[tail.index("with") + 1 : tail.index("with") + 5]
    # cooking spray, oil and butter are kinds of fat to the lexicons
    return any(same_thing("fat", singular(w)) or covers("fat", singular(w)) for w in after)


# Where another thing is put: "on top of the tortilla", "onto the toast", "over the lettuce".
# ("tipping in the diced cilantro" puts the cilantro in: "in" and "to" after a verb are its particle,
# so only a surface something is put on counts)
_PLACE_BEFORE = re.compile(
    r"(?:^|\b([a-z']+)\s+)(?:on\s+top\s+of|onto|on|over|under|across)\s+(?:the|a|an|each|your|my)\s+"
    r"(?:[a-z-]+\s+){0,2}$",
    re.I,
)


def only_as_place(named: str, caption: str) -> bool:
    """Whether every naming of `named` (the caption's word for the thing asked) says where
    something else was put: "on top of the tortilla, I'm tipping egg blend"."""
    at = [m.start() for m in re.finditer(rf"\b{re.escape(named)}\b", caption, re.I)]
    return bool(at) and all(_on_a_place(caption[:i]) for i in at)


def _on_a_place(before: str) -> bool:
    m = _PLACE_BEFORE.search(before)
    return m is not None and (m.group(1) is None or verb_base(m.group(1)) is None)


# Acts whose thing is the vessel something goes into: "refill the piping bag" is told by "collects
# dough in the piping bag", "load the dishwasher" by "puts plates into the dishwasher".
FILLS = frozenset({"fill", "refill", "load", "reload", "restock", "stock"})
# The words before a vessel something goes into: "in the piping", "into a".
_INTO_BEFORE = re.compile(
    r"\b(?:in|into|inside)\s+(?:the|a|an|my|your|its|their)?\s*(?:[a-z-]+\s+){0,2}$", re.I
)


def filled_by(verb: str, named: str, words: list[str], verbs: list[tuple[int, str]]) -> str | None:
    """The caption's word that fills `named` when `verb` fills a vessel: a putting or taking verb
    of the clause whose thing goes in(to) it ("collects dough in the piping bag"); None otherwise."""
    if verb not in FILLS:
        return None
    low = [w.lower() for w in words]
    for at in (i for i, w in enumerate(low) if w == named.lower()):
        if not _INTO_BEFORE.search(" ".join(low[:at]) + " "):
            continue
        before = [(i, t) for i, t in verbs if i < at]
        if before and adds_or_takes(before[-1][1]):
            return words[before[-1][0]]
    return None


def adds_or_takes(verb: str) -> bool:
    """A way of putting a thing somewhere, or of taking it (gathering dough into a bag)."""
    return same_act(verb, "add") or same_act(verb, "take") or BROAD.get(verb) == BROAD["add"]
