"""How a thing was cooked: "did I boil the potatoes?" over "puts sliced potatoes in oil" is a "No"
said with what was seen (in oil, not boiled); so is "did I fry the nuts?" over "adds nuts to the
boiling water".

The question's verb names a cooking method, and each method has its medium: boiling is done in
water, frying in oil or fat, baking and roasting in an oven. A caption that names the asked thing
tells a method by a verb of it ("fries the potatoes") or by the medium the thing goes into ("puts
potatoes in oil", "into the boiling water"). A "No" needs the moment to tell another method and
no moment to tell the asked one on the thing: potatoes boiled and then fried were boiled.
"""

from __future__ import annotations

import re

from edge_assist.answers import thing_naming
from edge_assist.answers.focus import parse, verb_base
from edge_assist.tasks.details import Difference

# Each method: the verbs that name it (base forms), and the media a thing is put in for it.
_METHODS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "boiled": (frozenset("boil parboil poach blanch simmer".split()), ("boiling water",)),
    "fried": (
        frozenset("fry deep-fry stir-fry pan-fry shallow-fry saute sauté sear".split()),
        ("oil", "hot oil", "ghee", "lard", "fat", "frying pan"),
    ),
    "baked": (frozenset("bake roast".split()), ("oven",)),
    # "steam" is left out: a caption's steam is what rises from a pot, not a way of cooking
}
_OF_VERB = {v: m for m, (verbs, _) in _METHODS.items() for v in verbs}
# "in oil", "into the boiling water", "to the hot oil": the medium a thing goes into.
_INTO = re.compile(
    r"\b(?:in|into|to)\s+(?:the\s+|a\s+|some\s+)?("
    + "|".join(sorted({re.escape(x) for _, media in _METHODS.values() for x in media}, key=len, reverse=True))
    + r")\b",
    re.I,
)
_OF_MEDIUM = {x: m for m, (_, media) in _METHODS.items() for x in media}
_MEDIUM_NAMED = re.compile(
    r"\b(?:" + "|".join(re.escape(x) for _, media in _METHODS.values() for x in media if " " in x) + r")\b",
    re.I,
)
_WORD = re.compile(r"[a-zé-]+")


def asked(focus: str) -> str | None:
    """The method the question's verb names ("boiled" of "boil the potatoes"), or None."""
    verb = parse(focus, verb_first=True).verb
    return _OF_VERB.get(verb) if verb else None


def told(caption: str) -> dict[str, str]:
    """The methods a caption tells, each as it is said back: "in oil" for the medium a thing went
    into, else the method's own word ("fried")."""
    out: dict[str, str] = {}
    for m in _INTO.finditer(caption):
        medium = m.group(1).lower()
        out.setdefault(_OF_MEDIUM[medium], f"in {medium}" if medium != "oven" else "in the oven")
    # a medium named as a thing ("checks the boiling water") tells no method by its -ing word
    for w in _WORD.findall(_MEDIUM_NAMED.sub(" ", caption.lower())):
        method = _OF_VERB.get(verb_base(w) or w)
        if method is not None:
            out.setdefault(method, method)
    return out


def method_difference(focus: str, caption: str) -> Difference | None:
    """The method the question asks that the caption, naming the asked thing, tells otherwise (and
    not as asked), or None."""
    method = asked(focus)
    thing = parse(focus, verb_first=True).thing
    if method is None or not thing or thing_naming.thing_in(thing, caption) is None:
        return None
    methods = told(caption)
    if not methods or method in methods:
        return None
    other = next(iter(methods))
    return Difference("method", method, methods[other])


def tells_asked(focus: str, caption: str) -> bool:
    """Whether the caption tells the asked method on the asked thing (or the method with no thing
    named: "boils it")."""
    method = asked(focus)
    return method is not None and method in told(caption)


def cooked(focus: str) -> str:
    """The focus with its method said as cooking: "boil the egg" -> "cook the egg"."""
    words = focus.split()
    at = next((i for i, w in enumerate(words) if _OF_VERB.get(verb_base(w.lower()) or w.lower())), None)
    return focus if at is None else " ".join([*words[:at], "cook", *words[at + 1 :]])
