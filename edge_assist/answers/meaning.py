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

from edge_assist.answers.put_into import puts_into
from edge_assist.answers.support import is_content
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, OTHER, TOOL, lexical_kind
from edge_assist.text.action_families import BROAD, covers_act, known, related_act, same_act
from edge_assist.text.coordinated_verbs import ADVERBS
from edge_assist.text.kinds_of_things import covers, same_thing
from edge_assist.text.put_on_verbs import PHRASAL, PUT_ON_WITH, PUTS_ON, REMOVES
from edge_assist.text.stop_words import (
    ANSWER_STOP_WORDS,
    CLAUSE_CONJUNCTIONS,
    DETERMINERS,
    FUNCTION_WORDS,
    PARTICLES,
    PREPOSITIONS,
    PRONOUNS,
    STEP_STOP_WORDS,
)
from edge_assist.text.units import UNIT_NAMES
from edge_assist.text.verb_forms import IRREGULAR_PAST, base_of_third_person, is_verb

# How much a moment that tells only other acts on the thing asked about still counts: "when did I
# peel the garlic?" is not answered by "Chop 1 garlic clove", however close the words are.
OTHER_ACT_WEIGHT = 0.3
# A restatement is a step away from the question's own words: a caption that says what the
# question says ("topped lettuce leaves with the tuna") ranks above one restated into it
# ("laid out 2 large lettuce leaves"), and a clear restated match stays far above the threshold.
RESTATED_WEIGHT = 0.9
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[./-]\d+)*")
_WORDS_OF = re.compile(r"[A-Za-z]+")
_PAST_TO_BASE = {past: base for base, past in IRREGULAR_PAST.items()}
# Words that measure or portion a thing: "a tablespoon of cheese", "a piece of the muffin",
# "a pinch of salt" are about the cheese, the muffin, the salt.
_PORTIONS = frozenset(
    """piece pieces bit bits slice slices pinch dash splash handful drop drops sprig clove cloves
    portion part half quarter amount lot lots bunch scoop spoonful some bottom top side end edge
    middle rest layer""".split()
)
# Words of a question that name no thing: grammar, the words every step shares ("yet", "hand",
# "piece"), amounts and units.
_NOT_THINGS = ANSWER_STOP_WORDS | STEP_STOP_WORDS | PREPOSITIONS | PRONOUNS | DETERMINERS | UNIT_NAMES
# Words that end a noun phrase without being part of it: "the cheese yet", "the eggs while".
_ENDS_PHRASE = (STEP_STOP_WORDS | CLAUSE_CONJUNCTIONS) - _PORTIONS
# Where a caption's verb may stand: first, after its subject or an auxiliary ("I'm chopping"), or
# after "and", "then", a comma.
_SUBJECTS = frozenset(
    """c i you he she they person wearer man woman someone i'm am is are was were i've have has had""".split()
)
_COORDINATORS = frozenset({"and", "then", "or", "plus"})
# A verb and its particle that tell another act than the verb alone.


def verb_base(word: str) -> str | None:
    """The base form of `word` when it is a verb we know in any form ("poured" -> pour), else None."""
    w = word.lower()
    for cand in (w, base_of_third_person(w), _PAST_TO_BASE.get(w, "")):
        if cand and (is_verb(cand) or known(cand)):
            return cand
    stems: tuple[str, ...] = ()
    if w.endswith("ing") and len(w) > 5:
        stems = (w[:-3], w[:-3] + "e", w[:-4])
    elif w.endswith("ed") and len(w) > 4:
        stems = (w[:-2], w[:-1], w[:-3], w[:-3] + "y")
    return next((s for s in stems if is_verb(s) or known(s)), None)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


@dataclass(frozen=True)
class Asked:
    """What a question's focus names: its verb (base form) and the thing it is about."""

    verb: str  # "" when the focus does not start with a verb
    verb_words: int  # how many leading words the verb takes ("put in": 2)
    thing: str  # singular head noun of the object ("cheese"); "" when none
    thing_at: int  # index of the thing's word in the focus's words (-1: none)
    verb_at: int = 0  # index of the verb's first word


def parse(focus: str, *, verb_first: bool = False) -> Asked:
    """`verb_first`: the focus starts with its verb whether we know the verb or not, as a yes/no
    question's does ("did I pin the wraps shut?")."""
    words = _tokens(focus)
    lead = 0
    while lead < len(words) - 1 and words[lead].lower() in ADVERBS:
        lead += 1  # "then stir the bowl", "also add salt": the verb follows
    if lead:
        inner = parse(" ".join(words[lead:]), verb_first=verb_first)
        at = inner.thing_at + lead if inner.thing_at >= 0 else -1
        return Asked(inner.verb, inner.verb_words, inner.thing, at, inner.verb_at + lead)
    if not words:
        return Asked("", 0, "", -1)
    if _noun_first(words):
        # "how much oil did I heat?" asks about "oil heat": the thing first, its verb last
        thing, at = _object_head(words[:-1], 0)
        return Asked(verb_base(words[-1]) or "", 0, thing, at, len(words) - 1)
    verb = verb_base(words[0]) or (words[0].lower() if verb_first and len(words) > 1 else "")
    start = 0
    if verb:
        start = 2 if len(words) > 1 and words[1].lower() in PARTICLES else 1
        verb = PHRASAL.get((verb, words[1].lower()), verb) if start == 2 else verb
        if (verb, words[start - 1 if start == 2 else -1].lower()) in REMOVES:
            verb = "remove"  # "take the stalks off", "pull out the seeds"
    thing, at = _object_head(words, start)
    if not thing:
        # "season it with pepper": the thing the act puts on is the one asked about
        thing, at = next(iter(_with_heads(words)), ("", -1))
    return Asked(verb, start, thing, at)


def _noun_first(words: list[str]) -> bool:
    """A focus that names its thing, then its verb ("salsa add", "chopped tomatoes add"), as a
    how-much question's does; "butter the toast" and "add salt" start with their verbs."""
    first = words[0].lower()
    return (
        len(words) > 1
        and verb_base(words[-1]) is not None
        and any(lexical_kind(w) in (MATERIAL, TOOL) for w in words[:-1])
        and words[1].lower() not in DETERMINERS
        and not words[1][0].isdigit()
        and (verb_base(first) is None or first.endswith("ed") or lexical_kind(first) in (MATERIAL, TOOL))
    )


def _object_head(words: list[str], start: int) -> tuple[str, int]:
    """The head noun of the first noun phrase from `start`: the last word of its run of nouns,
    or the noun after "of" when the run measures or portions it ("tablespoon of cheese")."""
    run: list[int] = []
    for i in range(start, len(words)):
        w = words[i].lower()
        measure = w in _PORTIONS or w in UNIT_NAMES
        nxt = words[i + 1].lower() if i + 1 < len(words) else ""
        after_number = i > start and words[i - 1][0].isdigit()
        if w[0].isdigit() or w in DETERMINERS or (not run and measure and (nxt == "of" or after_number)):
            if run:
                break
            continue
        if w == "of" and all(words[j].lower() in _PORTIONS | UNIT_NAMES for j in run):
            run = []  # "a tablespoon of cheese", "of the muffin": the head comes after
            continue
        if w in FUNCTION_WORDS or w in PREPOSITIONS or w in PRONOUNS or w in _ENDS_PHRASE:
            if run:
                break
            if w in PREPOSITIONS or w in PRONOUNS:
                return "", -1  # "did I put it in the bowl": no thing of its own
            continue
        run.append(i)
    if not run:
        return "", -1
    head = run[-1]
    return singular(words[head].lower()), head


def things(focus: str, *, verb_first: bool = False) -> list[str]:
    """The things a focus names (singular): the head of its object unless the lexicons
    know it for no thing ("pin the wraps shut"), and every other word they know as an ingredient
    or a tool ("add salt to the eggs" -> salt, egg). Its verb, whatever it is, and words that may
    only describe ("thin strips") are left out."""
    asked = parse(focus, verb_first=verb_first)
    words = _WORDS_OF.findall(focus.lower())[asked.verb_at + asked.verb_words if asked.verb_words else 0 :]
    out = [asked.thing] if asked.thing and lexical_kind(asked.thing) != OTHER else []
    out += [
        singular(w)
        for w in words
        if is_content(w)
        and w not in _NOT_THINGS
        and not _inflected_verb(w)
        and lexical_kind(w) in (TOOL, MATERIAL)
    ]
    return list(dict.fromkeys(out))


def _inflected_verb(word: str) -> bool:
    """ "beating", "chopped": a verb in an -ing or -ed form names an act, not a thing."""
    return word.endswith(("ing", "ed")) and verb_base(word) not in (None, word)


def caption_verbs(caption: str) -> list[tuple[int, str]]:
    """(index, base form) of the caption's words that stand where a verb of its own would."""
    words = _tokens(caption)
    out: list[tuple[int, str]] = []
    for i, w in enumerate(words):
        prev = words[i - 1].lower() if i else ""
        if i == 0 or prev in _SUBJECTS or prev in _COORDINATORS or (i and caption_gap(caption, words, i)):
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


def caption_gap(caption: str, words: list[str], i: int) -> bool:
    """Whether a comma or a semicolon comes right before the `i`-th word."""
    prefix = re.search(re.escape(words[i - 1]) + r"\s*([,;])\s*" + re.escape(words[i]), caption)
    return prefix is not None


def thing_in(thing: str, caption: str, *, general: bool = True) -> str | None:
    """The caption's word for `thing`: the thing itself in any number, or a member of it when it
    is a general word ("vegetable" -> "lettuce") and `general`; None when the caption does not
    name it."""
    words = _WORDS_OF.findall(caption)  # "microwave-safe" names the microwave, "mug's" the mug
    for i, w in enumerate(words):
        s = singular(w.lower())
        if same_thing(thing, s) or (general and covers(thing, s)):
            return w
        if i + 1 < len(words) and same_thing(thing, f"{w.lower()}-{singular(words[i + 1].lower())}"):
            return words[i + 1]  # "spring onions" for a scallion: the head word stands for it
    return None


def _general(words: list[str], at: int) -> bool:
    """A general word stands for its members unless a word qualifies it: "italian seasoning" is
    one thing, "any vegetables" every vegetable."""
    prev = words[at - 1].lower() if at > 0 else ""
    return (
        not prev
        or prev in DETERMINERS
        or prev in FUNCTION_WORDS
        or prev[0].isdigit()
        or bool(verb_base(prev))
    )


@dataclass(frozen=True)
class Reading:
    """How a caption reads against a question's focus."""

    restated: str | None  # the focus in the caption's words; None: nothing to restate
    other_act: bool  # the caption names the thing but tells only other acts on it


# A caption with no verb that puts its thing somewhere: "1 egg to a blender".
_SHORTHAND_PUT = re.compile(r"\b(?:to|into|onto)\s+(?:the|a|an|each|your|my)\b", re.I)


def _adds(verb: str) -> bool:
    """ "add", "put", "pour", "sprinkle": a way of putting a thing in or on something."""
    return same_act(verb, "add") or BROAD.get(verb) == BROAD["add"]


def implied(focus: str) -> str:
    """ "sweeten it" -> "add sweetener to it": a verb naming the thing it puts on, said with that
    thing; "top the cup with salsa" -> "add salsa to the cup"; any other focus as it is."""
    words = _tokens(focus)
    verb = (verb_base(words[0]) or words[0].lower()) if words else None
    lowered = [w.lower() for w in words]
    if "with" in lowered:
        at = lowered.index("with")
        put = words[at + 1 :]
        head, _ = _object_head(words, at + 1)
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
    said = implied(focus)
    if said == focus:
        return _read(focus, caption)
    own = _read(focus, caption)  # "grease the cup" for "Coat the cup with cooking spray"
    if own.restated is not None:
        return own
    put_on = _read(said, caption)
    if put_on.restated is None and thing_in(parse(said).thing, caption) is None:
        # "did I pepper the tuna?" of "unsealing a can of tuna": no pepper, another act on the tuna
        return Reading(None, own.other_act or parse(focus).thing != "")
    return put_on


def _read(focus: str, caption: str) -> Reading:
    asked = parse(focus)
    if not asked.thing:
        return _verb_only(focus, asked, caption)
    words = _tokens(focus)
    named = thing_in(asked.thing, caption, general=_general(words, asked.thing_at))
    if named is None:
        return Reading(None, False)
    others = [thing_in(t, caption, general=_general(words, i)) for t, i in _with_heads(words)]
    if not all(thing_in(t, caption) for t in things(focus)) or None in others:
        # "top cup with 1 tablespoon of salsa" is not "sprinkle cheese on cup": every thing counts
        return Reading(None, False)
    out = list(words)
    if named.lower() != words[asked.thing_at].lower():
        out[asked.thing_at] = named
    if asked.verb:
        verbs = caption_verbs(caption)
        if not verbs and _SHORTHAND_PUT.search(caption) and _adds(asked.verb):
            # "1 egg to a blender", "1/4 cup mayonnaise to the bowl": a recipe's shorthand for
            # adding the thing, told by no verb; the focus without its verb is what it says.
            del out[asked.verb_at : asked.verb_at + max(asked.verb_words, 1)]
            return Reading(" ".join(out) or None, False)
        told = [base for _, base in verbs]
        # a phrasal verb tells the act in other words ("tossing in" adds): those words are compared
        caption_words = _tokens(caption)
        own = [i for i, t in verbs if t == asked.verb and verb_base(caption_words[i]) != asked.verb]
        if own and not any(verb_base(caption_words[i]) == asked.verb for i, _ in verbs):
            told = [t for t in told if t != asked.verb]
        if asked.verb not in told:
            # the caption's own word ("scattered"): its word vector is the one the gate compares
            match = next((caption_words[i] for i, t in verbs if covers_act(asked.verb, t)), None)
            if (
                match is None
                and _adds(asked.verb)
                and asked.verb not in PUTS_ON
                and puts_into(caption, asked.thing)
            ):
                # "grinding pepper to the dish", "squeezing lemon into the bowl": a verb of its
                # own manner that still puts the thing somewhere adds it; "salt the eggs" puts
                # salt on them, and eggs poured somewhere are not salted
                match = caption_words[verbs[0][0]]
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
    if asked.verb and asked.verb_at > asked.thing_at >= 0:
        # "mayonnaise put" is said as a caption says it, verb first: "put mayonnaise"
        out = [out[asked.verb_at], *out[: asked.verb_at], *out[asked.verb_at + 1 :]]
    restated = " ".join(out)
    return Reading(restated if restated.lower() != " ".join(words).lower() else None, False)


def _verb_only(focus: str, asked: Asked, caption: str) -> Reading:
    """ "flip them", "stir it": a question whose object is a pronoun is about its act alone; the
    caption's verb for that act restates it."""
    words = _tokens(focus)
    pronoun = len(words) > asked.verb_words and words[asked.verb_words].lower() in PRONOUNS
    if not asked.verb or asked.verb_at != 0 or not pronoun or BROAD.get(asked.verb):
        return Reading(None, False)
    if not all(thing_in(t, caption) for t in things(focus)):
        return Reading(None, False)  # "wrap it in tortillas" is not "wrapping up the lettuce wraps"
    caption_words = _tokens(caption)
    at = next((i for i, t in caption_verbs(caption) if covers_act(asked.verb, t)), None)
    if at is None:
        return Reading(None, False)
    # the caption's verb with its particle: "turning over", not "turning"
    told = caption_words[
        at : at + 2 if at + 1 < len(caption_words) and caption_words[at + 1].lower() in PARTICLES else at + 1
    ]
    return Reading(" ".join([*told, *words[asked.verb_words :]]), False)


def _with_heads(words: list[str]) -> list[tuple[str, int]]:
    """The head of each "with" phrase and its index: what "garnish the platter with italian
    seasoning" puts on."""
    heads = []
    for i, w in enumerate(words):
        if w.lower() == "with":
            head, at = _object_head(words, i + 1)
            if head:
                heads.append((head, at))
    return heads


def restate(focus: str, caption: str) -> str | None:
    """`read(focus, caption).restated`."""
    return read(focus, caption).restated
