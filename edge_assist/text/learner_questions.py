"""A question in a learner's English, or with the helping verb speech-to-text left out, said
plain.

Many wearers do not ask in textbook English, and speech-to-text drops short unstressed words.
The answerer reads the plain forms, so these are said plain first:

- a wh-question with no "did": "how many spoon of sugar I used?", "how thick i cut the
  tomato?", "when I added the salt?" -> "how many spoon of sugar did I use", ...; and with the
  thing before its "was": "how long the capsicum was zapped?" -> "how long was the capsicum
  zapped";
- the thing said first, then a statement asked about it: "the cup, I have oiled it before the
  egg?", "the egg, I put it already in the cup?" -> "did I oil the cup before the egg";
- an act said as a noun after a light verb: "did I give it a stir?" -> "did I stir it", "gave
  the eggs a quick whisk" -> "whisked the eggs";
- "any hot sauce go on the plate?" -> "did any hot sauce go on the plate";
- spoons counted: "how many spoon of sugar did I use?" -> "how much sugar did I use"; "how much
  of the capsicum did I use?" -> "how much capsicum did I use";
- the thing first, asked after by "it": "the first go in the microwave how long was it" -> "how
  long was the first go in the microwave";
- the thing said first with no pause: "baking powder how much did I put in?" -> "how much
  baking powder did I put in".

What is not one of these forms is left as it is (None).
"""

from __future__ import annotations

import re

from edge_assist.text.action_families import known
from edge_assist.text.participles import participle_base
from edge_assist.text.verb_forms import is_verb, past_tense, present_participle

# Words that open a wh-question, with what may follow them before the thing ("how many", "how thick").
_WH = r"(?:how\s+(?:much|many|long|thick|thin|big|small|often|hot|far)|when|where|what|which|why)"
# A helping verb: a question that has one is already plain.
_AUX = frozenset("did do does was were is are am has have had can could will would should might must".split())
# "how many spoon of sugar I used", "when I added the salt", "how thick i cut the tomato"
_WH_NO_DID = re.compile(
    rf"^({_WH})((?:\s+[\w'-]+){{0,4}}?)\s+(i|you)\s+(?:already\s+|just\s+)?(\S+)(.*)$", re.I
)
# "how long the capsicum was zapped", "how long it was in the microwave"
_WH_THING_WAS = re.compile(
    rf"^({_WH})\s+((?:the|my|that|this|it|they)\b[\w\s'-]*?)\s+(was|were)\s+(.+)$", re.I
)
# "the cup, I have oiled it before the egg", "the egg, I put it already in the cup"
_TOPIC_STATED = re.compile(
    r"^((?:the|my|that|this|those|these)\s+[\w'-]+(?:\s+[\w'-]+)?)\s*,\s*(?:i|you)"
    r"(?:'ve|\s+have|\s+had|\s+did)?\s+(?:already\s+|just\s+)?(\S+)\s+(it|them)\b(.*)$",
    re.I,
)
# "give it a stir", "gave the eggs a quick whisk", "giving the pan a wipe", "a bit of a massage"
_LIGHT_VERB = re.compile(
    r"\b(give|gave|given|giving)\s+((?:it|them|(?:the|my|a|an|some)\s+[\w'-]+(?:\s+[\w'-]+)?))\s+"
    r"(?:a|an)\s+(?:(?:little\s+)?bit\s+of\s+an?\s+)?(?:(?:quick|good|little|final|last|gentle|proper|big|small)\s+)?"
    r"([a-z]+)\b",
    re.I,
)
# "baking powder how much did i bung in the blender": the thing said first, with no pause
_THING_THEN_HOW = re.compile(
    r"^((?:the\s+|my\s+)?[a-z-]+(?:\s+[a-z-]+){0,2}?)\s+(how\s+(?:much|many))\s+"
    r"((?:did|do|have|had)\s+(?:i|you)\b.*)$",
    re.I,
)
# "how many spoon of sugar did I use?": spoons counted are the amount of the thing
_HOW_MANY_MEASURES = re.compile(
    r"^how\s+many\s+(?:spoon|spoonful|scoop|cup|mug|glass|handful|pinch|dash|splash|drop|knob|dollop)s?"
    r"(?:ful)?\s+of\s+",
    re.I,
)
# "how much of the capsicum did I use?": the thing itself
_OF_THE = re.compile(r"^how\s+(much|many)\s+of\s+(?:the|my)\s+(?!(?:it|that|them|those|this)\b)", re.I)
# "the first go in the microwave how long was it": the thing said first, asked after by "it"
_THING_THEN_HOW_WAS = re.compile(
    r"^((?:the|my)\s+.+?)\s+(how\s+(?:long|much|many))\s+(?:was|were|is|are)\s+(?:it|they|that)$", re.I
)
# "how many times did it get nuked all up?": in all, as Australians say it
# ("dish it all up" is dishing it up)
_ALL_UP = re.compile(r"(?<!\bit)(?<!\bthem)\s+all\s+up(?=[?.!]*$)", re.I)
_ANY_GO = re.compile(r"^((?:any|some)\s+.+?)\s+(go|went|get|got)\s+(.+)$", re.I)


def plain(text: str) -> str | None:
    """`text` said plain, or None when it is none of these forms."""
    t = " ".join(text.split())
    measured = _OF_THE.sub(r"how \1 ", _HOW_MANY_MEASURES.sub("how much ", _ALL_UP.sub(" in all", t)))
    out = _light_verb(measured) or (measured if measured != t else None)
    t2 = out or t
    forms = (_wh_without_did, _topic_stated, _any_go, _thing_then_how, _thing_then_how_was)
    said = next((s for form in forms if (s := form(t2)) is not None), None)
    return said or out


def _base(word: str) -> str | None:
    w = word.lower()
    if base := participle_base(w):
        return base
    return w if is_verb(w) or known(w) else None


def _wh_without_did(t: str) -> str | None:
    m = _WH_THING_WAS.match(t)
    if m and not set(m.group(2).lower().split()) & _AUX:
        return f"{m.group(1)} {m.group(3)} {m.group(2)} {m.group(4)}"
    m = _WH_NO_DID.match(t)
    if m is None:
        return None
    between = m.group(2).split()
    verb = m.group(4).lower()
    if set(w.lower() for w in between) & _AUX or verb in (_AUX - {"did", "do"}) | {"'m", "am"}:
        return None
    base = "do" if verb in ("did", "do") else _base(verb)
    if base is None:
        return None
    thing = f" {' '.join(between)}" if between else ""
    return f"{m.group(1)}{thing} did I {base}{m.group(5)}"


def _topic_stated(t: str) -> str | None:
    m = _TOPIC_STATED.match(t)
    if m is None:
        return None
    base = _base(m.group(2))
    if base is None:
        return None
    return f"did I {base} {m.group(1)}{m.group(4)}"


def _light_verb(t: str) -> str | None:
    m = _LIGHT_VERB.search(t)
    if m is None or not (is_verb(m.group(3)) or known(m.group(3))):
        return None
    act = m.group(3).lower()
    light = m.group(1).lower()
    if light in ("gave", "given"):
        said = past_tense(act)
    else:
        said = present_participle(act) if light == "giving" else act
    return f"{t[: m.start()]}{said} {m.group(2)}{t[m.end() :]}"


def _any_go(t: str) -> str | None:
    m = _ANY_GO.match(t)
    if m is None:
        return None
    go = "go" if m.group(2).lower() in ("go", "went") else "get"
    return f"did {m.group(1)} {go} {m.group(3)}"


def _thing_then_how(t: str) -> str | None:
    m = _THING_THEN_HOW.match(t)
    if m is None or set(m.group(1).lower().split()) & (_AUX | {"i", "you", "it", "and", "so", "ok"}):
        return None
    return f"{m.group(2)} {m.group(1)} {m.group(3)}"


def _thing_then_how_was(t: str) -> str | None:
    m = _THING_THEN_HOW_WAS.match(t)
    return f"{m.group(2)} was {m.group(1)}" if m else None
