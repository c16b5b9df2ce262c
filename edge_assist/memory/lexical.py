"""Entities and relations from a caption's shallow parse, without the LLM.

The LLM extraction costs ~4 s of compute per caption with SmolLM2-135M (most of the memory
writer's budget) and, being a small model, often repeats its prompt example, which
`entities.resolve` then drops as ungrounded. Captions are short log lines of one of two
shapes, an imperative step ("Pour 1 egg into the ramekin cup") or a narration ("C picks up
the knife"), so a shallow parse finds the same kind of names:

- a clause is cut at punctuation and at clause conjunctions ("and", "then", "until", ...);
- its verb is its first content word (after a narration subject such as "C" or "I"),
  together with a following particle ("pick up");
- noun phrases are the runs of content words between function words (determiners,
  prepositions, pronouns, numbers, quantity units after a number, levels, adverbs,
  participles such as "uncovered"); the last three words of a run are kept, the head last;
- relations go from the clause's first noun phrase (the verb's object) to each later one,
  named by the verb and the preposition before it ("pour into").

Every name is a span of the caption (or the thing an instrument verb names: "Microwave
the cup" -> microwave), so it is grounded by construction; kinds are not guessed
("other", but "appliance"/"tool" for an instrument verb): the graph path matches names,
and a kind the LLM gave a key stays in the graph when the LLM path ran.
`memory.entity_extractor = "lexical"` selects this path; benchmarks/bench_memory_ingest.py
measures it against the LLM's extraction.
"""

from __future__ import annotations

import re

from edge_assist.memory.entities import MAX_ENTITIES, MAX_RELATIONS, Extraction, entity_key, relation_key
from edge_assist.text.numbers import CARDINALS, COUNT_WORDS
from edge_assist.text.stop_words import (
    AUXILIARIES,
    CLAUSE_CONJUNCTIONS,
    DETERMINERS,
    PARTICLES,
    PREPOSITIONS,
    PRONOUNS,
)
from edge_assist.text.units import UNIT_NAMES

# Words a caption counts or orders things with: "two eggs", "a dozen", "the first pan".
_NUMBER_WORDS = (
    frozenset(CARDINALS)
    | frozenset(COUNT_WORDS)
    | frozenset("first second third last next double few".split())
)
# Adverbs, participles and measures that never belong to a thing's name.
_ADVERBS = frozenset(
    """again also almost just only very well now still already even about approximately around
    roughly evenly gently slowly quickly thoroughly finely lightly completely carefully firmly
    briefly immediately uncovered covered aside further continue continuing more minutes seconds
    once twice thrice times""".split()
)
# Heat and power settings: "on medium" names no thing.
_LEVELS = frozenset(
    """low medium high max full medium-low medium-high low-medium hot cold warm lukewarm boiling
    room temperature degree degrees""".split()
)
# Nouns of shape, not of things: "two pieces", "the top", "a bit".
_NOT_THINGS = frozenset(
    """piece pieces top bottom side sides end ends way bit bits lot amount time times step steps
    part parts middle center centre edge edges surface layer layers mixture taste liking needed
    desired""".split()
)
_NARRATION_SUBJECTS = frozenset("c i you he she we they person wearer man woman someone".split())
_LY_NOUNS = frozenset("jelly belly lily family assembly supply butterfly holly bully ally".split())
_ED_NOUNS = frozenset("bed red shed sled seed bread feed reed weed steed speed".split())
# Verbs whose "to" starts an infinitive ("use X to cut", "continue to stir"), not a destination.
_TO_VERBS = frozenset(
    """use continue start begin try need want remember wait allow help prepare make using uses
    continues starts begins tries""".split()
)
# Verbs that name the thing doing the work ("Microwave the cup", "Whisk the eggs"): the
# thing is in the caption as the verb, and a question names it ("did I use the microwave").
INSTRUMENT_VERBS = {
    "microwave": "microwave",
    "whisk": "whisk",
    "grill": "grill",
    "ladle": "ladle",
    "spoon": "spoon",
    "sieve": "sieve",
    "blend": "blender",
    "toast": "toaster",
    "steam": "steamer",
    "skewer": "skewer",
    "vacuum": "vacuum cleaner",
    "iron": "iron",
    "hammer": "hammer",
    "drill": "drill",
}
_FUNCTION = (
    {","} | DETERMINERS | PREPOSITIONS | CLAUSE_CONJUNCTIONS | PRONOUNS | AUXILIARIES | _ADVERBS | _LEVELS
)
# "60", "1/2", "15-30", "6-oz", "2nd": a leading digit makes a quantity, not a thing.
_NUMBER = re.compile(r"^([0-9½¼¾⅓⅔⅛][0-9a-z./-]*)$")
_TOKEN = re.compile(r"[a-z0-9½¼¾⅓⅔⅛][a-z0-9½¼¾⅓⅔⅛'./-]*")
MAX_NAME_WORDS = 3


def _is_modifier_verb(word: str) -> bool:
    """A participle or adverb: never part of a thing's name ("uncovered", "gently")."""
    if word.endswith("ly") and len(word) > 4 and word not in _LY_NOUNS:
        return True
    return (
        word.endswith("ed") and len(word) > 4 and word not in _ED_NOUNS and not word.endswith(("eed", "ead"))
    )


def _starts_clause(words: list[str], i: int) -> bool:
    """Whether the word after "and"/"or" at i is a new verb ("and stir gently") or a second
    noun ("salt and pepper")."""
    if i + 1 >= len(words):
        return False
    nxt = words[i + 2] if i + 2 < len(words) else None
    return (
        nxt is None
        or nxt in DETERMINERS
        or bool(_NUMBER.match(nxt))
        or nxt in _ADVERBS
        or nxt in PARTICLES
        or _is_modifier_verb(nxt)
        or (nxt in PREPOSITIONS and nxt not in ("to", "of", "in", "on"))
    )


def _clauses(text: str) -> list[list[str]]:
    out: list[list[str]] = []
    # A full stop ends a sentence only before a capital or the end ("a 6-oz. ramekin" goes on).
    for part in re.split(r"[;!?:()\[\]]+|,(?=\s|$)|\.(?=\s+[A-Z]|\s*$)|\s-\s|—", text):
        toks = [t.strip("'./-") for t in _TOKEN.findall(part.lower())]
        toks = [t for t in toks if t]
        cur: list[str] = []
        for i, tok in enumerate(toks):
            coordinated = tok in ("and", "or") and not _starts_clause(toks, i)
            if coordinated:
                cur.append(",")  # two nouns side by side stay two phrases
                continue
            if tok in CLAUSE_CONJUNCTIONS or (tok == "to" and cur and cur[0] in _TO_VERBS):
                # "use a knife to scoop ...": what follows "to" after such a verb has its own verb.
                if cur:
                    out.append(cur)
                cur = []
                continue
            cur.append(tok)
        if cur:
            out.append(cur)
    return out


def _verb(words: list[str]) -> tuple[str, int]:
    """The clause's verb phrase and where its object starts: skip a narration subject first."""
    i = 0
    while i < len(words) and (
        words[i] in _NARRATION_SUBJECTS or words[i] in AUXILIARIES or words[i] in DETERMINERS
    ):
        i += 1
    if i >= len(words) or (i > 0 and words[i - 1] in DETERMINERS) or _NUMBER.match(words[i]):
        return "", 0  # "the egg is set": the clause opens with a thing, not a verb
    verb = [words[i]]
    i += 1
    if i < len(words) and words[i] in PARTICLES and (i + 1 >= len(words) or words[i + 1] not in PARTICLES):
        # "pick up the knife": the particle belongs to the verb, unless it starts a phrase ("up to").
        verb.append(words[i])
        i += 1
    return " ".join(verb), i


def _phrases(words: list[str]) -> list[tuple[str, str]]:
    """(preposition before it, noun phrase) for each run of content words."""
    out: list[tuple[str, str]] = []
    run: list[str] = []
    prep = ""
    after_number = False
    # The last word was a number, unit or shape noun: "with 1 tablespoon of salsa" keeps "with".
    quantity = False

    def close() -> None:
        nonlocal run, prep
        while run and (run[-1] in _NOT_THINGS or _is_modifier_verb(run[-1])):
            run = run[:-1]
        if run:
            out.append((prep, " ".join(run[-MAX_NAME_WORDS:])))
            prep = ""
        run = []

    for w in words:
        if w in AUXILIARIES:
            break  # "the egg is almost set": a predicate follows, not a thing
        number = bool(_NUMBER.match(w)) or w in _NUMBER_WORDS
        if number:
            close()
            after_number = quantity = True
            continue
        if after_number and w in UNIT_NAMES:
            # "1 cup of flour": the unit is a measure here, not the container ("ramekin cup" stays).
            after_number = False
            continue
        after_number = False
        if w in _FUNCTION or w in _NOT_THINGS or _is_modifier_verb(w) or len(w) < 2:
            close()
            if w in PREPOSITIONS and not (w == "of" and quantity):
                prep = w
            quantity = quantity or w in _NOT_THINGS
            continue
        quantity = False
        run.append(w)
    close()
    return out


def extract_lexical(text: str) -> Extraction:
    """Entities and relations of one caption from its shallow parse (module docstring)."""
    ents: dict[str, tuple[str, str, str]] = {}
    rels: list[tuple[str, str, str]] = []
    for words in _clauses(text):
        verb, start = _verb(words)
        phrases = [(p, n, entity_key(n)) for p, n in _phrases(words[start:])]
        phrases = [(p, n, k) for p, n, k in phrases if k and k != "wearer"]
        for _prep, name, key in phrases:
            if key not in ents and len(ents) < MAX_ENTITIES:
                ents[key] = (key, name[:40], "other")
        tool = INSTRUMENT_VERBS.get(verb.split(" ")[0]) if verb else None
        if tool and tool not in ents and len(ents) < MAX_ENTITIES:
            ents[tool] = (
                tool,
                tool,
                "appliance" if tool in ("microwave", "grill", "blender", "toaster") else "tool",
            )
        if verb and phrases:
            head = phrases[0][2]
            # Only a phrase behind a preposition is linked: "salt and pepper" are two objects, not a relation.
            for prep, _name, key in phrases[1:]:
                rel = relation_key(f"{verb} {prep}".strip())
                if (
                    prep
                    and key != head
                    and head in ents
                    and key in ents
                    and len(rels) < MAX_RELATIONS
                    and (head, rel, key) not in rels
                ):
                    rels.append((head, rel, key))
    return Extraction(tuple(ents.values()), tuple(rels))
