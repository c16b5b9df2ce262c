"""A question's focus parsed into its verb and the thing it is about: "how much oil did I heat?"
is about oil, heated; "add a tablespoon of cheese" about cheese, added (answers/meaning.py matches
them to captions)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from edge_assist.answers.support import is_content
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, OTHER, TOOL, lexical_kind
from edge_assist.text.action_families import verb_base
from edge_assist.text.coordinated_verbs import ADVERBS
from edge_assist.text.kinds_of_things import is_named
from edge_assist.text.put_on_verbs import PHRASAL, REMOVES
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

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[./-]\d+)*")
WORDS_OF = re.compile(r"[A-Za-z]+")
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
# What a thing was left as, said after it: "tear the muffin open", "break it apart".
_RESULTS = frozenset("open apart shut closed loose free".split())
_ENDS_PHRASE = (STEP_STOP_WORDS | CLAUSE_CONJUNCTIONS | _RESULTS) - _PORTIONS


def tokens(text: str) -> list[str]:
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
    words = tokens(focus)
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
        thing, at = object_head(words[:-1], 0)
        return Asked(verb_base(words[-1]) or "", 0, thing, at, len(words) - 1)
    verb = verb_base(words[0]) or (words[0].lower() if verb_first and len(words) > 1 else "")
    start = 0
    if verb:
        start = 2 if len(words) > 1 and words[1].lower() in PARTICLES else 1
        verb = PHRASAL.get((verb, words[1].lower()), verb) if start == 2 else verb
        if (verb, words[start - 1 if start == 2 else -1].lower()) in REMOVES:
            verb = "remove"  # "take the stalks off", "pull out the seeds"
    thing, at = object_head(words, start)
    if verb and 0 <= at < len(words) - 1 and (verb, words[at + 1].lower()) in REMOVES:
        verb = "remove"  # "take the stalks off the mushrooms": off them, away
    if not thing:
        # "season it with pepper": the thing the act puts on is the one asked about
        thing, at = next(iter(with_heads(words)), ("", -1))
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


# Heads that name nothing but what the word before them names: "the green stuff", "the red bits".
VAGUE = frozenset({"stuff", "things", "thing", "bits"})


def object_head(words: list[str], start: int) -> tuple[str, int]:
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
    if len(run) > 1 and words[run[-1]].lower() in VAGUE:
        run = run[:-1]  # "the green stuff" is about the green things
    head = run[-1]
    name = singular(words[head].lower())
    if len(run) > 1 and is_named(pair := f"{words[head - 1].lower()}-{name}"):
        return pair, head  # "spring onion" is one thing, a scallion, not an onion
    return name, head


def things(focus: str, *, verb_first: bool = False) -> list[str]:
    """The things a focus names (singular): the head of its object unless the lexicons
    know it for no thing ("pin the wraps shut"), and every other word they know as an ingredient
    or a tool ("add salt to the eggs" -> salt, egg). Its verb, whatever it is, and words that may
    only describe ("thin strips") are left out."""
    asked = parse(focus, verb_first=verb_first)
    words = WORDS_OF.findall(focus.lower())[asked.verb_at + asked.verb_words if asked.verb_words else 0 :]
    named = "-" in asked.thing  # a two-word name the lexicon knows ("spring-onion")
    out = [asked.thing] if asked.thing and (named or lexical_kind(asked.thing) != OTHER) else []
    parts = asked.thing.split("-") if named else []
    out += [
        singular(w)
        for w in words
        if singular(w) not in parts
        and is_content(w)
        and w not in _NOT_THINGS
        and not _inflected_verb(w)
        and lexical_kind(w) in (TOOL, MATERIAL)
    ]
    return list(dict.fromkeys(out))


def _inflected_verb(word: str) -> bool:
    """ "beating", "chopped": a verb in an -ing or -ed form names an act, not a thing."""
    return word.endswith(("ing", "ed")) and verb_base(word) not in (None, word)


def with_heads(words: list[str]) -> list[tuple[str, int]]:
    """The head of each "with" phrase and its index: what "garnish the platter with italian
    seasoning" puts on."""
    heads = []
    for i, w in enumerate(words):
        if w.lower() == "with":
            head, at = object_head(words, i + 1)
            if head:
                heads.append((head, at))
    return heads
