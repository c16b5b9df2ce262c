"""Questions that ask which thing was used, said as whether it was: "what kind of cheese was it?"
is "what cheese did I use", "was it whole milk?" is "did I use whole milk"."""

from __future__ import annotations

import re

from edge_assist.text.kinds_of_things import LOOKS, covers, is_food

# "what kind of cheese was it?": which cheese was used
_KIND_OF = re.compile(
    r"^what\s+(?:kind|type|sort)s?\s+of\s+(.+?)\s+(?:was|were|is|are|did\s+i\s+use)\s*(?:it|that|they|those)?$"
)


# "was it full-fat milk in the hot chocolate?", "was it a non-stick pan I used?": was that thing used
_WAS_IT = re.compile(
    r"^(?:was|were)\s+(?:it|that|they|those)\s+(?:a\s+|an\s+|the\s+|some\s+)?([a-z][a-z -]*?)"
    r"\s+(?:(?:that\s+)?(?:i|you)\s+used|(?:in|on)\s+(?:the|my|a)\s+.+)$"
)

# "was it parmesan?", "was it whole milk?", "was the cheese parmesan?", "was the pepper red?":
# which thing, or which of a kind, was the one used
_WAS_IT_FOOD = re.compile(
    r"^(?:was|were)\s+(?:it|that|they|those)\s+(?:a\s+|an\s+|some\s+)?([a-z-]+(?:\s+[a-z-]+)?)$"
)
_WAS_THE_KIND = re.compile(r"^(?:was|were|is|are)\s+(?:the|my|your)\s+([a-z-]+)\s+([a-z-]+)$")


def _used_which(low: str) -> str | None:
    """ "use parmesan cheese" for "was the cheese parmesan?", "use whole milk" for "was it whole
    milk?", or None: "was it hot?" names no food, "was the pan hot?" no kind of pan."""
    if (m := _WAS_IT_FOOD.match(low)) and is_food(m.group(1).split()[-1]):
        return f"use {m.group(1)}"
    if m := _WAS_THE_KIND.match(low):
        thing, which = m.group(1), m.group(2)
        if is_food(thing) and (covers(thing.removesuffix("s"), which) or which in LOOKS):
            return f"use {which} {thing}"
    return None


def which_used(low: str) -> str | None:
    """The question asked as the wearer's use of the thing, or None."""
    if m := _KIND_OF.match(low):
        return f"what {_said(m.group(1))} did I use"
    if m := _WAS_IT.match(low):
        return f"did I use {_said(m.group(1))}"
    if used := _used_which(low):
        return f"did I {used}"
    return None


def _said(det_and_thing: str) -> str:
    return " ".join(det_and_thing.split())
