"""Ways of speaking a question that say its act or its time out of the usual place, said again
plainly: "at the end there, did I ...?" asks "did I ... at the end?", "shake in the pepper" is
"shake the pepper in" (as captions put it), "roll the thing up" is "roll it up", "get the oil
going" is heating it. Each keeps the question's meaning; anything else is left as said.
"""

from __future__ import annotations

import re

from edge_assist.text.action_families import verb_base
from edge_assist.text.kinds_of_things import is_food
from edge_assist.text.verb_forms import is_verb, past_tense, present_participle

# "at the end there, did I ...?", "earlier on, when did I ...?": when the question is about, said
# first; it is said after the act instead, where the time of an act is read (or dropped from an
# order question, whose two acts say when)
_LEAD_TIME = re.compile(
    r"^((?:at\s+the\s+(?:very\s+)?(?:end|start|beginning)|at\s+first|in\s+the\s+end|earlier(?:\s+on)?"
    r"|just\s+now|a\s+(?:bit|while|minute|moment)\s+ago|(?:this|that)\s+(?:morning|afternoon|evening)|today)"
    r"(?:\s+there)?)\s*[,:-]\s+(?=(?:did|do|was|were|have|had|is|are|when|what|which|how|where)\b)",
    re.I,
)
_THERE = re.compile(r"\s+there$", re.I)
# "did I shake in the pepper?": the particle said before the food it puts in; said after it ("shake
# the pepper in") the act reads as captions tell it. A vessel after "in" is where ("stir in the pan").
_PARTICLE_FIRST = re.compile(
    r"\b((?:shak|chuck|pop|tip|stir|mix|fold|whisk|sprinkl|drop|bung|drizzl|squeez|pour"
    r"|crack|tear|crumbl|grat|shav|spoon|scoop)[a-z]*)\s+in\s+((?:the|some|my|a|an|that|those)\s+)?"
    r"([a-z-]+)(?=\s*$|\s+(?:before|after|first|too|as\s+well|at|then|and|yet|already)\b)",
    re.I,
)

# "did I roll the thing up?", "did I flip the whole lot?": a word that names nothing points, as "it" does
_VAGUE_THING = re.compile(r"\bthe\s+(?:whole\s+)?(?:thing|lot)\b(?!\s+of\b)", re.I)

# "did I get some oil going in the pan?", "did I get the rice going?": heating it, or cooking it
_GOING = re.compile(r"^(did|have|had)\s+(?:i|you)\s+(?:get|got|gotten)\s+(.+?)\s+going\b\s*(.*)$", re.I)
_HEATED = frozenset(
    "oil butter water pan skillet pot saucepan wok kettle stove hob grill oven griddle tawa".split()
)


# "when did I tip it all out onto the plate?": when it was put on the plate
_OUT_ONTO = re.compile(
    r"\b(?:tip|tipped|turn|turned|scrape|scraped)\s+(it|them)\s+(?:all\s+)?out\s+(onto|on|into)\b", re.I
)
# "how long did the washing-up take?", "was I doing the dishes?": washing the dishes, in the
# form of the verb it stands for
_DISHES = re.compile(r"\b(do|does|did|doing|done)\s+the\s+(?:dishes|washing[\s-]up)\b", re.I)
_WASHING_UP = re.compile(r"\bthe\s+washing[\s-]up\b", re.I)
_TOOK = re.compile(r"\bdid\s+the\s+(?:dishes|washing[\s-]up)\s+(?:take|last)(?:\s+me)?\b", re.I)
_WASH_FORMS = {"do": "wash", "does": "wash", "did": "wash", "doing": "washing", "done": "washed"}
# "did I end up mashing it?": whether it was mashed
_ENDED_UP = re.compile(r"^(did|have|had)\s+(i|you)\s+(?:end|ended)\s+up\s+([a-z]+)ing\b(.*)$", re.I)
# "did I get the tuna open?", "I got the skillet heating": opening it, heating it. The thing is a
# short name with its article; "going" is got_going's, which picks heating or cooking.
_GOT_THING = re.compile(
    r"\b(did|have|had)?(\s*)\b(i|you)\s+(?:get|got|gotten)\s+((?:the|my|a|an|some|that|this)\s+[a-z-]+(?:\s+[a-z-]+)?)"
    r"\s+(open|([a-z]+)ing)\b",
    re.I,
)
# "how long did it take me to dish it up?": how long I was dishing it up
_TOOK_ME_TO = re.compile(r"^how\s+long\s+did\s+it\s+take(?:\s+(?:me|you))?\s+to\s+([a-z]+)\b", re.I)
# "pushing the onions round the pan", "moving it around the pot": stirring them
_PUSHED_ROUND = re.compile(
    r"\b(push|pushing|pushed|move|moving|moved|shove|shoving|shoved)\s+((?:the|my|it|them)\b(?:\s+[a-z-]+)?)\s+(?:a)?round"
    r"(\s+)(?=(?:the|my|a)\s+(?:frying\s+)?(?:pan|pot|wok|skillet|saucepan|bowl|tray)\b)",
    re.I,
)
# "... while I was cooking": in a kitchen that is the whole time, and names no act to look up
_WHILE_COOKING = re.compile(
    r",?\s+(?:while|when|as)\s+(?:i|you)\s+(?:was|were)\s+(?:cooking|making\s+(?:dinner|lunch|breakfast|food|the\s+food))$",
    re.I,
)
# "when did I chuck the noodles in the water?", "did I bung the garlic in?": adding them, as a
# caption says it ("adds noodles to boiling water"); into an appliance or the bin it is no adding
_CHUCKED_IN = re.compile(
    r"\b(chuck|chucked|chucking|bung|bunged|bunging|pop|popped|popping)\s+((?:the|some|a|an|my|it|them)\b"
    r"(?:\s+[a-z-]+){0,2}?)\s+(?:in|into)\b(?!\s+(?:the|a|my)\s+(?:microwave|oven|fridge|freezer|toaster|dishwasher"
    r"|bin|trash|sink|air[\s-]fryer)\b)(\s+(?:the|a|my)\b)?",
    re.I,
)
# "did I put a lid on it?", "put the lid on the pan": covering it ("I put the lid on" stays: a
# caption says it so)
_LID_PUT = re.compile(
    r"\b(put|puts|putting|stick|stuck|pop|popped)\s+(?:a|the)\s+lid\s+on\s+(it|them|(?:the|my)\s+[a-z-]+)",
    re.I,
)
# "when did I put the pan on to heat?": heating it
_PUT_ON_TO = re.compile(r"\bput\s+((?:the|my|a|some)\s+[a-z]+)\s+on\s+to\s+(heat|warm|boil|cook)\b", re.I)


def _ing_base(stem: str) -> str | None:
    """The verb of an -ing form without its ending: "mash", "bak" -> "bake", "stirr" -> "stir"."""
    for verb in (stem, f"{stem}e", stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else ""):
        if verb and is_verb(verb):
            return verb
    return None


def _got_thing(m: re.Match[str]) -> str:
    """ "did I get the tuna open" -> "did I open the tuna"; "I got the skillet heating" -> "I
    heated the skillet"; kept as said when the -ing word is no verb ("got the pan sizzling" is)."""
    helper, space, who, thing, state, stem = m.groups()
    if state.lower() == "going":
        return m.group(0)
    verb = "open" if state.lower() == "open" else _ing_base(stem.lower())
    if verb is None:
        return m.group(0)
    if helper:
        return f"{helper}{space}{who} {verb} {thing}"
    # "before I got the skillet heating": when it began, the first time of the act
    return f"{space}{who} first {past_tense(verb)} {thing}"


def _as_said(said: str, verb: str) -> str:
    """`verb` in the form `said` has: "pushed" -> "stirred", "chucking" -> "adding", "puts" ->
    "covers"; "put" and the like, past and base alike, stay base."""
    w = said.lower()
    base = verb_base(w) or w
    if w == base:
        return verb
    if w.endswith("ing"):
        return present_participle(verb)
    if w in (f"{base}s", f"{base}es"):
        return f"{verb}es" if verb.endswith(("s", "sh", "ch", "x")) else f"{verb}s"
    return past_tense(verb)


def _particle_after(q: str) -> str:
    m = _PARTICLE_FIRST.search(q)
    if m is None or not is_food(m.group(3)):
        return q
    return f"{q[: m.start()]}{m.group(1)} {m.group(2) or ''}{m.group(3)} in{q[m.end() :]}"


def time_said_first(q: str) -> str:
    """ "at the end there, did I stir it" -> "did I stir it at the end"; the lead dropped from an
    order question and when it only says "before now"."""
    lead = _LEAD_TIME.match(q)
    if lead is None:
        return q
    q = q[lead.end() :]
    when = " ".join(_THERE.sub("", lead.group(1)).lower().replace("very ", "").split())
    when = "at the end" if when == "in the end" else when
    # the time of one act is kept where it is read; "earlier", "just now" and the like say only
    # that it was before the question (a "minute ago" would name another day)
    if when.startswith(("at ", "today")) and not re.search(r"\b(?:before|after|first)\b", q, re.I):
        q = f"{q} {when}"
    return q


def said_plainly(q: str) -> str:
    """The particle put after the food it puts in, a word that names nothing said as "it", "put the
    pan on to heat" as heating it, and "end up doing" as doing."""
    q = _PUT_ON_TO.sub(lambda m: f"{m.group(2)} {m.group(1)}", _VAGUE_THING.sub("it", _particle_after(q)))
    q = _OUT_ONTO.sub(lambda m: f"put {m.group(1)} {m.group(2)}", q)
    lid = _LID_PUT.sub(lambda m: f"{_as_said(m.group(1), 'cover')} {m.group(2)}", q)
    q = _GOT_THING.sub(_got_thing, lid)
    q = _CHUCKED_IN.sub(
        lambda m: f"{_as_said(m.group(1), 'add')} {m.group(2)}{' to' + m.group(3) if m.group(3) else ''}",
        q,
    )
    q = _PUSHED_ROUND.sub(lambda m: f"{_as_said(m.group(1), 'stir')} {m.group(2)} in ", q)
    q = _WHILE_COOKING.sub("", q)
    q = _TOOK_ME_TO.sub(lambda m: f"how long was I {present_participle(m.group(1).lower())}", q)
    q = _TOOK.sub("was I washing the dishes", q)  # "how long did the washing-up take me?"
    q = _DISHES.sub(lambda m: f"{_WASH_FORMS[m.group(1).lower()]} the dishes", q)
    q = _WASHING_UP.sub("washing the dishes", q)
    if (m := _ENDED_UP.match(q)) and (verb := _ing_base(m.group(3).lower())):
        q = f"{m.group(1)} {m.group(2)} {verb}{m.group(4)}"
    return q


def got_going(low: str) -> str | None:
    """ "did I heat some oil in the pan" for "did I get some oil going in the pan", or None."""
    m = _GOING.match(low)
    if m is None or m.group(2).split()[0] in ("on", "with", "to"):
        return None  # "get going on the onions" is starting them (framed_questions.py)
    act = "heat" if m.group(2).split()[-1] in _HEATED else "cook"
    rest = f" {m.group(3)}" if m.group(3) else ""
    return f"did I {act} {m.group(2)}{rest}"
