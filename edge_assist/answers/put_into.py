"""Whether a caption puts a thing into or onto something: "grinding pepper to the dish",
"squeezing lemon into the bowl of batter". A verb of its own manner ("grind", "squeeze") then
still adds the thing, as the question's "add" asks."""

from __future__ import annotations

import re

from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.kinds_of_things import same_thing

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
