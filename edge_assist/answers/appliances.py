"""Where a thing was cooked: "did I cook the egg on the hob?" over "zapping the egg in a dish for
thirty secs" is a "No" said with what was seen (microwave, not hob).

A question names the appliance ("on the hob", "in the oven", "in the pan"); a caption names one
too, or tells it by a verb that only one appliance does ("nuking", "baking"). Appliances are
compared by what heats: the hob with its pans, the microwave, the oven, the toaster. A dish "safe
for the microwave" is no use of it.
"""

from __future__ import annotations

import re

from edge_assist.answers.focus import verb_base
from edge_assist.tasks.details import Difference

_GROUPS = {
    "hob": "hob stove stovetop cooktop burner pan skillet frying-pan frypan pot saucepan wok griddle",
    "microwave": "microwave",
    "oven": "oven",
    "toaster": "toaster",
    # cookers of their own: rice cooked in one was never in a pot on the hob
    "rice cooker": "rice-cooker",
    "slow cooker": "slow-cooker crockpot crock-pot",
    "pressure cooker": "pressure-cooker instant-pot",
    "air fryer": "air-fryer airfryer",
    "kettle": "kettle",
}
# Two-word names, read as one word
_TWO_WORDS = re.compile(r"\b(rice|slow|pressure|instant|air)\s+(cooker|fryer|pot)\b", re.I)
_OF = {w: g for g, words in _GROUPS.items() for w in words.split()}
# Verbs only one appliance does.
_VERBS = {"microwave": "microwave", "nuke": "microwave", "zap": "microwave", "bake": "oven", "roast": "oven"}
_ASKED = re.compile(
    r"\s*\b(?:on|in|into|over|under)\s+(?:the|a|my|your)\s+("
    + "|".join(sorted(_OF, key=len, reverse=True))
    + r")\b",
    re.I,
)
# Names of things, not uses: a microwave-safe dish, baking soda.
_SAFE = re.compile(
    r"\b(?:microwave|oven)(?:-|\s)?(?:safe|able|proof)\b|\bmicrowavable\b"
    r"|\bbaking\s+(?:soda|powder|paper)\b",
    re.I,
)
_WORD = re.compile(r"[a-z-]+")


def asked(focus: str) -> str | None:
    """The appliance a question says its act was done on or in ("hob" of "on the hob")."""
    m = _ASKED.search(_joined(focus))
    return m.group(1).lower() if m else None


def _joined(text: str) -> str:
    return _TWO_WORDS.sub(lambda m: f"{m.group(1)}-{m.group(2)}", text)


def told(caption: str) -> list[str]:
    """The appliance groups a caption tells, by name or by a verb only one of them does."""
    out = []
    for w in _WORD.findall(_SAFE.sub(" ", _joined(caption.lower()))):
        group = _OF.get(w) or _VERBS.get(verb_base(w) or "")
        if group and group not in out:
            out.append(group)
    return out


def appliance_difference(focus: str, caption: str) -> Difference | None:
    """The appliance the question asks that the caption tells otherwise (and never as asked)."""
    word = asked(focus)
    if word is None:
        return None
    groups = told(caption)
    if not groups or _OF[word] in groups:
        return None
    return Difference("appliance", word, groups[0])


def tells_asked(focus: str, caption: str) -> bool:
    word = asked(focus)
    return word is not None and _OF[word] in told(caption)


def without_appliance(focus: str) -> str:
    """ "cook the egg on the hob" -> "cook the egg"."""
    return " ".join(_ASKED.sub(" ", _joined(focus)).split())


def place_told(focus: str, caption: str) -> str:
    """The focus without the appliance it names when the caption tells that appliance, by name or
    by its verb ("cover the bowl in the microwave" of "microwaving the dish, covered"): the place
    is then no thing the caption has to name; else the focus as it is."""
    return without_appliance(focus) if tells_asked(focus, caption) else focus
