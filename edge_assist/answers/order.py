"""Yes/no questions about the order of two acts: "did I add the salsa before the cheese?", "did I
stir the egg before adding the salsa?", "did the garlic go in before the shallot?".

No single moment answers these. Each act is looked up on its own, as any question's focus is
(retrieval, then the answer gate with meaning: answers/backing.py), and their times compared.
The answer tells both moments in time order, so the wearer hears what it rests on: "Yes: at 3:39
you topped cup with 1 tablespoon of salsa, then at 4:16 you sprinkled 1 tablespoon of cheese on
cup." A "No" is said only when both acts were found in the other order; when either is not found
the question is left to the grounded answer, which says "I don't remember" rather than guess.
"Before or after?" is answered by the word ("After: ..."), never by a yes or a no.

When either act is not found, the session's clips may still answer (answers/order_from_clips.py).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from edge_assist.answers import meaning
from edge_assist.answers.negated import negated_no
from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.action_families import APPLIANCE_ACTS
from edge_assist.text.put_on_verbs import PUTS_ON

# "did I add the salsa before the cheese", "did I stir the egg before adding the salsa"
_DID = re.compile(r"^(?:did|have|had)\s+(?:i|you)\s+(?:ever\s+|already\s+)?(.+?)\s+(before|after)\s+(.+)$")
# "did the salsa go in before the sweet and sour sauce"
_WENT = re.compile(
    r"^did\s+(?:the\s+|my\s+|some\s+)?(.+?)\s+go\s+(?:in|into|on|onto)?\s*(?:it\s+|the\s+\w+\s+)?"
    r"(before|after)\s+(?:the\s+|my\s+|some\s+)?(.+)$"
)
# "shallot before garlic in the pan?": two things said alone, the order they went in
_BARE_PAIR = re.compile(
    r"^(?:the\s+|my\s+)?([a-z-]+(?:\s+[a-z-]+)?)\s+(before|after)\s+(?:the\s+|my\s+)?([a-z-]+(?:\s+[a-z-]+)?)"
    r"(?:\s+(?:in|into|on|onto)\s+.+)?$"
)
_NOT_A_THING = frozenset(
    "what which when where who how did do does have had was is i you it then and".split()
)
_I = re.compile(r"^(?:i|you)(?:'d|'ve|\s+had|\s+have)?\s+(?:even\s+|already\s+|just\s+)?")
# Words that open the second act's noun phrase, never its verb ("before the cheese").
_NOT_VERBS = frozenset({"the", "a", "an", "my", "some", "any", "it", "them"})

# A moment backed at this share of the answer gate's threshold may still be the act: too weak to
# answer from, strong enough that a "No" resting on other moments could be wrong.
PLAUSIBLE_SHARE = 0.5


@dataclass(frozen=True)
class Found:
    offered: list[Moment]  # the moments that tell an act, best first
    plausible: list[Moment]  # every moment that may tell it, offered ones included
    ranked: list[Moment] = field(default_factory=list)  # every candidate retrieval gave, best first


Find = Callable[[str], Awaitable[Found]]


def telling(focus: str, found: Found) -> Found:
    """The moments that may tell the act: one whose every verb is another act we know tells none
    ("setting the diced pepper in the microwave-safe dish" is no microwaving of the peppers),
    unless it tells the act as not done ("dicing one unwashed strawberry")."""
    other = {
        (m.session_id, m.clip_index)
        for m in found.plausible
        if meaning.read(focus, m.text).other_act and negated_no(focus, [m]) is None
    }
    return Found(
        [m for m in found.offered if (m.session_id, m.clip_index) not in other],
        [m for m in found.plausible if (m.session_id, m.clip_index) not in other],
        found.ranked,
    )


@dataclass(frozen=True)
class Ordered:
    first: str  # the focus of the act asked about ("add the salsa")
    word: str  # "before", "after", "first" (which of the two came first) or "either" (before or after?)
    second: str  # the focus of the act it is placed against ("add the cheese")
    # Which time of the second act, when it is named by its act alone ("before the first zap")
    second_which: str = ""
    # The second act read of the first act's other thing, when a pronoun may stand for either
    # ("add the bread into the egg before it was microwaved": the egg, when no bread was)
    second_else: str = ""

    def second_on_first_thing(self) -> str:
        """The second act, a bare verb, done to the first act's thing ("wash the strawberry before
        cutting": cutting the strawberry); "" when it names its own thing."""
        words = self.second.split()
        thing = meaning.parse(self.first).thing
        return f"{words[0]} the {thing}" if len(words) == 1 and thing and not self.second_which else ""


# "before adding the sauce, did I heat the oil", "had I X by the time I Y"
_LEAD_CLAUSE = re.compile(r"^(before|after)\s+(.+?),?\s+(?:did|had|have)\s+(?:i|you)\s+(.+)$")
_BY_THE_TIME = re.compile(
    r"^(?:had|did|have)\s+(?:i|you)\s+(?:already\s+)?(.+?)\s+by the time\s+(?:i|you)\s+(.+)$"
)
# "went in", "went into the pan": the place said with it is where both went
_WENT_IN = r"went\s+(?:in|into|on)(?:\s+(?:the|my|a)\s+[a-z-]+)?"
# "which did I do first, X or Y", "what came first: X or Y", "did I X or Y first"
_WHICH_FIRST = re.compile(
    rf"^(?:which|what)\s+(?:did\s+(?:i|you)\s+do|came|happened|{_WENT_IN}|was)\s+first[,:]?\s+(.+?)\s+or\s+(.+)$"
)
# "which did I chop first, the onion or the tomato": both acts are the one verb
_WHICH_VERB_FIRST = re.compile(r"^which\s+did\s+(?:i|you)\s+(\w+)\s+first[,:]?\s+(.+?)\s+or\s+(.+)$")
_OR_FIRST = re.compile(r"^(?:did|do)\s+(?:i|you)\s+(.+?)\s+or\s+(.+?)\s+first$")
# "salsa or oregano, which went in first?"
_PAIR_THEN_WHICH = re.compile(
    r"^(.+?)\s+or\s+(.+?),?\s+(?:which|what)(?:\s+one)?\s+(?:did\s+(?:i|you)\s+(?:do|add|use|put in)|came"
    rf"|happened|{_WENT_IN}|was)\s+first$"
)
# A clause of the second act with the thing as subject: "the milk went in", "it was chopped".
_THING_WENT = re.compile(
    r"^(?:the\s+|my\s+)?(.+?)\s+(?:went|go|goes|got|was|were)\s+(in|into|on|added|put in)\b.*$"
)
_THING_DONE = re.compile(r"^(?:the\s+|my\s+)?(.+?)\s+(?:was|were|got)\s+([a-z]+)$")
# The second act named as a noun: "before the first zap", "after the last stir", "before the
# second go in the microwave".
_ACT_NOUN = re.compile(
    r"^(?:the|my)\s+(?:(first|second|last|final)\s+)?([a-z]+)(?:\s+(?:in|on)\s+the\s+([a-z]+))?$"
)


_EITHER = re.compile(r"\s(?:before\s+or\s+after|after\s+or\s+before)\s")
_AND_THEN = re.compile(r",?\s+and\s+then\s+")
# Other words for the two orders: "ahead of the garlic", "prior to zapping", "later than the salt".
_SAID_BEFORE = re.compile(r"\b(?:ahead\s+of|prior\s+to|earlier\s+than|in\s+front\s+of)\b")
_SAID_AFTER = re.compile(r"\b(?:later\s+than|following|behind)\b")


def parse(question: str) -> Ordered | None:
    """The two acts of an order question, each as a focus starting with its verb, or None."""
    q = " ".join(question.lower().split()).rstrip("?.! ")
    q = _SAID_BEFORE.sub("before", _SAID_AFTER.sub("after", q))
    # "did I turn the oven on before or after mixing": which of the two, said as "Before"/"After"
    either = bool(_EITHER.search(q))
    if q.startswith(("did i ", "did you ")):
        # "did I chop the tomato and then the cucumber", "did I peel them first or wash them first"
        q = _AND_THEN.sub(" before ", _EITHER.sub(" before ", q), 1)
        if " first or " in q and not q.endswith(" first"):
            q = f"{q.replace(' first or ', ' or ', 1)} first"
    if m := _LEAD_CLAUSE.match(q):
        q = f"did i {m.group(3)} {m.group(1)} {m.group(2)}"
    elif m := _BY_THE_TIME.match(q):
        q = f"did i {m.group(1)} before {m.group(2)}"
    if (m := _WHICH_VERB_FIRST.match(q)) and (verb := meaning.verb_base(m.group(1))) and verb != "do":
        return Ordered(f"{verb} {m.group(2)}", "first", f"{verb} {m.group(3)}")
    if m := (_WHICH_FIRST.match(q) or _OR_FIRST.match(q) or _PAIR_THEN_WHICH.match(q)):
        first = _based(_I.sub("", m.group(1)))
        first = first if meaning.verb_base(first.split()[0]) else f"add {first}"
        return Ordered(first, "first", _with_verb(_I.sub("", m.group(2)), first))
    m = _DID.match(q)
    if m:
        first, word, rest = _based(m.group(1)), "either" if either else m.group(2), _I.sub("", m.group(3))
        # "salt it before the pepper": the salt went in before the pepper did
        first = meaning.implied(first) if first.split()[0] in PUTS_ON else first
        if act := _act_noun(rest) or _cooked(rest, first):
            return Ordered(first, word, act[0], act[1])
        second = _with_verb(rest, first)
        return Ordered(first, word, second, second_else=_other_reading(rest, first, second))
    w = _WENT.match(q)
    if w:
        return Ordered(f"add the {w.group(1)}", w.group(2), f"add the {w.group(3)}")
    b = _BARE_PAIR.match(q)
    if b and not {*b.group(1).split(), *b.group(3).split()} & _NOT_A_THING:
        if all(_thing_word(w) for w in (b.group(1).split()[0], b.group(3).split()[0])):
            return Ordered(f"add the {b.group(1)}", b.group(2), f"add the {b.group(3)}")
    return None


def _act_noun(rest: str) -> tuple[str, str] | None:
    """ "the first zap" -> ("zap", "first"); "the last go in the microwave" -> ("microwave",
    "last"); None when the words name a thing ("the first egg")."""
    m = _ACT_NOUN.match(rest)
    if m is None:
        return None
    which = "last" if m.group(1) == "final" else m.group(1) or ""
    noun, where = m.group(2), m.group(3)
    if noun == "go" and where in APPLIANCE_ACTS:
        return APPLIANCE_ACTS[where], which
    verb = meaning.verb_base(noun)
    if verb is None or verb != noun or lexical_kind(noun) in (MATERIAL, TOOL) or not (which or where):
        return None
    return verb, which


# "after the pancakes were done": when their cooking ended, its last moment
_DONE = re.compile(
    r"^(?:the\s+|my\s+)?(.+?)\s+(?:was|were|got|had\s+been|are|is)\s+(?:done|finished|ready|cooked)$"
)


def _cooked(rest: str, first: str) -> tuple[str, str] | None:
    m = _DONE.match(rest)
    return (f"cook the {_antecedent(m.group(1), first)}", "last") if m else None


def _thing_kind(word: str) -> bool:
    return lexical_kind(word) in (MATERIAL, TOOL)


def _thing_word(word: str) -> bool:
    """A word naming a thing: an ingredient or a tool ("salt", though salting is an act too), or
    no verb at all."""
    return lexical_kind(word) in (MATERIAL, TOOL) or meaning.verb_base(word) is None


def _based(focus: str) -> str:
    """The focus with its verb in the base form: "cracking the eggs" -> "crack the eggs"."""
    words = focus.split()
    base = meaning.verb_base(words[0]) if words else None
    return " ".join([base, *words[1:]]) if base else focus


_PRONOUNS = frozenset({"it", "they", "them"})
# Appliances a thing goes into to be cooked there: going into one is that act ("before it went
# in the microwave"); into a pan, a pot or a bowl it is put in, whatever cooks there later.
_SHUT_IN = frozenset({"microwave", "bake", "toast", "grill", "broil"})


def _antecedent(word: str, first: str) -> str:
    """The thing of the first act a pronoun stands for: "they" the last thing named in the plural
    ("mix the cilantro into the eggs before they went in": the eggs), else the act's own thing."""
    if word not in _PRONOUNS:
        return word
    if word != "it":
        plural = [w for w in first.split() if w != singular(w) and _thing_kind(singular(w))]
        if plural:
            return plural[-1]
    return meaning.parse(first).thing or word


def _other_reading(rest: str, first: str, second: str) -> str:
    """The second act of the first act's other thing, when its subject is "it", or ""."""
    words = rest.split()
    if not words or words[0] != "it":  # "they" is the thing named in the plural
        return ""
    thing = _antecedent(words[0], first)
    said = second.split()
    named = {singular(w) for w in said}
    others = [t for t in meaning.things(first, verb_first=True) if t not in named]
    if not others or thing not in said:
        return ""
    return " ".join(others[-1] if w == thing else w for w in said)


def _with_verb(rest: str, first: str) -> str:
    """The second act as a focus starting with its verb: "adding the salsa" -> "add the salsa",
    "poured the egg" -> "pour the egg"; "the cheese" borrows the first act's verb ("add the cheese")."""
    if m := _THING_WENT.match(rest):
        thing = _antecedent(m.group(1), first)  # "whisk the egg before it went in the microwave"
        where = rest[m.end(2) :].split()
        act = APPLIANCE_ACTS.get(where[-1]) if where and m.group(2) in ("in", "into") else None
        if act in _SHUT_IN:
            return f"{act} the {thing}"
        return f"add the {thing}"  # into a pan or a bowl: put in, whatever cooks there later
    if (m := _THING_DONE.match(rest)) and (done := meaning.verb_base(m.group(2))):
        return f"{done} the {_antecedent(m.group(1), first)}"  # "before it was chopped": the same thing
    words = rest.split()
    if len(words) > 1 and meaning.verb_base(words[0]) in ("start", "begin"):
        # "before I started studying": the studying, from its first moment; "before I started the
        # onions": anything done to them
        words = words[1:] if words[1].endswith("ing") else ["do", *words[1:]]
    base = meaning.verb_base(words[0]) if words and words[0] not in _NOT_VERBS else None
    if base is not None:
        return " ".join([base, *words[1:]])
    verb = first.split()[0] if first.split() else "do"
    return f"{verb} {rest}"


async def answer(asked: Ordered, find: Find) -> tuple[str, list[Moment]] | None:
    """The answer and the two moments it rests on, or None when either act is not found, or when
    the moments that tell the acts do not agree on their order (an act done twice, a moment
    that may be either): a "No" then could be wrong, and a "Yes" rests on a guess. A "No" also
    needs every moment that may tell either act, offered or not, to agree: a weaker match of the
    first act in the asked order may be the act itself, and the offered one a later doing of it."""
    one, other = await find(asked.first), await find(asked.second)
    # "did I wash the strawberry before cutting it?" over "dicing one unwashed strawberry": the
    # first act was told as not done, so it came neither before nor after
    if (negated := negated_no(asked.first, one.offered)) is not None:
        return f"{negated[0].rstrip('.')}.", [negated[1]]
    firsts, seconds = one.offered, other.offered
    if not seconds and (on_thing := asked.second_on_first_thing()):
        other = await find(on_thing)  # "before cutting" found nowhere alone: cutting the strawberry
        seconds = other.offered
    if not seconds and asked.second_else:
        other = await find(asked.second_else)
        seconds = other.offered
    if asked.second_which and seconds:
        # "before the first zap": that time of the act, the earliest (or latest) told
        # when every moment that may tell the act agrees which one that is
        if asked.second_which not in ("first", "last"):
            return None
        sign = 1 if asked.second_which == "first" else -1
        # a weaker moment whose own verb tells the act is a time of it: "zapping the mug on full
        # power" is the first zap though "zapped just till the cheese melts" was the one offered
        verb = meaning.parse(asked.second, verb_first=True).verb
        told = [m for m in other.plausible if verb and meaning.tells(verb, m.text)]
        chosen = min([*seconds, *told], key=lambda m: sign * m.t0)
        if any(sign * m.t0 < sign * chosen.t0 for m in other.plausible):
            return None
        seconds = [chosen]
        other = Found(seconds, seconds)
    if not firsts or not seconds:
        return None
    a, b = firsts[0], seconds[0]
    if clip_key(a) == clip_key(b):
        return None  # one moment for both: a step that says "before" itself ("drain before removing")
    if len(_orders(firsts, seconds)) > 1:
        return _against_first(asked, one, firsts, seconds)
    early, late = sorted((a, b), key=lambda m: m.t0)
    if asked.word == "first":
        return first_then(early, late), [a, b]
    if asked.word == "either":
        if len(_orders(one.plausible, other.plausible)) > 1:
            return None
        return before_or_after(a.t0 < b.t0, early, late), [a, b]
    holds = a.t0 < b.t0 if asked.word == "before" else a.t0 > b.t0
    if asked.second_which and not holds:
        # A time of an act told by its noun may have been done again unseen: its "No" is not earned.
        return None
    if not holds and len(_orders(one.plausible, other.plausible)) > 1:
        return None
    return holds_then(holds, early, late), [a, b]


def _against_first(
    asked: Ordered, one: Found, firsts: list[Moment], seconds: list[Moment]
) -> tuple[str, list[Moment]] | None:
    """ "Did I grease the cup before the egg went in?" with the egg told twice (tipped into the cup
    at 0:00, later placed on the lettuce): whether the first act was done by the time the other
    was first done. A time of it before that is a Yes; a "No" needs every moment that may tell
    it, offered or not, to come after. Only "before" is read so: "after" one of several times
    says nothing of which."""
    if asked.word != "before" or asked.second_which:
        return None
    a, b = min(firsts, key=lambda m: m.t0), min(seconds, key=lambda m: m.t0)
    if clip_key(a) == clip_key(b):
        return None
    if a.t0 < b.t0:
        return holds_then(True, a, b), [a, b]
    if any(m.t0 <= b.t0 for m in one.plausible):
        return None
    return holds_then(False, b, a), [a, b]


def first_then(early: Moment, late: Moment) -> str:
    """ "At 3:39 you topped cup with salsa first, then at 4:16 ..." for "which came first?"."""
    said = told_back(early)
    return f"{said[0].upper()}{said[1:]} first, then {told_back(late)}."


def holds_then(holds: bool, early: Moment, late: Moment) -> str:
    """ "Yes: at 3:39 ..., then at 4:16 ..." (or "No: ..."): both moments, in time order."""
    return f"{'Yes' if holds else 'No'}: {told_back(early)}, then {told_back(late)}."


def before_or_after(first_came: bool, early: Moment, late: Moment) -> str:
    """ "Before: ..., then ..." for "did I X before or after Y?": the answer is the word, not a yes."""
    return f"{'Before' if first_came else 'After'}: {told_back(early)}, then {told_back(late)}."


def _orders(firsts: list[Moment], seconds: list[Moment]) -> set[bool]:
    """Whether each first act came before each second act, over every pair of distinct moments."""
    return {x.t0 < y.t0 for x in firsts for y in seconds if clip_key(x) != clip_key(y)}


def clip_key(m: Moment | CaptionRecord) -> tuple[str, int]:
    return (m.session_id, m.clip_index)


def told_back(m: Moment) -> str:
    s = tell(m.text, m.t0, m.note).rstrip(".")
    return s[0].lower() + s[1:]


_ORDER_WORDS = re.compile(r"\b(?:before|after|then|first|once|until|till)\b", re.I)


def tells_an_order(caption: str) -> bool:
    """Whether one moment's caption tells an order itself ("drain before removing"): the only
    moment an order question not answered by two may rest on."""
    return bool(_ORDER_WORDS.search(caption))
