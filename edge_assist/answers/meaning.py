"""A question's act and thing matched to a caption by meaning, not by wording.

"Did I add cheese?" is answered by "sprinkle 1 tablespoon of cheese on cup", "did I crack an
egg?" by "Pour 1 egg into the ramekin cup", "did I add any vegetables?" by "Line the bottom
piece of the English muffin with lettuce". The answer gate (answers/support.py) scores how
much of the question a caption covers, word by word; "add" and "sprinkle" are far apart for
the word encoder, so the right moment scores below a sibling step.

So the question's focus is parsed into its verb and the thing it is about (the head noun of
its object: "tablespoon of cheese" is about cheese), and restated in a caption's own words
when the caption tells the same act (text/action_families.py) about the same thing: the
thing itself in any number, or a member of a general word ("vegetables": lettuce,
text/kinds_of_things.py), in whatever role the caption gives it ("line the muffin with
lettuce"). The gate then scores the restated focus beside the original, with its features
unchanged. The thing must be there: "did I add salt?" is never restated into "Top cup with
salsa", so a sibling step with another object still does not count.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

from edge_assist.answers import appliances, thing_words
from edge_assist.answers.act_said_as import PLACES, adds, moves_to, said_as
from edge_assist.answers.contents import as_told
from edge_assist.answers.focus import (
    DETERMINERS,
    Asked,
    object_head,
    parse,
    things,
    tokens,
    verb_base,
    with_heads,
)
from edge_assist.answers.put_into import FILLS, coats, filled_by, only_as_place, without_food_destination
from edge_assist.answers.thing_naming import general_word, look_before, thing_in
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import TOOL, lexical_kind
from edge_assist.text.action_families import (
    ACTING_APPLIANCES,
    APPLIANCE_ACTS,
    BROAD,
    covers_act,
    known,
    related_act,
    same_act,
)
from edge_assist.text.coordinated_verbs import ADVERBS
from edge_assist.text.kinds_of_things import BY_LOOK, LOOKS
from edge_assist.text.put_on_verbs import PHRASAL, PUT_ON_WITH, PUTS_ON, REMOVES
from edge_assist.text.stop_words import (
    PARTICLES,
    PRONOUNS,
    STEP_STOP_WORDS,
)

# How much a moment that tells only other acts on the thing asked about still counts: "when did I
# peel the garlic?" is not answered by "Chop 1 garlic clove", however close the words are.
OTHER_ACT_WEIGHT = 0.3
# A restatement is a step away from the question's own words: a caption that says what the
# question says ("topped lettuce leaves with the tuna") ranks above one restated into it
# ("laid out 2 large lettuce leaves"), and a clear restated match stays far above the threshold.
RESTATED_WEIGHT = 0.9
# A thing asked to be put that is only where something else was put was there, not put: such a
# moment counts for little beside one that puts it.
PLACE_WEIGHT = 0.2
# Where a caption's verb may stand: first, after its subject or an auxiliary ("I'm chopping"), or
# after "and", "then", a comma.
_SUBJECTS = frozenset(
    """c i you he she they person wearer man woman someone i'm am is are was were i've have has had""".split()
)
_COORDINATORS = frozenset({"and", "then", "or", "plus"})
# Words after which an -ing form is an act done at the same moment: "letting it fall while adding
# the scallions", "melting the cheese by microwaving the cup". ("after rinsing" tells an act done
# before the clip, and is left out.)
_AT_ONCE = frozenset({"while", "whilst", "when", "by"})


def caption_verbs(caption: str) -> list[tuple[int, str]]:
    """(index, base form) of the caption's words that stand where a verb of its own would."""
    words = tokens(caption)
    out: list[tuple[int, str]] = []
    for i, w in enumerate(words):
        prev = words[i - 1].lower() if i else ""
        at_once = prev in _AT_ONCE and w.lower().endswith("ing")
        if (
            i == 0
            or prev in _SUBJECTS
            or prev in _COORDINATORS
            or at_once
            or (i and caption_gap(caption, words, i))
        ):
            base = verb_base(w)
            nxt = words[i + 1].lower() if i + 1 < len(words) else ""
            if base is not None and (base, nxt) in REMOVES:
                out += [(i, base), (i, "remove")]  # "drew out the stems": drawing and removing
            elif base is not None and (base, nxt) in PHRASAL:
                act = PHRASAL[(base, nxt)]  # "getting rid of" is told by "rid", "turning over" by "turning"
                out.append((i + 1 if act == "rid" else i, act))
            elif base is not None:
                out.append((i, base))
    return out


def tells_asked_act(focus: str, caption: str) -> bool:
    """Whether the caption tells the focus's act: by a verb of its own, or by meaning (`read`);
    a focus with no verb, or one the families do not know, is told by any caption that names it."""
    verb = parse(focus).verb
    if not verb or not known(verb) or tells(verb, caption):
        return True
    reading = read(focus, caption)
    return reading.restated is not None and not reading.other_act


def tells(verb: str, caption: str) -> bool:
    """Whether a verb of the caption's own tells the act `verb` names (text/action_families.py)."""
    return any(same_act(verb, told) for _, told in caption_verbs(caption))


def caption_gap(caption: str, words: list[str], i: int) -> bool:
    """Whether a comma or a semicolon comes right before the `i`-th word."""
    prefix = re.search(re.escape(words[i - 1]) + r"\s*([,;])\s*" + re.escape(words[i]), caption)
    return prefix is not None


@dataclass(frozen=True)
class Reading:
    """How a caption reads against a question's focus."""

    restated: str | None  # the focus in the caption's words; None: nothing to restate
    other_act: bool  # the caption names the thing but tells only other acts on it
    # the thing asked to be put somewhere is only where another thing was put ("did I put the
    # tortilla down?" of "on top of the tortilla, tipping egg blend"): it was there, not put
    as_place: bool = False


# A caption with no verb that puts its thing somewhere: "1 egg to a blender".
_SHORTHAND_PUT = re.compile(r"\b(?:to|into|onto)\s+(?:the|a|an|each|your|my)\b", re.I)


# What a thing was for, said last: "chop a spring onion for the wraps". Captions tell the act, not
# its purpose; a time ("for 2 minutes", "for a minute") is no purpose and stays.
_PURPOSE = re.compile(
    r"\s+for\s+(?:the|my|our|your|his|her|their)\s+"
    r"(?![a-z -]*\b(?:sec|second|min|minute|hour|time|while)s?\b)[a-z][a-z -]*$",
    re.I,
)


def _puts_or_does(verb: str) -> bool:
    """ "add", "put", or "do": a thing asked to be put, or just done, is not what was done when it
    is only where another thing went ("when did I do the lettuce?" of "the egg on the lettuce")."""
    return bool(verb) and (adds(verb) or verb == "do")


def implied(focus: str) -> str:
    """ "sweeten it" -> "add sweetener to it": a verb naming the thing it puts on, said with that
    thing; "top the cup with salsa" -> "add salsa to the cup"; any other focus as it is."""
    words = tokens(focus)
    if len(words) > 1 and words[0].lower() in ADVERBS:
        # "first put it in the microwave": the act follows
        rest = implied(" ".join(words[1:]))
        return focus if rest == " ".join(words[1:]) else f"{words[0]} {rest}"
    verb = (verb_base(words[0]) or words[0].lower()) if words else None
    lowered = [w.lower() for w in words]
    into = next((i for i, w in enumerate(lowered) if w in ACTING_APPLIANCES and i > 1), 0)
    if verb in PLACES and into and lowered[into - 1] in ("the", "a", "in", "into"):
        # "put it in the microwave" -> "microwave it": the appliance's act on the thing
        prep = next((i for i in range(into - 1, 0, -1) if lowered[i] in ("in", "into")), into)
        return " ".join([APPLIANCE_ACTS[lowered[into]], *words[1:prep]])
    if "with" in lowered:
        at = lowered.index("with")
        put = words[at + 1 :]
        head, _ = object_head(words, at + 1)
        if verb not in PUT_ON_WITH or not put or not head or lexical_kind(head) == TOOL:
            return focus  # "brush it with a brush": the with-phrase names no thing put on
        # "season it with pepper" -> "add pepper to it"
        return " ".join(["add", *put, *(["to", *words[1:at]] if at > 1 else [])])
    if verb not in PUTS_ON:
        return focus
    return " ".join(["add", PUTS_ON[verb], "to", *words[1:]]) if len(words) > 1 else f"add {PUTS_ON[verb]}"


def read(focus: str, caption: str) -> Reading:
    """The focus restated in the caption's words when the caption tells the same act about the
    same thing ("add cheese" -> "sprinkle cheese" for "sprinkle 1 tablespoon of cheese on cup"),
    or whether it tells only other acts on that thing ("peel the garlic" for "Chop 1 garlic clove")."""
    bare = appliances.place_told(focus, caption)  # told by a verb: "nuking" is "in the microwave"
    if bare != focus and parse(bare).thing and not thing_in(appliances.asked(focus) or "", caption):
        told, named = read(bare, caption), all(thing_in(t, caption) for t in things(bare))
        return told if told.restated or told.other_act or not named else Reading(bare, False, told.as_place)
    said = implied(focus)
    own = _read(focus, caption)  # "grease the cup" for "Coat the cup with cooking spray"
    if own.restated is not None:
        return own
    words = tokens(focus)
    if words and moves_to(words, verb_base(words[0]) or words[0].lower(), carried=said == focus):
        # "throw the onions in the blender" is putting them there, as "adds onions to blender" tells
        as_put = _read(" ".join(["put", *words[1:]]), caption)
        if as_put.restated is not None:
            return as_put
    if said == focus:
        return own
    put_on = _read(said, caption)
    if put_on.restated is None and thing_in(parse(said).thing, caption) is None:
        # "did I pepper the tuna?" of "unsealing a can of tuna": no pepper, another act on the tuna
        return Reading(None, own.other_act or parse(focus).thing != "")
    implied_act = parse(said)
    if (
        put_on.restated is None
        and not put_on.other_act
        and tells(implied_act.verb, caption)
        and thing_in(implied_act.thing, caption) is not None
    ):
        # "salt the soup" of "adds salt to the soup": the caption says it as the act is implied
        return Reading(said, False, put_on.as_place)
    return put_on


def _named(asked: Asked, words: list[str], caption: str) -> str | Reading:
    """The caption's word for the thing asked, or the Reading when it names none: not at all, or
    only among a vessel's contents, which no act on them put in."""
    look = look_before(words, asked.thing_at)
    # a look is general however it is qualified: "the little red bits" are any red things
    general = bool(look) or asked.thing in LOOKS
    general = general or (asked.thing not in BY_LOOK and general_word(words, asked.thing_at))
    named = thing_in(asked.thing, caption, general=general, look=look)
    if named is None:
        return Reading(None, False)
    as_said = as_told(caption)
    if (
        as_said != caption
        and adds(asked.verb)
        and thing_in(asked.thing, as_said, general=general, look=look) is None
    ):
        return Reading(None, True)  # in the vessel already ("the contents of the mug"): not put in now
    return named


def _read(focus: str, caption: str) -> Reading:
    asked = parse(focus)
    if not asked.thing:
        return _verb_only(focus, asked, caption)
    asked_words = words = tokens(focus)
    named = _named(asked, words, caption)
    if isinstance(named, Reading):
        return named
    if (told_words := _every_thing_told(focus, asked, words, caption)) is None:
        return Reading(None, False)
    words = told_words  # "add water to the peppers" of "to the dish, adding water": "add water"
    out = list(words)
    if named.lower() != words[asked.thing_at].lower():
        thing_words.say_as(out, asked, named)
    else:
        thing_words.with_its_noun(out, asked.thing_at, caption)
    thing_words.unsaid_describers(out, asked.thing_at, caption)
    thing_words.vessels_as_said(out, caption)
    if asked.verb:
        verbs = caption_verbs(caption)
        if not verbs and _SHORTHAND_PUT.search(caption) and adds(asked.verb):
            # "1 egg to a blender", "1/4 cup mayonnaise to the bowl": a recipe's shorthand for
            # adding the thing, told by no verb; the focus without its verb is what it says.
            del out[asked.verb_at : asked.verb_at + max(asked.verb_words, 1)]
            return Reading(" ".join(out) or None, False)
        caption_words = tokens(caption)
        verbs = _in_its_clauses(verbs, caption_words, named)
        if asked.verb == "cover" and "with" not in (w.lower() for w in words):
            # "did I cover the ramekin?" asks for a lid; "covering it with cooking spray" coats it
            verbs = [(i, t) for i, t in verbs if t != "cover" or not coats(caption_words, i)]
            if not verbs:
                return Reading(None, True)
        told = [base for _, base in verbs]
        # a phrasal verb tells the act in other words ("tossing in" adds): those words are compared
        own = [i for i, t in verbs if t == asked.verb and verb_base(caption_words[i]) != asked.verb]
        if own and not any(verb_base(caption_words[i]) == asked.verb for i, _ in verbs):
            told = [t for t in told if t != asked.verb]
        if asked.verb not in told:
            match = said_as(asked, verbs, caption_words, caption) or filled_by(
                asked.verb, named, caption_words, verbs
            )
            if match is None:
                # Every verb the caption tells is one we know and none is the asked act; a verb
                # we do not know may be the same act in words the families lack.
                other = (
                    known(asked.verb)
                    and bool(told)
                    and all(known(t) and not related_act(asked.verb, t) for t in told)
                )
                return Reading(None, other)
            out[asked.verb_at : asked.verb_at + max(asked.verb_words, 1)] = [match]
    _drop_result(out, asked.verb_at + max(asked.verb_words, 1), caption)
    if asked.thing_at == len(out) - 2:
        _drop_result(out, asked.thing_at + 1, caption)  # "wipe the counter clean"
    as_place = asked.verb not in FILLS and _puts_or_does(asked.verb) and only_as_place(named, caption)
    return _restated(asked, asked_words, out, as_place)


# What an act leaves its thing as, said after the verb: "cut open a bag" is cutting the bag.
_RESULTS = frozenset({"open", "apart", "loose", "free", "shut", "closed", "clean", "dry", "flat", "even"})


def _drop_result(out: list[str], at: int, caption: str) -> None:
    """Drop the word at `at` when it says what the act left its thing as and the caption does not
    say it: "cuts nylon bag" tells "cut open a plastic bag"."""
    if 0 < at < len(out) and out[at].lower() in _RESULTS:
        if out[at].lower() not in (w.lower() for w in tokens(caption)):
            out[at] = ""


def _in_its_clauses(verbs: list[tuple[int, str]], words: list[str], named: str) -> list[tuple[int, str]]:
    """The verbs of the clauses that name the thing (or take it up as "it" after one that does):
    "cooks cheese, then spreads cheese in tortilla" cooks no tortilla."""
    clause = list(accumulate(w.lower() == "then" for w in words))
    if not clause or clause[-1] == 0:
        return verbs
    naming = {clause[i] for i, w in enumerate(words) if w.lower() == named.lower()}
    if not naming:
        return verbs
    naming |= {clause[i] for i, w in enumerate(words) if w.lower() in _TAKEN_UP and clause[i] > min(naming)}
    return [(i, t) for i, t in verbs if clause[i] in naming]


_TAKEN_UP = frozenset({"it", "them", "its", "their"})


def _restated(asked: Asked, words: list[str], out: list[str], as_place: bool = False) -> Reading:
    """The focus's `words` said as `out`, verb first and without a purpose; no restatement when
    that is what was asked."""
    if asked.verb and asked.verb_at > asked.thing_at >= 0:
        # "mayonnaise put" is said as a caption says it, verb first: "put mayonnaise"
        out = [out[asked.verb_at], *out[: asked.verb_at], *out[asked.verb_at + 1 :]]
    restated = _PURPOSE.sub("", " ".join(w for w in out if w))
    return Reading(restated if restated.lower() != " ".join(words).lower() else None, False, as_place)


def _every_thing_told(focus: str, asked: Asked, words: list[str], caption: str) -> list[str] | None:
    """The focus's words when the caption names every thing they name, else None: "top cup with 1
    tablespoon of salsa" is not "sprinkle cheese on cup". A food asked as where the thing went
    may be left out ("milk in the eggs" of "tipping milk to the dish": the eggs were in it)."""
    missing = [t for t in things(focus) if not thing_in(t, caption)]
    if missing and adds(asked.verb) and asked.verb_at < asked.thing_at:
        together = asked.verb not in PUT_ON_WITH  # "add water with the peppers": into one vessel
        words = without_food_destination(words, missing, asked.thing_at, asked.thing, caption, together)
        missing = [t for t in missing if any(singular(w.lower()) == t for w in words)]
    if None in (thing_in(t, caption, general=general_word(words, i)) for t, i in with_heads(words)):
        return None
    return None if missing else words


def act_alone(focus: str) -> bool:
    """Whether the focus names an act and no thing: its verb alone ("kneading"), or with words
    that name none ("wash my hands", "knead by hand")."""
    asked = parse(focus)
    if not asked.verb or asked.thing:
        return False
    rest = tokens(focus)[asked.verb_at + max(asked.verb_words, 1) :]
    rest = [w.lower() for w in rest]
    # a pronoun stands for a thing said before ("flip them"): not the act alone; and words that
    # only time it ("eaten yet") leave the bare act, which a whole family of verbs would tell
    if any(w in PRONOUNS or not (w in STEP_STOP_WORDS or w in DETERMINERS) for w in rest):
        return False
    return not rest or any(w in _PARTS for w in rest)


# Words a question may name with an act that are no thing of memory's ("my hands", "both sides").
_PARTS = frozenset("hand hands side sides piece pieces".split())


def _verb_only(focus: str, asked: Asked, caption: str) -> Reading:
    """ "flip them", "stir it", "before blitzing": a question whose object is a pronoun, or that
    names no thing, is about its act alone; the caption's verb for that act restates it."""
    words = tokens(focus)
    after = asked.verb_at + max(asked.verb_words, 1)  # "first microwave it": an adverb may lead
    pronoun = len(words) > after and words[after].lower() in PRONOUNS
    alone = act_alone(focus)  # "before blitzing", "wash my hands": the act with no thing of its own
    if not asked.verb or not (pronoun or alone) or BROAD.get(asked.verb):
        return Reading(None, False)
    if not all(thing_in(t, caption) for t in things(focus)):
        return Reading(None, False)  # "wrap it in tortillas" is not "wrapping up the lettuce wraps"
    caption_words = tokens(caption)
    at = next((i for i, t in caption_verbs(caption) if covers_act(asked.verb, t)), None)
    if at is None:
        return Reading(None, False)
    # the caption's verb with its particle: "turning over", not "turning"
    told = caption_words[
        at : at + 2 if at + 1 < len(caption_words) and caption_words[at + 1].lower() in PARTICLES else at + 1
    ]
    return Reading(" ".join([*words[: asked.verb_at], *told, *words[after:]]), False)


def restate(focus: str, caption: str) -> str | None:
    """`read(focus, caption).restated`."""
    return read(focus, caption).restated
