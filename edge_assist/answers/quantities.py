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
from dataclasses import dataclass, replace

from edge_assist.answers import activity_span, contents
from edge_assist.answers.meaning import verb_base
from edge_assist.answers.quantity_question import (
    QuantityQuestion,
    bounded,
    parse,
)
from edge_assist.answers.thing_naming import thing_in
from edge_assist.clock import Clock
from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.details import Amount, parse_details
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.action_families import APPLIANCE_ACTS, BROAD, same_act
from edge_assist.text.kinds_of_things import is_named
from edge_assist.text.put_on_verbs import PHRASAL
from edge_assist.text.stop_words import ANSWER_STOP_WORDS
from edge_assist.text.stream_time import stream_clock
from edge_assist.text.units import UNITS

_KIND_OF = re.compile(r"\b[a-z]+-(?:safe|proof|friendly|resistant)\b", re.I)
# A size said with a hyphen ("an 8-inch tortilla", "eight - inch"): the number and its unit.
_SIZE = re.compile(r"(\w)\s*-\s*(inch|inches|cm|mm)\b", re.I)
TOLD = 3  # moments told one by one in an answer that adds several up


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
    joined = "-".join([*words[:-1], singular(words[-1])]) if len(words) > 1 else ""
    if joined and is_named(joined) and thing_in(joined, text) is not None:
        return True  # "hot sauce" named as one thing ("sriracha")
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
        amounts = [a for a in parse_details(_SIZE.sub(r"\1 \2", c.text)).amounts if a.dim in q.dims]
        amounts = amounts or _one(q, text)
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
    if q.action and q.dims != ("time",):
        # "how many tomatoes did I slice?": the slicing, not the washing of the same tomato
        found = [f for f in found if tells_act(q, f.moment.text)] or found
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
        if not named_too and (head := _head(q.said_thing)):
            # "the red pepper bits": a moment naming the pepper, when none names all of it
            named_too = [f for f in found if names(head, f.moment.text)]
        if named_too:
            # "For ten more secs, I'm continuing to microwave": a moment of the act that names no
            # thing goes on with what the act was last done to
            first = named_too[0].moment.t0
            named_too += [f for f in found if f.moment.t0 > first and f not in named_too and _no_thing(f)]
            named_too.sort(key=lambda f: f.moment.t0)
        found = named_too or found
    return found, named


def _no_thing(f: Found) -> bool:
    """Whether a moment names no food or tool but the appliance of its act."""
    words = (singular(w) for w in re.findall(r"[a-z]+", f.moment.text.lower()))
    return not any(lexical_kind(w) in (MATERIAL, TOOL) and w not in APPLIANCE_ACTS for w in words)


# Words for the pieces a thing was cut into: "the pepper bits" are the pepper.
_PIECES = frozenset("bit bits piece pieces chunk chunks cube cubes slice slices strip strips".split())


def _head(said: str) -> str:
    """The noun of a thing as asked, without the words for its pieces ("red pepper bits" -> pepper)."""
    words = [w for w in re.findall(r"[a-z]+", said.lower()) if w not in _PIECES]
    head = words[-1] if words else ""
    return "" if head == said.lower().strip() else head  # "" when the thing is one word already


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


def total(found: list[Found], q: QuantityQuestion) -> str:
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


def asked_time(q: QuantityQuestion, found: list[Found]) -> list[Found]:
    """The moments of the time asked ("the first time": the earliest), or all of them."""
    if q.which == "all":
        return found
    pick = {"first": 0, "second": 1, "last": -1}[q.which]
    return [found[min(pick, len(found) - 1) if pick >= 0 else pick]]


def compose(q: QuantityQuestion, found: list[Found]) -> tuple[str, CaptionRecord]:
    """The answer and the moment it rests on (the first of those it adds up)."""
    found = asked_time(q, found)
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
    return f"{total(found, q)} in all. {told}{more}", found[0].moment


def _span(q: QuantityQuestion, clips: list[CaptionRecord]) -> tuple[str, CaptionRecord] | None:
    """ "How long was I kneading?" where no caption says how long: the stretch of clips that tell
    the act (and name its thing, when one is asked), measured. None without an act to look for."""
    # "how long was I on the phone?", "... at the sink?": where the wearer was, told by the clips
    # that name it; a thing with no act otherwise ("how long was the chicken in?") is not measured
    where = re.match(r"(?:on|at)\b", q.said_thing) is not None  # "at it with the jalebi": busy with it
    if (not q.action and not where) or q.times:
        return None

    found = activity_span.stretches(clips, lambda clause: _tells_own(q, clause))
    if not found:
        return None
    return activity_span.told(found, q.which, lambda c: answer_text.tell(c.text, c.t0))


def _tells_own(q: QuantityQuestion, clause: str) -> bool:
    """Whether a clause tells the act asked (any act, when none is asked) on the thing asked, named
    in its own words."""
    text = _KIND_OF.sub(" ", clause)
    named = not q.thing or q.thing <= answer_text.content_words(text) or names(q.said_thing, text)
    return named and (tells_act(q, text) if q.action else True)


def _with_contents(clips: list[CaptionRecord]) -> list[CaptionRecord]:
    """The clips, each that works on a vessel told with what went into it before: "how long were
    the peppers zapped?" is answered by "nuking the basin, covered" after the peppers went into
    the dish. A captioner calls one vessel a dish, then a basin (`contents.one_vessel`)."""
    told = contents.readings((c.text for c in clips), loose=True)
    return [c if said is None else replace(c, text=said) for c, said in zip(clips, told, strict=True)]


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
        if q.dims == ("time",) and q.thing:
            # matched with what each vessel held, told in the caption's own words
            told = {(c.clip_index, c.t0): c for c in clips}
            found, named = matches(q, bounded(q, _with_contents(clips)))
            found = [replace(f, moment=told[(f.moment.clip_index, f.moment.t0)]) for f in found]
        else:
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
        # "how long were the onions frying?": a length told only of what else was in the pan with
        # them ("frying for one min, mixing everything") is not theirs when a caption tells them
        # fried in its own words, for as long as it lasted
        theirs = any(_tells_own(q, f.moment.text) for f in found)
        span = _span(q, bounded(q, clips)) if not theirs and q.dims == ("time",) else None
        if span is not None:
            text, rec = span
            trace["outcome"] = "the stretch of clips that tell the act"
            return text, Moment(rec.session_id, rec.clip_index, rec.t0, rec.t1, rec.text, 1.0), trace
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
