"""The verbs that follow the first one in a clause, in the tense of the first.

A caption often names more than one action: "C comes back and grabs the knife", "Measure
the flour and add it to the mug", "Add the onions, then move them to the pan". Told back
in the past, every action the wearer did goes into the past ("you came back and grabbed
the knife"), and in a progressive clause into the -ing form ("you were dicing or grating
the cucumber").

Only verbs in a coordinate slot are touched: right after "and", "or", "but", "plus",
"then", a comma or a semicolon. A word there is taken for a verb only when it looks like
one in that place (a known verb, followed by an object, a preposition or nothing), so
"salt and pepper" and "the cooking spray" stay nouns. A verb that belongs to an
infinitive ("to soften and brown") or to a subordinate clause with its own verb ("until
they start to soften and brown") keeps its form; so does everything after the first
sentence, which is a note about the step rather than something the wearer did.
"""

from __future__ import annotations

from edge_assist.text.verb_forms import base_of_third_person, is_verb, past_tense, present_participle

ADVERBS = frozenset(
    "then next now slowly gently briefly quickly carefully finally first also again immediately directly "
    "rapidly lightly thoroughly evenly fast partially improperly incompletely".split()
)
_COORDINATORS = frozenset({"and", "or", "but", "plus", "then"})
_RESETS = frozenset({"then", "but"})  # a new action of the wearer's, whatever came before
_SUBORDINATORS = frozenset(
    "until till if when while once unless because whether as where so whenever".split()
)
_FINITE = frozenset("is are was were gets get has have had does do did starts start becomes".split())
_OBJECT_START = frozenset(
    """the a an some any it them this that these those all half one two three four five six seven eight
    nine ten each both another more extra your his her their its my everything something
    to in into on onto over from with for at by off out up down back away through around under
    across along aside together""".split()
)
# Words a caption lists as things at least as often as it does as actions ("oil and salt",
# "the butter, spread"): a verb only before a clear object.
_NOUNISH = frozenset(
    """salt pepper juice oil water spray top line dust toast steam plate spoon stack tip brown puree glaze
    zest pinch cube season grease chill heat tap light set cut split spread dip fry roast mash whip
    stuff store hand watch look fit ladle filter drizzle cover""".split()
)
_NOUNISH_NEXT = frozenset(
    """the a an some it them this that these those all half one two three four five your his her their
    its with up off out""".split()
)
_NARRATION_NEXT = frozenset(
    """the a an some it them this that these those all one two your his her their its
    up down back out off away over""".split()
)
_PUNCT = ",.;:!?()\"'"


def _bare(raw: str) -> str:
    return raw.lower().strip(_PUNCT)


def _sentence_ends(raw: str) -> bool:
    return raw.endswith((".", "!", "?", ")")) or raw.startswith("(")


def _verb_base(word: str, next_raw: str | None, *, narration: bool, reset: bool = False) -> str | None:
    """The base form of `word` when it is a verb in a coordinate slot, else None.

    `narration`: the slot follows "and" or "then" in a caption about someone in the third
    person, where an -s word before an object is their next action ("and steps back"), and
    an -s word whose base is a verb we know is one whatever follows ("and pours water").
    `reset`: the slot follows "then" or "but", which a new action follows ("then add garlic").
    """
    nxt = _bare(next_raw) if next_raw is not None else None
    if word in _NOUNISH:
        return word if nxt in _NOUNISH_NEXT else None
    if reset and is_verb(word):
        return word
    if reset and narration and word.endswith("s") and not word.endswith(("ss", "us")) and len(word) >= 4:
        return base_of_third_person(word)  # "..., then activates the hood": their next action
    if narration and word.endswith("s") and not word.endswith("ss") and len(word) >= 4:
        base = base_of_third_person(word)
        if is_verb(base) and base not in _NOUNISH:
            return base
    if not (nxt is None or nxt in _OBJECT_START or nxt.isdigit() or nxt.endswith("ing") or nxt in ADVERBS):
        return None
    if is_verb(word):
        return word
    if not word.endswith("s") or word.endswith("ss") or len(word) < 4:
        return None
    base = base_of_third_person(word)
    if is_verb(base) and (base not in _NOUNISH or nxt in _NOUNISH_NEXT):
        return base  # "sets the heat": an -s form before an object is a verb however nounish
    # Not a verb we know: an action only when an object or a particle follows it at once,
    # where a plural noun ("forks and napkins at six places") would take a preposition.
    return base if narration and nxt in _NARRATION_NEXT else None


def _listed_act(raw: str, next_raw: str | None) -> bool:
    """An -s word after a comma in narration that is one of the person's acts in a list of them:
    its base a verb we know, an object after it ("washes hands"), where a listed thing ("spoons,
    and forks") ends at a comma or a coordinator."""
    word = _bare(raw)
    if raw.endswith(tuple(_PUNCT)) or next_raw is None or _bare(next_raw) in _COORDINATORS:
        return False
    if not word.endswith("s") or word.endswith("ss") or len(word) < 4:
        return False
    base = base_of_third_person(word)
    return is_verb(base) and base not in _NOUNISH


def _inflect(raw: str, base: str, progressive: bool) -> str:
    form = present_participle(base) if progressive else past_tense(base)
    core = raw.strip(_PUNCT)
    start = raw.find(core)
    return raw[:start] + form + raw[start + len(core) :]


def follow_tense(words: list[str], *, progressive: bool = False, narration: bool = False) -> list[str]:
    """`words` come after a clause's first verb: its coordinated verbs in the same tense, word for
    word (a word dropped is left empty).

    `progressive`: the first verb is "were ...ing", so are the others. `narration`: the
    caption spoke of someone in the third person ("C comes back and grabs the knife").
    """
    out = list(words)
    scope = "main"  # "main", "infinitive" or "sub"
    sub_has_verb = sub_third = False  # the subordinate clause's verb, and whether it took an -s
    for i, raw in enumerate(words):
        word = _bare(raw)
        if (i > 0 and _sentence_ends(words[i - 1])) or raw.startswith("("):
            break
        prev = words[i - 1] if i > 0 else ""
        slot = _bare(prev) in _COORDINATORS or prev.endswith((",", ";"))
        if prev.endswith((",", ";")) or _bare(prev) in _RESETS:
            scope, sub_has_verb = "main", False
        if slot and word in ("is", "are") and i + 1 < len(words) and _bare(words[i + 1]).endswith("ing"):
            # "..., then is stirring the pasta": the wearer's next action, as the first one was told
            # (in a progressive clause the "is" goes: an empty word, so positions stay as they were)
            out[i] = "" if progressive else raw.replace(word, "were")
            continue
        if slot and word not in _COORDINATORS:
            j = i + 1 if word in ADVERBS and i + 1 < len(words) else i
            target = _bare(words[j])
            nxt = words[j + 1] if j + 1 < len(words) and not _sentence_ends(words[j]) else None
            base = _verb_base(
                target,
                nxt,
                narration=narration and not prev.endswith((",", ";")),
                reset=_bare(prev) in _RESETS and j == i,
            )
            if base is None and narration and prev.endswith(",") and _listed_act(words[j], nxt):
                base = base_of_third_person(target)  # "grills fish, washes hands, then ...": their acts
            if j == 1 and _bare(prev) in ("and", "or") and is_verb(target):
                base = target  # "Measure and add 2 tbsp flour": both verbs share the object
            # "Stir until the cheese melts and serve": a base form after the clause's own -s verb
            # does not agree with its subject, so it is the wearer's next action.
            back = sub_third and not narration and is_verb(target) and target not in _NOUNISH
            base = target if back and scope == "sub" else base
            if base is not None and (scope == "main" or (scope == "sub" and (not sub_has_verb or back))):
                out[j] = _inflect(words[j], base, progressive)
                continue
        if word == "to" and i + 1 < len(words) and is_verb(_bare(words[i + 1])):
            scope = "infinitive"
        elif word in _SUBORDINATORS:
            scope, sub_has_verb, sub_third = "sub", False, False
        elif scope == "sub" and (word in _FINITE or is_verb(word) or is_verb(base_of_third_person(word))):
            sub_third = sub_third or (not sub_has_verb and not is_verb(word) and word.endswith("s"))
            sub_has_verb = True
    return out
