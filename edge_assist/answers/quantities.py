"""Quantities and counts: "how many eggs did I use?", "how long did I microwave it the first
time?", "how much water did I pour?", "how many times did I stir it?".

The numbers come from the captions of the session that ended by the time asked about, read
with the tracker's parser (`tasks/details.py`: digits, words, fractions, ranges, units), so
"two tbsp" and "2 tablespoons" are one amount. A moment matches when it holds an amount of
the dimension asked (a count, a volume or a mass, a time) and names the thing asked about
(for "how long", the action). "The first time" is the earliest matching moment, "the last
time" the latest; otherwise a count or an amount adds up over the matching moments (a range
stays a range: "15-30 more seconds" after "30 seconds" is 45-60 seconds in all).

No caption naming the thing counted or measured is "I don't remember you doing that"; a
thing named with no amount, or an action no caption names in these words ("how long did I
heat it?"), is left to the grounded answer.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from edge_assist.answers.meaning import thing_in, verb_base
from edge_assist.clock import Clock
from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.details import Amount, parse_details
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.action_families import APPLIANCE_ACTS, BROAD, known, same_act
from edge_assist.text.put_on_verbs import PHRASAL
from edge_assist.text.stop_words import ANSWER_STOP_WORDS
from edge_assist.text.stream_time import stream_clock
from edge_assist.text.units import UNITS
from edge_assist.text.verb_forms import is_verb

_ASK = re.compile(r"^how\s+(?P<how>many|much|long)\b\s*(?P<rest>.*)$")
# Where the thing asked about ends: "how much flour | went in", "how many eggs | did I use".
_VERB_START = re.compile(
    r"\b(?:did|do|does|have|had|has|was|were|am|is|are|went|go|goes|got|get|gets|came|come|used)\b"
)
_SUBJECTS = frozenset("i you we it they that this them those these".split())
# "how much of it?": no thing of its own, it leans on what was said before (answers/follow_ups.py)
_PRONOUN_ONLY = re.compile(r"^(?:(?:of\s+)?(?:it|that|them|this|those|these|there)|times?)\b")
# "before I flipped them", "until it melted": a clause about another moment, not this one.
_OTHER_CLAUSE = re.compile(r"\b(?:before|after|until|till|when|while)\b.*$")
_FIRST = re.compile(
    r"\b(?:(?:the|my)\s+first\s+(?:time|round|go)|at\s+first|first|initially|to\s+begin\s+with|"
    r"at\s+the\s+start)\b"
)
_LAST = re.compile(
    r"\b(?:(?:the|my)\s+last\s+(?:time|round|go)|last|at\s+the\s+end|in\s+the\s+end|finally)\b"
)
_AGAIN = re.compile(r"\b(?:the\s+)?second\s+(?:time|round|go)\b")
# Verbs that say nothing of the action: "how many eggs did I use?" is about the eggs.
_LIGHT_VERBS = frozenset("use used add put have need get take make do leave let keep go went".split())
# Words of the question that name neither the thing nor the action.
_EMPTY = frozenset(answer_text.content_words("long time times round go total altogether overall"))
_KIND_OF = re.compile(r"\b[a-z]+-(?:safe|proof|friendly|resistant)\b", re.I)
TOLD = 3  # moments told one by one in an answer that adds several up
_DIMS = {"many": ("count",), "much": ("volume", "mass", "count"), "long": ("time",)}


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
    place: str = ""  # the vessel it went into ("pan" of "how much salt did I put in the pan")
    in_units: bool = False  # counted in a unit ("how many pieces", "how many cups of water")


def which_time(question: str) -> str:
    """Which time of an act a question asks about: "first", "second", "last", or "all"."""
    return _which(question.lower())


def _which(rest: str) -> str:
    if _FIRST.search(rest):
        return "first"
    if _AGAIN.search(rest):
        return "second"
    return "last" if _LAST.search(rest) else "all"


def _is_act(word: str) -> bool:
    """A verb, or a form of one the action families know ("nuke", "zapping")."""
    base = verb_base(word)
    return is_verb(word) or (base is not None and known(base))


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
    bound = _bound(rest[verb_at.end() :])
    words = [w for w in tail.split() if w not in _SUBJECTS]
    verbs = [w for w in words if _is_act(w) and w not in _LIGHT_VERBS]
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
    if how == "long":
        # "how long was it in the microwave?": the act the place is for.
        bases += [APPLIANCE_ACTS[w] for w in _in_place.findall(rest) if w in APPLIANCE_ACTS]
    said = re.sub(r"^(?:the|a|an|some|my|of)\s+|\s+(?:in|on|into|for|at|to|from|with)\b.*$", "", thing)
    thing_words = frozenset(answer_text.content_words(thing)) - _EMPTY - action
    thing_words -= frozenset(w for b in bases for w in answer_text.content_words(b))
    place = next((w for w in _INTO_VESSEL.findall(tail) if lexical_kind(singular(w)) == TOOL), "")
    return QuantityQuestion(
        dims,
        thing_words,
        action,
        which,
        times,
        said,
        tuple(dict.fromkeys(bases)),
        bound,
        singular(place),
        unit in UNITS,
    )


_INTO_VESSEL = re.compile(r"\b(?:in|into|to|onto|on)\s+(?:the|a|my|your)\s+([a-z]+)")


_BOUND = re.compile(r"\b(before|after)\s+(?:i|you|we)\s+(\w+)")


def _bound(tail: str) -> tuple[str, str]:
    """ "before I flipped them" -> ("before", "flip"); ("", "") when no such clause."""
    m = _BOUND.search(tail)
    base = verb_base(m.group(2)) if m else None
    return (m.group(1), base) if m and base else ("", "")


def bounded(q: QuantityQuestion, clips: list[CaptionRecord]) -> list[CaptionRecord]:
    """The clips before (or after) the first that tells the bounding act; all when none tells it."""
    word, verb = q.bound
    if not verb:
        return clips
    at = next(
        (c for c in clips if verb in {verb_base(w) for w in re.findall(r"[a-z]+", c.text.lower())}), None
    )
    if at is None:
        return clips
    return [c for c in clips if (c.t0 < at.t0 if word == "before" else c.t0 > at.t0)]


_in_place = re.compile(r"\b(?:in|into|on|inside)\s+(?:the\s+|a\s+|my\s+)?(\w+)")


def tells_act(q: QuantityQuestion, text: str) -> bool:
    """Whether a caption tells the question's action, in its words or in others of the same act
    ("how long did I nuke it?" and "microwave for 30 seconds")."""
    if q.action & answer_text.content_words(text):
        return True
    # Counting the times of a general act ("how many times did I add salt?") by meaning would
    # count every caption that names salt: only a specific verb is matched by meaning there.
    # A verb that also names a material ("salt", "butter", "oil") is matched by its own word only:
    # "how many times did I add salt?" is about the salt, not every way of sprinkling.
    verbs = [v for v in q.verbs if not (q.times and v in BROAD) and lexical_kind(v) != MATERIAL]
    if not verbs:
        return False
    words = re.findall(r"[a-z]+", text.lower())
    told = {
        PHRASAL.get((b, nxt[0]), b) if nxt else b  # "tossing in" adds, "tossing" mixes
        for i, w in enumerate(words)
        if (b := verb_base(w)) is not None and not _names_a_thing(w, nxt := words[i + 1 : i + 2])
    }
    return any(same_act(v, t) for v in verbs for t in told)


def _names_a_thing(word: str, after: list[str]) -> bool:
    """ "cooking spray", "frying pan", "baking soda": an -ing word that names a thing with the
    noun after it, not an act."""
    return (
        word.endswith("ing")
        and bool(after)
        and (after[0] in _ING_NOUNS or f"{word} {after[0]}" in _ING_TOOLS)
    )


# What an -ing word names with the word after it: cooking spray, baking soda, a frying pan
# ("frying onions" is an act on the onions, "microwaving mug" one on the mug).
_ING_NOUNS = frozenset("spray oil soda powder cream paper chocolate".split())
_ING_TOOLS = frozenset(
    " ".join(pair.split())
    for pair in """frying pan|mixing bowl|cutting board|chopping board|baking sheet|baking dish|baking tray
    |measuring cup|measuring spoon|serving dish|serving plate|serving bowl|serving spoon|rolling pin
    |cooling rack|roasting tin|roasting pan|mixing spoon|cooking pot""".split("|")
)


@dataclass(frozen=True)
class Found:
    moment: CaptionRecord
    amounts: tuple[Amount, ...]  # of the dimension asked, naming the thing


def _near_thing(text: str, a: Amount, thing: frozenset[str], said: str = "") -> bool:
    """The amount counts the thing: the thing is named in it or in the few words after it."""
    at = text.lower().find(a.text.lower())
    if at < 0:
        return False
    window = text[at : at + len(a.text) + 40]
    return bool(thing & answer_text.content_words(window)) or (bool(said) and names(said, window))


def names(said: str, text: str) -> bool:
    """Whether `text` names every word of the thing as asked, in any number, by another name of it,
    or as a member of it ("mayo" for "mayonnaise", "dairy" for "milk")."""
    words = [w for w in re.findall(r"[a-z]+", said.lower()) if w not in ANSWER_STOP_WORDS]
    return bool(words) and all(thing_in(singular(w), text) is not None for w in words)


def matches(q: QuantityQuestion, clips: list[CaptionRecord]) -> tuple[list[Found], bool]:
    """The moments that answer, in time order, and whether any caption names the thing at all."""
    found: list[Found] = []
    named = False
    for c in clips:
        # "a microwave-safe cup" names a kind of cup, not a use of the microwave
        text = _KIND_OF.sub(" ", c.text)
        words = answer_text.content_words(text)
        has_thing = bool(q.thing) and (q.thing <= words or names(q.said_thing, text))
        has_action = tells_act(q, text)
        named = named or has_thing or has_action
        if q.times:
            if (has_action or not q.action) and (has_thing or not q.thing) and (q.action or q.thing):
                found.append(Found(c, ()))
            continue
        amounts = [a for a in parse_details(c.text).amounts if a.dim in q.dims] or _one(q, text)
        if not amounts:
            continue
        if q.dims == ("time",):
            ok = has_action or (not q.action and has_thing)
        else:
            amounts = (
                [a for a in amounts if _near_thing(c.text, a, q.thing, q.said_thing)] if q.thing else amounts
            )
            ok = bool(amounts) and (has_thing or not q.thing)
        if ok:
            found.append(Found(c, tuple(amounts)))
    if q.place and q.dims != ("time",):
        # "how much salt did I put in the pan?": the salt that went into the pan, when told apart
        found = [f for f in found if thing_in(q.place, f.moment.text) is not None] or found
    if q.dims == ("time",) and q.which == "all" and q.thing:
        # "How long did I microwave the cheese?": the moments that name the cheese, when any
        # do. With "the first time" the wearer counts the times of the action itself.
        named_too = [
            f
            for f in found
            if q.thing <= answer_text.content_words(f.moment.text) or names(q.said_thing, f.moment.text)
        ]
        found = named_too or found
    return found, named


def _one(q: QuantityQuestion, text: str) -> list[Amount]:
    """ "an egg", "a tomato": one of the thing a count question asks about, said with no number."""
    if "count" not in q.dims or not q.thing or q.in_units:
        return []
    for m in re.finditer(r"\b(an?)\s+(?:[a-z-]+\s+)?([a-z]+)\b", text.lower()):
        if singular(m.group(2)) in q.thing:
            return [Amount("count", 1.0, f"{m.group(1)} {m.group(2)}")]
    return []


def _number(x: float) -> str:
    if abs(x - round(x)) < 0.05:
        return str(int(round(x)))
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _range(lo: float, hi: float) -> str:
    return _number(lo) if abs(hi - lo) < 1e-6 else f"{_number(lo)}-{_number(hi)}"


def _unit_of(a: Amount) -> tuple[str, float] | None:
    """The unit an amount was written in, and its factor to the dimension's base."""
    for w in reversed(a.text.lower().split()):
        if w in UNITS and UNITS[w][0] == a.dim:
            return w, UNITS[w][1]
    return None


def _bounds(f: Found) -> tuple[float, float]:
    vals = [a.value for a in f.amounts]
    return min(vals), max(vals)


def _total(found: list[Found], q: QuantityQuestion) -> str:
    """The sum over the moments, in the unit the first was written in."""
    first = found[0].amounts[0]
    lo = sum(_bounds(f)[0] for f in found)
    hi = sum(_bounds(f)[1] for f in found)
    unit = _unit_of(first)
    if first.dim == "count" or unit is None:
        noun = q.said_thing or (first.text.split()[-1] if first.dim == "count" else "")
        return f"{_range(lo, hi)} {noun}".strip()
    name, factor = unit
    if name.endswith("s") and len(name) > 3 and lo / factor <= 1 and hi / factor <= 1:
        name = name[:-1]
    elif not name.endswith("s") and len(name) > 3 and hi / factor > 1:
        name += "s"
    return f"{_range(lo / factor, hi / factor)} {name}"


def compose(q: QuantityQuestion, found: list[Found]) -> tuple[str, CaptionRecord]:
    """The answer and the moment it rests on (the first of those it adds up)."""
    if q.which != "all":
        pick = {"first": 0, "second": 1, "last": -1}[q.which]
        found = [found[min(pick, len(found) - 1) if pick >= 0 else pick]]
    if q.times:
        when = ", ".join(stream_clock(f.moment.t0) for f in found)
        n = len(found)
        return f"{n} time{'s' if n != 1 else ''}: at {when}.", found[0].moment
    if len(found) == 1:
        f = found[0]
        said = dict.fromkeys(a.text for a in f.amounts)
        return f"{' and '.join(said)}. {answer_text.tell(f.moment.text, f.moment.t0)}", f.moment
    # Each moment told as well: the wearer hears what was added up, in the captions' words.
    told = " ".join(answer_text.tell(f.moment.text, f.moment.t0) for f in found[:TOLD])
    more = f" And {len(found) - TOLD} more times." if len(found) > TOLD else ""
    return f"{_total(found, q)} in all. {told}{more}", found[0].moment


class QuantityAnswers:
    def __init__(self, recall: Recall, clock: Clock) -> None:
        self.recall = recall
        self.clock = clock

    async def answer(
        self,
        question: str,
        *,
        session_id: str | None,
        before_t: float,
        in_view: tuple[CaptionRecord, ...] = (),
    ) -> tuple[str, Moment | None, dict[str, object]] | None:
        """The answer, its moment and a trace; None when `question` asks no quantity, or the
        captions name the thing without an amount (the grounded answer may still tell it)."""
        q = parse(question)
        if q is None or session_id is None or not (q.thing or q.action):
            return None
        clips, _ = await self.clock.run_blocking(self.recall.clips_in_period, session_id, -math.inf, before_t)
        seen = {c.clip_index for c in clips}
        clips = sorted(
            [c for c in clips if c.t1 <= before_t + 1e-6] + [c for c in in_view if c.clip_index not in seen],
            key=lambda c: (c.t0, c.clip_index),
        )
        found, named = matches(q, bounded(q, clips))
        trace: dict[str, object] = {
            "dims": list(q.dims),
            "thing": sorted(q.thing),
            "action": sorted(q.action),
            "which": q.which,
            "matched": [
                [f.moment.clip_index, round(f.moment.t0, 2), [a.text for a in f.amounts]] for f in found
            ],
        }
        if not found:
            if named or q.dims == ("time",):
                # Named without an amount, or an action said in other words: the grounded
                # answer may still tell the moment.
                return None
            trace["outcome"] = "no caption names it"
            return answer_text.DONT_REMEMBER, None, trace
        text, rec = compose(q, found)
        trace["outcome"] = f"{len(found)} matching moment(s)"
        return text, Moment(rec.session_id, rec.clip_index, rec.t0, rec.t1, rec.text, 1.0), trace
