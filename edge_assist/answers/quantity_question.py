"""A quantity question read: "how many eggs did I use?", "how long did I microwave it the first
time?", "how much salt did I put in the pan before I flipped them?": what is counted or measured
(its dimensions), the thing, the action and its verbs, which time, the vessel it went into and
an act that bounds it. Matching and answering are in answers/quantities.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edge_assist.answers.focus import parse as parse_focus
from edge_assist.answers.meaning import caption_verbs, read, verb_base
from edge_assist.answers.thing_naming import thing_in
from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import CaptionRecord
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import TOOL, lexical_kind
from edge_assist.text.action_families import APPLIANCE_ACTS, known, same_act
from edge_assist.text.stop_words import STEP_STOP_WORDS
from edge_assist.text.units import UNITS
from edge_assist.text.verb_forms import is_verb

_in_place = re.compile(r"\b(?:in|into|on|inside)\s+(?:the\s+|a\s+|my\s+)?(\w+)")

_ASK = re.compile(r"^how\s+(?P<how>many|much|long|big|large|wide|thick)\b\s*(?P<rest>.*)$")
# Where the thing asked about ends: "how much flour | went in", "how many eggs | did I use".
_VERB_START = re.compile(
    r"\b(?:did|do|does|have|had|has|was|were|am|is|are|went|go|goes|got|get|gets|came|come|used)\b"
)
_SUBJECTS = frozenset("i you we it they that this them those these".split())
# "how much of it?": no thing of its own, it leans on what was said before (answers/follow_ups.py)
_PRONOUN_ONLY = re.compile(r"^(?:(?:of\s+)?(?:it|that|them|this|those|these|there)|times?)\b")
# "before I flipped them", "until it melted": a clause about another moment, not this one.
_OTHER_CLAUSE = re.compile(r"\b(?:before|after|until|till|when|while|once)\b.*$")
_FIRST = re.compile(
    r"\b(?:(?:the|my)\s+first\s+(?:time|round|go)|at\s+first|first|initially|to\s+begin\s+with|"
    r"(?:at|near|towards?)\s+the\s+(?:very\s+)?(?:start|beginning)|(?:start(?:ed)?|began|begin)(?=\s+(?:on|with|to|the|my|\w+ing)\b))\b"
)  # "when did I start (on) the sauce?", "... start chopping?": the earliest moment of it
_LAST = re.compile(
    r"\b(?:(?:the|my)\s+last\s+(?:time|round|go)|last|(?:at|near|towards?|close\s+to)\s+the\s+(?:very\s+)?end|in\s+the\s+end"
    r"|finally|this\s+time)\b"
)
# "before I started kneading this time": the time going on now, the latest, whatever else is said
_THIS_TIME = re.compile(r"\bthis\s+time\b")
_AGAIN = re.compile(r"\b(?:the\s+)?second\s+(?:time|round|go)\b")
# Verbs that say nothing of the action: "how many eggs did I use?" is about the eggs.
_LIGHT_VERBS = frozenset(
    "use used add put have need get take took make do leave let keep go went spend spent".split()
)  # "how long did I spend kneading?" is about the kneading
# Words of the question that name neither the thing nor the action.
_EMPTY = frozenset(
    answer_text.content_words("long time times round go total altogether overall stuff things")
)
_VAGUE = frozenset({"stuff", "things", "everything", "anything", "something"})
_DIMS = {"many": ("count",), "much": ("volume", "mass", "count"), "long": ("time",)}
_DIMS.update(dict.fromkeys(("big", "large", "wide", "thick"), ("length",)))  # "how big was the tortilla?"


@dataclass(frozen=True)
class QuantityQuestion:
    dims: tuple[str, ...]  # the dimensions an amount may have (tasks/details.py)
    thing: frozenset[str]  # content words of the thing asked about (may be empty for "how long")
    action: frozenset[str]  # content words of the action, unless it says nothing ("use")
    which: str  # "first", "second", "last" or "all"
    times: bool  # "how many times": the matching moments are counted, not their amounts
    said_thing: str  # the thing as asked, for the answer ("eggs")
    verbs: tuple[str, ...] = ()  # base forms of the action's verbs, matched by meaning ("heat": "zap")
    # "before I flipped them": only the moments before (or after) the first that tells this act
    bound: tuple[str, str] = ("", "")
    bound_thing: str = ""  # the thing whose going in bounds it ("once the eggs were in the pan")
    place: str = ""  # the vessel it went into ("pan" of "how much salt did I put in the pan")
    in_units: bool = False  # counted in a unit ("how many pieces", "how many cups of water")
    bound_words: str = ""  # the bounding act as said ("refill the bag"), matched by meaning too


def which_time(question: str) -> str:
    """Which time of an act a question asks about: "first", "second", "last", or "all"."""
    return _which(question.lower())


def _which(rest: str) -> str:
    if _THIS_TIME.search(rest):
        return "last"
    if _FIRST.search(rest):
        return "first"
    if _AGAIN.search(rest):
        return "second"
    return "last" if _LAST.search(rest) else "all"


def _is_act(word: str) -> bool:
    """A verb, or a form of one the action families know ("nuke", "zapping")."""
    base = verb_base(word)
    return is_verb(word) or (base is not None and known(base))


def _verbs(words: list[str]) -> list[str]:
    """The question's verbs that say its act ("how long did I spend kneading?": kneading)."""
    verbs: list[str] = []
    for w in words:
        # "how many times did I salt stuff?": after a verb, "stuff" is what it was done to
        if _is_act(w) and w not in _LIGHT_VERBS and not (verbs and w in _VAGUE):
            verbs.append(w)
    return verbs


def parse(question: str) -> QuantityQuestion | None:
    """ "How many eggs did I use?", "how much flour went in?", "how long did the eggs
    microwave?", "how long was the bowl in the microwave the first time?"; None for others."""
    q = " ".join(question.lower().replace("’", "'").split()).strip(" ?.!")
    m = _ASK.match(q)
    if m is None or re.match(r"^how\s+long\s+ago\b", q):
        return None
    how, rest = m.group("how"), m.group("rest")
    which = _which(rest)
    rest = _AGAIN.sub(" ", _LAST.sub(" ", _FIRST.sub(" ", rest)))
    verb_at = _VERB_START.search(rest)
    if verb_at is None and how != "long" and rest and not _PRONOUN_ONLY.match(rest):
        rest += " did i use"  # "how much balsamic?": said short, asked about its use
        verb_at = _VERB_START.search(rest)
    if verb_at is None:
        return None
    lead, tail = rest[: verb_at.start()].strip(), _OTHER_CLAUSE.sub("", rest[verb_at.end() :])
    bound, bound_thing, which = _bounds(rest[verb_at.end() :], how, which)
    words = [w for w in tail.split() if w not in _SUBJECTS]
    verbs = _verbs(words)
    if how == "long" and not verbs:
        verbs = _unknown_act(words, verb_at.group() in ("did", "do", "does"))
    others = " ".join(w for w in words if w not in verbs and w not in _LIGHT_VERBS)
    dims = _DIMS[how]
    times = how == "many" and lead in ("times", "time")
    thing = "" if times else lead
    unit = thing.split(" of ")[0].strip()
    if unit in UNITS:  # "how many cups of water": a volume of water
        dims, thing = (UNITS[unit][0],), thing.split(" of ", 1)[1] if " of " in thing else ""
    elif how == "many" and thing in ("minutes", "seconds", "hours"):
        dims, thing = ("time",), ""
    thing = thing or others
    action = frozenset(w for v in verbs for w in answer_text.content_words(v))
    bases = [b for v in verbs if (b := verb_base(v)) is not None]
    if how == "long" and not bases:
        # "how long was it in the microwave?": the act the place is for, when no act is said
        # ("how long did I stir the eggs in the pan?" times the stirring, not the cooking)
        bases += [APPLIANCE_ACTS[w] for w in _in_place.findall(rest) if w in APPLIANCE_ACTS]
    said = re.sub(r"^(?:the|a|an|some|my|of)\s+|\s+(?:in|on|into|for|at|to|from|with)\b.*$", "", thing)
    thing_words = frozenset(answer_text.content_words(thing)) - _EMPTY - action
    thing_words -= frozenset(w for b in bases for w in answer_text.content_words(b))
    place = next((w for w in _INTO_VESSEL.findall(tail) if lexical_kind(singular(w)) == TOOL), "")
    if APPLIANCE_ACTS.get(place) in bases:
        place = ""  # "how many times did it go in the microwave?" counts the microwavings, however told
    if bound_thing in _SUBJECTS:
        bound_thing = said
    return QuantityQuestion(
        dims,
        thing_words,
        action,
        which,
        times,
        said,
        tuple(dict.fromkeys(bases)),
        bound,
        singular(bound_thing) if bound_thing else "",
        singular(place),
        unit in UNITS,
        bound_act(question) if bound[1] else "",
    )


_INTO_VESSEL = re.compile(r"\b(?:in|into|to|onto|on)\s+(?:the|a|my|your)\s+([a-z]+)")


# "before I flipped them", "before I first had to refill the bag": the bounding act and its words
_BOUND = re.compile(
    r"\b(before|after)\s+(?:i|you|we)\s+(?:(?:had|have|got|needed|started|began)\s+to\s+)?(\w+)((?:\s+[a-z']+){0,4})"
)
_WENT_IN = re.compile(
    r"\b(before|after|once)\s+(?:the\s+|my\s+)?([a-z]+)\s+(?:was|were|went|had\s+gone|got)\s+(?:in|into|on)\b"
)


def _unknown_act(words: list[str], after_did: bool) -> list[str]:
    """An act no family knows, where only an act stands: "was I thinning out ...", "did the
    massaging go on", "did I keep piping", "did I pipe": matched by its own word in captions."""
    content = [w for w in words if w not in _LIGHT_VERBS]
    ing = next((w for w in content[:2] if w.endswith("ing") and len(w) > 5), None)
    if ing is not None:
        return [ing]
    if after_did and content and content[0] not in STEP_STOP_WORDS and content[0] not in _SUBJECTS:
        return [content[0]]
    return []


def _bounds(tail: str, how: str, which: str) -> tuple[tuple[str, str], str, str]:
    """The bounding act, the thing whose going in bounds it, and which time is asked: "once they
    were in the pan" is after the thing went in ("they" is the thing asked), and "how long did I
    cook it after the shallot went in?" asks the cooking it got then, the first."""
    went = _WENT_IN.search(tail)
    if went is None:
        return _bound(tail), "", which
    bound = ("before" if went.group(1) == "before" else "after", "add")
    if how == "long" and bound[0] == "after" and which == "all":
        which = "first"
    return bound, went.group(2), which


def _bound(tail: str) -> tuple[str, str]:
    """ "before I flipped them" -> ("before", "flip"); ("", "") when no such clause."""
    m = _BOUND.search(tail)
    base = verb_base(m.group(2)) if m else None
    return (m.group(1), base) if m and base else ("", "")


def bound_act(question: str) -> str:
    """The words of the bounding act, verb first: "refill the bag" of "... before I first had to
    refill the bag?"; "" when the question has no such clause."""
    q = " ".join(question.lower().replace("’", "'").split()).strip(" ?.!")
    m = _BOUND.search(_FIRST.sub(" ", q))
    return f"{m.group(2)}{m.group(3)}".strip() if m and verb_base(m.group(2)) else ""


def bounded(q: QuantityQuestion, clips: list[CaptionRecord]) -> list[CaptionRecord]:
    """The clips before (or after) the first that tells the bounding act; all when none tells it."""
    word, verb = q.bound
    if not verb:
        return clips
    if q.bound_thing:
        at = next((c for c in clips if _puts_in(c.text, q.bound_thing)), None)
    else:
        at = next((c for c in clips if _tells_bound(q, c.text)), None)
    if at is None:
        return clips
    return [c for c in clips if (c.t0 < at.t0 if word == "before" else c.t0 > at.t0)]


def _tells_bound(q: QuantityQuestion, text: str) -> bool:
    """Whether a caption tells the bounding act: its verb in any form, or the act said with its
    thing in the caption's own words ("collects dough in the piping bag" refills the bag)."""
    if q.bound[1] in {verb_base(w) for w in re.findall(r"[a-z]+", text.lower())}:
        return True
    if not q.bound_words or not parse_focus(q.bound_words).thing:
        return False
    return read(q.bound_words, text).restated is not None


def _puts_in(text: str, thing: str) -> bool:
    """Whether a caption tells the thing going in: an adding act that names it."""
    return thing_in(thing, text) is not None and any(same_act("add", v) for _, v in caption_verbs(text))
