"""What "it" and "them" in a caption stand for: the things the clip before named.

Recipes and the people reading them go on from one step to the next by a pronoun: "Rinse a
tomato", then "Gently dry it with a paper towel", then "Slice it". A question names the thing
("did I dry the tomato off?"), and the clip that tells the drying names no tomato, so it reads as
about something else and the act is not found. A captioner on 10-second clips does the same
("The person keeps stirring it.").

So a caption whose only thing is a pronoun is read with the things the clip right before it
named, or, when that clip too named them by a pronoun, what that one stood for. Only the clip
right before is read: two clips back the wearer may well have moved on to something else. A
caption that names nothing at all ("In between, I'm nuking for three mins, stirring.") is not
read so: on questions no rule was written from, that cost more answers than it gave.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

_PRONOUN = re.compile(r"\b(?:it|them)\b", re.I)
# "it" that stands for no thing: the weather of a phrase ("make it", "is it", "it's time")
_EMPTY_IT = re.compile(r"\b(?:it(?:'s| is) (?:time|ready|done|okay|ok|fine)|make it|get it right)\b", re.I)


def refers_back(caption: str, things: list[str]) -> bool:
    """Whether `caption`, whose own things are `things`, names what it works on only by a pronoun."""
    return not things and _PRONOUN.search(caption) is not None and _EMPTY_IT.search(caption) is None


def readings(captions: Iterable[str], things_of: Callable[[str], list[str]]) -> list[list[str]]:
    """Per caption of one stream, in time order: what its pronoun stands for (the things the
    caption before it named, by `things_of`), or [] when it names its own things or none came
    right before."""
    out: list[list[str]] = []
    before: list[str] = []
    for caption in captions:
        own = things_of(caption)
        meant = before if refers_back(caption, own) else []
        out.append(meant)
        before = list(dict.fromkeys(own)) or meant
    return out
