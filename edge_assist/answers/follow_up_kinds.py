"""Follow-ups worded unlike the fixed forms of `conversation.follow_up`: "prior to that?", "how much
time since that?", "same for the stovetop?", "greased them yet?". The question-kind model
(tasks/question_kinds.py) reads which follow-up it is; this module reads from the words what
that kind needs: the new thing, which time, how much or how long, the place a thing went to.
When the words do not give it, the question is no follow-up and is answered as it is.
"""

from __future__ import annotations

import re

from edge_assist.answers import meaning
from edge_assist.answers.conversation import FollowUp
from edge_assist.reasoning.answer_text import question_focus
from edge_assist.tasks.question_kinds import FOLLOW_UPS, QuestionKinds

# Words that open a follow-up or pad it, and say nothing of what it asks.
_PAD = re.compile(
    r"^(?:(?:and|so|okay|ok|oh|um|uh|er|well|then|right|alright|hmm|also|now|sorry|wait)\b[\s,]*)+"
)
_TAIL = re.compile(r"[\s,]*\b(?:too|as\s+well|then|please|again|also|there|yet)\s*$")
_NEW_THING = re.compile(
    r"^(?:(?:what|how)\s+about|same\s+(?:for|with)|and\s+for|for|about|with|on)\s+(?P<obj>.+)$"
    r"|\b(?:same|that)\s+(?:for|with|about)\s+(?P<obj2>.+)$"
    r"|\b(?:what|how)\s+about\s+(?P<obj3>.+)$"
)
_NOT_THING = frozenset(
    "i you we he she it they them did do does have has had was were is are am can could will would "
    "should when where what which who how why that this there after before long much many time "
    "tell know check remind".split()
)
_ORDINALS = {
    "first": "first",
    "1st": "first",
    "second": "second",
    "2nd": "second",
    "third": "third",
    "3rd": "third",
    "last": "last",
    "final": "last",
    "latest": "last",
    "recent": "last",
}
# "how much sriracha did I add": a thing said right after "how much", then the asking; "how many
# cloves?" alone asks the last thing's amount in its unit
_OWN_THING = re.compile(
    r"\bhow\s+(?:much|many)\s+(?!(?:of|did|do|does|have|has|had|was|were|is|are|went|go|more|less|longer"
    r"|time|times|in|all|altogether|then|there|again|exactly|roughly|about)\b)[a-z]{3,}(?:\s+[a-z]+){0,2}?"
    r"\s+(?:did|do|does|have|has|had|was|were|went|go|got|is|are)\b"
)
POINTS = re.compile(r"\b(?:it|they|them)\b")
_WAS_THAT = re.compile(r"\b(?:was|were|is|are)\s+(?:that|it|those|these|they)(?:\s+again)?$")
_NEXT_TO = {
    "after": re.compile(r"\b(?:after|next|then|later|afterwards?|following|followed|since|once)\b"),
    "before": re.compile(r"\b(?:before|prior|earlier|previous(?:ly)?|preceding|first|until|till)\b"),
}
_ANY = re.compile("")
# How long a question may be and still lean on the last one's thing by a pronoun alone.
_SHORT_WORDS = 5
_WENT = re.compile(
    r"\b(?:go|goes|went|gone|put|leave|left|move|moved|end(?:ed)?\s+up|kept|keep|stor(?:e|ed))\b"
)


def _plain(question: str) -> str:
    q = " ".join(question.lower().replace("’", "'").split()).strip(" ?.!")
    return _TAIL.sub("", _PAD.sub("", q)).strip(" ,?.!")


def _new_thing(q: str) -> str:
    m = _NEW_THING.search(q)
    said = next((g for g in m.groups() if g), "") if m else q
    words = said.strip(" ,?.!").split()
    while words and words[-1] in ("one", "ones") and len(words) > 1 and words[-2] in ("the", "a"):
        words = words[:-2]
    if not 0 < len(words) <= 4 or _NOT_THING.intersection(words):
        return ""
    return " ".join(words)


def _which_time(q: str, last_question: str) -> str:
    for w in re.findall(r"[a-z0-9]+", q):
        if w in _ORDINALS:
            return _ORDINALS[w]
    if re.search(r"\bother\b", q):
        # the time the last question did not ask about
        return "last" if re.search(r"\b(?:first|1st)\b", last_question.lower()) else "first"
    return ""


def _how(q: str) -> str:
    if re.search(r"\b(?:long|time|minutes?|hours?|seconds?|mins?)\b", q):
        return "long"
    if re.search(r"\b(?:many|times|number)\b", q):
        return "many"
    return "much"


def from_kind(kind: str, question: str, last_question: str) -> FollowUp | None:
    """The follow-up of `kind` that `question` asks, or None when its words do not say what the
    kind needs."""
    q = _plain(question)
    if kind in ("after", "before", "ago"):
        # the model's reading stands when the words say a time next to the last one: "and then?",
        # "prior to that?"; "what did I sort out in there?" asks no neighbour
        return FollowUp(kind) if _NEXT_TO.get(kind, _ANY).search(question.lower()) else None
    if kind == "where":
        return FollowUp("where", "went" if _WENT.search(q) else "")
    if kind == "amount":
        if _OWN_THING.search(q) and not _WAS_THAT.search(q):
            # "how much sriracha did I add?" names its own thing: a question of its own; "how
            # many cloves was that?" names the unit of the last one's
            return None
        return FollowUp("amount", _how(q))
    if kind == "object":
        thing = _new_thing(q)
        return FollowUp("object", thing) if thing else None
    if kind == "occurrence":
        which = _which_time(q, last_question)
        return FollowUp("occurrence", which) if which else None
    if kind == "pointer":
        at = POINTS.search(q)
        # "did I wash the rice before cooking it?": "it" is a thing the question names itself
        if at is not None and not meaning.things(q[: at.start()]):
            return FollowUp("pointer", q + "?")
    return None


def by_meaning(question: str, kinds: QuestionKinds, last_question: str) -> FollowUp | None:
    """The follow-up the question-kind model reads `question` as, asked in a conversation whose
    last question was `last_question`; None when it reads none. Blocking (encodes once)."""
    reading = kinds.read(question, in_conversation=True, among=FOLLOW_UPS)
    read = from_kind(reading.kind, question, last_question) if reading.kind in FOLLOW_UPS else None
    return read or _short_pointer(question) or _there(question)


# "what did I sort out in there?": the place the last question was about
THERE = re.compile(r"\b(in|into|from|out\s+of|on)\s+there\b")


def _there(question: str) -> FollowUp | None:
    q = _PAD.sub("", " ".join(question.lower().replace("’", "'").split()).strip(" ?.!"))
    return FollowUp("pointer", q + "?") if THERE.search(q) else None


def _short_pointer(question: str) -> FollowUp | None:
    """ "patched it?", "watered it since?", "boxed them up?": a few words whose only thing is a
    pronoun, asked right after a question about a thing, are about that thing."""
    q = _plain(question)
    if POINTS.search(q) is None or len(q.split()) > _SHORT_WORDS:
        return None
    if meaning.things(question_focus(q), verb_first=True):
        return None  # "was there any egg on it?": the question names a thing of its own
    return FollowUp("pointer", q + "?")
