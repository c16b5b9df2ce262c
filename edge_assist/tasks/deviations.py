"""How a caption that is a step differs from it, like with like.

Values (amounts, durations, settings, temperatures) are parsed on both sides and compared by
value (`details.value_differences`). Things are typed first (`word_kinds`: tool, ingredient
or material, other) and compared only with things of their own kind, by encoder cosine:

- a tool: the step's "with/using" tool against the caption's, when both are tools ("with a
  pinch of salt" names an amount of an ingredient, not a tool: no "fork instead of pinch of
  salt");
- an ingredient or material: one the step names is not in what the wearer does, and one the
  step does not name is ("pours sugar over the eggs" at "sprinkle the grated cheese over the
  eggs": sugar instead of grated cheese). Tools are compared only in their slot: a step of two
  actions ("fold the omelette and slide it onto a plate") names the things of both, and a
  caption of one shows only its own, so a tool merely not named is no deviation.

What the wearer does is the caption's action clauses: a caption often also tells the scene
("...; the bowl of grated cheddar stays beside the hob"), and a thing merely seen is not a
thing used. A caption of a 10-s clip often tells two actions ("mixes flour in the bowl, then
adds salt to the mixture"): things and tools are compared in the one closest to the step (the
other is the next step begun, or an aside), so the salt of the second is no "salt instead of
water" at "Mix the flour in water". The one closest is first the one that names most of the
step's own things, then one that does the step's act ("stirs the ingredients" at "Mix the spice
with the ingredients", not "adds sauce to the ingredients"), then the nearest by encoder
cosine. The verb of each clause, function words and every word of kind "other" never count, so
a word that is no value is no deviation ("plus instead of secure").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from edge_assist.tasks.details import Details, Difference, parse_details, value_differences
from edge_assist.tasks.step_phrases import singular as singular_of
from edge_assist.tasks.undone import undone_parts
from edge_assist.tasks.word_kinds import MATERIAL, OTHER, TOOL, WordKinds, is_verb_form, singular
from edge_assist.text.action_families import ACTING_APPLIANCES, said_as_verbs, same_act, verb_base
from edge_assist.text.caption_subject import SUBJECT
from edge_assist.text.kinds_of_things import covers
from edge_assist.text.participles import participle_base
from edge_assist.text.stop_words import FUNCTION_WORDS
from edge_assist.text.units import UNIT_NAMES

Vectors = Callable[[Sequence[str]], np.ndarray]

_WORD = re.compile(r"[a-z][a-z'-]+")
# Where a caption's clauses part: a semicolon, a sentence end, or ", and"/", while"/", as".
_CLAUSE_SPLIT = re.compile(r"[;.!?]\s+|,\s+(?:and|while|as|then|but)\s+|\s+while\s+")


@dataclass(frozen=True)
class Thing:
    head: str  # the word as written
    kind: str  # TOOL or MATERIAL
    phrase: str  # with its modifier when the text gives one ("grated cheese")


def _verb(word: str) -> bool:
    """A verb form, a compound one too ("stir-fries", "deep-fries": its last part)."""
    return is_verb_form(word) or ("-" in word and is_verb_form(word.rsplit("-", 1)[1]))


def acting_clauses(caption: str) -> list[str]:
    """The clauses in which someone acts, in order: a subject before its first word ("The person
    compresses ..."), a verb first ("..., then stirs the sauce"), or any word told as the next
    action (", then immerses the pancake": no verb list knows every verb)."""
    parts = _CLAUSE_SPLIT.split(caption)
    joins = [m.group(0) for m in _CLAUSE_SPLIT.finditer(caption)]
    acting = []
    for i, part in enumerate(parts):
        c = part.strip(" ,")
        if not c:
            continue
        bare = SUBJECT.sub("", c.lower())
        words = _WORD.findall(bare)
        then = i > 0 and "then" in joins[i - 1] and bool(words) and words[0].endswith("s")
        if words and (bare != c.lower() or _verb(words[0]) or then):
            acting.append(c)
    return acting


def step_clause(step_text: str, caption: str, vectors: Vectors, named: Sequence[str] = ()) -> str:
    """The action of the caption that is the step: of several acting clauses, the one that names
    most of the step's things (`named`, their heads), and among those the one closest to the
    step's text; the caption's action text when it tells one action. A clause that works on the
    step's onions is the step, whatever the encoder makes of "collects spice paste from shelf"."""
    acting = acting_clauses(caption)
    if len(acting) < 2:
        return "; ".join(acting) if acting else caption
    heads = [re.sub(r"[^a-z]+", "", singular_of(h.lower())) for h in named]
    counts = [sum(h in re.sub(r"[^a-z]+", "", c.lower()) for h in heads if h) for c in acting]
    verb = _first_verb(step_text)
    acts = [_same_act(verb, c) for c in acting]
    sims = vectors(acting) @ vectors([step_text])[0]
    return acting[max(range(len(acting)), key=lambda i: (counts[i], acts[i], float(sims[i])))]


def _first_verb(text: str) -> str | None:
    words = _WORD.findall(SUBJECT.sub("", text.lower()))
    return next((b for w in words[:3] if (b := verb_base(w)) is not None), None)


def _on_its_product(step_text: str, clause: str) -> bool:
    """Whether the clause works on what the step has made, named by its participle: "stirs the
    blended veggies with a fork" is after "Blend the veggies with a hand blender", so its fork and
    its things are no swap of the step's."""
    said = _WORD.findall(step_text.lower())
    verb = verb_base(said[0]) if said else None  # a step begun by its verb, not "1/8 cup shredded ..."
    words = _WORD.findall(SUBJECT.sub("", clause.lower()))
    return verb is not None and any(participle_base(w) == verb for w in words[1:])


def tells_the_act(step_text: str, caption: str) -> bool:
    """Whether the caption does the step's act in a verb of its own (`said_as_verbs`: "I zapped
    the dish" at "Microwave the plate")."""
    step_verb = _first_verb(step_text)
    if step_verb is None:
        return False
    return any(
        same_act(step_verb, base)
        for clause in acting_clauses(caption) or [caption]
        for _, base in said_as_verbs(_WORD.findall(SUBJECT.sub("", clause.lower())))
    )


def _same_act(step_verb: str | None, clause: str) -> bool:
    """Whether the clause does the step's act ("stirs the ingredients" at "Mix the spice with the
    ingredients"), in any words the act families give it."""
    told = _first_verb(clause)
    return step_verb is not None and told is not None and same_act(step_verb, told)


def things(text: str, kinds: WordKinds) -> list[Thing]:
    """The tools and ingredients a text names, less each clause's verb."""
    out: list[Thing] = []
    for clause in re.split(r"[;.!?]", text):
        words = _WORD.findall(SUBJECT.sub("", clause.strip().lower()))
        if words and _verb(words[0]):
            words = words[1:]  # the clause's verb, even when it is also a noun ("spoons", "salts")
        typed = kinds.kinds(words)
        for i, (w, k) in enumerate(zip(words, typed, strict=True)):
            if k == OTHER or w in UNIT_NAMES:
                continue
            prev = words[i - 1] if i > 0 else ""
            phrase = f"{prev} {w}" if prev.endswith("ed") and typed[i - 1] == OTHER else w
            out.append(Thing(w, k, phrase))
    return list({t.head: t for t in out}.values())


def _tools(details: Details, kinds: WordKinds) -> list[str]:
    """The "with/using" phrases that name a tool: a tool word in them, and no amount."""
    out = []
    for phrase in details.tools:
        words = _WORD.findall(phrase)
        if any(w in UNIT_NAMES for w in words):
            continue
        if TOOL in kinds.kinds(words) or _bare_hands(words):
            out.append(phrase)
    return out


# Hands used in a tool's place ("slices the muffin with hands" at "Cut the muffin with a knife");
# one hand ("holds the bowl with one hand") holds, it does not do the step.
_HANDS = frozenset({"hands", "fingers"})
_HANDS_SAID = _HANDS | {"bare", "both", "my", "his", "her", "their", "your"}
_MACHINES = ACTING_APPLIANCES | {"mixer", "machine", "grinder", "juicer"}


def _bare_hands(words: list[str]) -> bool:
    return bool(words) and bool(_HANDS & set(words)) and set(words) <= _HANDS_SAID


@dataclass(frozen=True)
class Thresholds:
    tool_same_cos: float  # a tool this close to the step's tool is the same tool
    new_cos: float  # a thing this far from every thing of its kind in the step is another one
    gone_cos: float  # a step's thing this far from every thing of its kind done is not there


def differences(
    step_text: str, step: Details, caption: str, vectors: Vectors, kinds: WordKinds, th: Thresholds
) -> list[Difference]:
    """Every way the caption differs from the step: values, then a tool, then a thing."""
    cap = parse_details(caption)
    diffs = value_differences(step, cap) + undone_parts(step_text, caption)
    # Every vector read below (the clauses and the step, then words and tools), in one encoder
    # call: each call has a fixed cost (~3 ms here) that a batch of a few texts pays once.
    vectors(
        [
            *step.tools,
            *cap.tools,
            *_WORD.findall(step_text.lower()),
            *_WORD.findall(caption.lower()),
            *acting_clauses(caption),
            step_text,
        ]
    )
    wanted = [t for t in _step_things(step_text, step, kinds) if t.kind == MATERIAL]
    acted = step_clause(step_text, caption, vectors, [t.head for t in wanted])
    if _on_its_product(step_text, acted):
        return diffs
    told = parse_details(acted)
    st, ct = _tools(step, kinds), _tools(told, kinds)
    if any(_MACHINES & set(_WORD.findall(t)) for t in st):
        # A machine's step done by hand is the step done another way (dough kneaded by hand).
        ct = [t for t in ct if not _bare_hands(_WORD.findall(t))]
    if st and ct and _on_the_steps_thing(step_text, step, acted, kinds):
        sim = vectors(ct) @ vectors(st).T
        worst = int(np.argmin(sim.max(axis=1)))
        if float(sim[worst].max()) < th.tool_same_cos:
            diffs.append(Difference("tool", st[0], ct[worst]))
    # A tool is compared in its slot ("with ..."), never as a thing that is merely not named:
    # a step of two actions names the tool of each, and a caption of one shows only its own.
    done = [t for t in things(acted, kinds) if t.kind == MATERIAL]
    # A thing the caption writes in two words ("flax seed" for "flaxseed") is there.
    joined = re.sub(r"[^a-z]+", "", acted.lower())
    there = {t.head for t in wanted if re.sub(r"[^a-z]+", "", t.head.lower()) in joined}
    there |= {t.head for t in wanted if _kind_done(t.head, done)}
    # "mixes flour and salt" at "Mix flour in water": the salt is added to the step's flour, not
    # put in the water's place
    done = [t for t in done if t.head in there or not _joined(acted, t.head, there)]
    d = _thing_difference(wanted, done, vectors, th, there)
    if d is not None:
        diffs.append(d)
    return diffs


def _on_the_steps_thing(step_text: str, step: Details, acted: str, kinds: WordKinds) -> bool:
    """Whether the caption's action works on what the step works on, so that its tool is the one
    the step would use: "wipes the sink area with a napkin" tells nothing about the cloth of
    "Clean the plate with a cloth". A clause that names none of the step's things but names
    something else works on that; one that names nothing ("spreads it with a spoon") may be the
    step's."""
    slot = {w for phrase in step.tools for w in _WORD.findall(phrase.lower())}
    own = {
        singular_of(t.head.lower())
        for t in _step_things(step_text, step, kinds)
        if t.head.lower() not in slot
    }
    if not own:
        return True
    words = _WORD.findall(SUBJECT.sub("", acted.lower()))
    if words and _verb(words[0]):
        words = words[1:]
    told = {w for phrase in parse_details(acted).tools for w in _WORD.findall(phrase.lower())}
    named = [singular_of(w) for w in words if w not in FUNCTION_WORDS and w not in told and not _verb(w)]
    return not named or any(w in own or any(covers(o, w) for o in own) for w in named)


def _joined(text: str, head: str, there: set[str]) -> bool:
    """Whether `head` is said joined to a thing of the step the caption names ("flour and salt",
    "salt plus the flour"). "The flour with honey" is not: honey is what the flour is mixed in,
    where the step's water would be."""
    low = text.lower()
    for other in there:
        a, b = re.escape(other.lower()), re.escape(head.lower())
        join = r"\s+(?:and|plus|&)\s+(?:[a-z-]+\s+){0,3}"
        if re.search(rf"\b{a}\w*{join}{b}", low) or re.search(rf"\b{b}\w*{join}{a}", low):
            return True
    return False


def _kind_done(word: str, done: list[Thing]) -> bool:
    """Whether a step's plural general word ("slice the vegetables", "add spices") is done with
    one of its members: the tomato sliced is the vegetables, no swap for them; salt and pepper
    are among the spices or herbs of a list ("pours salt" at "Add the spices"), sugar not. Only
    the plural: "a slice of bread" means bread, and an English muffin there is another thing."""
    kind = singular_of(word.lower())
    heads = [singular_of(t.head.lower()) for t in done]
    salted = kind in _SEASONINGS and any(h in ("salt", "pepper") for h in heads)
    return kind != word.lower() and (salted or any(covers(kind, h) for h in heads))


_SEASONINGS = frozenset({"spice", "herb", "seasoning"})


def _step_things(step_text: str, step: Details, kinds: WordKinds) -> list[Thing]:
    if step.objects:
        typed = kinds.kinds([singular(o.split()[-1]) for o in step.objects])
        return [Thing(o, k, o) for o, k in zip(step.objects, typed, strict=True) if k != OTHER]
    return things(step_text, kinds)


def _thing_difference(
    want: list[Thing], have: list[Thing], vectors: Vectors, th: Thresholds, there: set[str]
) -> Difference | None:
    """One thing of the step not there, and one not of the step there instead (same kind);
    `there`: things of the step the caption names in other spelling."""
    if not want or not have:
        return None
    wv = vectors([t.head for t in want])
    hv = vectors([t.head for t in have])
    sim = wv @ hv.T
    gone, new = sim.max(axis=1), sim.max(axis=0)
    gone = np.where([t.head in there for t in want], 1.0, gone)
    g, k = int(np.argmin(gone)), int(np.argmin(new))
    if gone[g] < th.gone_cos and new[k] < th.new_cos and _alike(want[g].head, have[k].head, want, have):
        return Difference("ingredient", want[g].phrase, have[k].head)
    return None


# What a pan or a pot is filled with, and what is poured like it.
_MEDIA = ("liquid", "fat")
_POURED = (*_MEDIA, "oil", "sauce", "condiment", "sweetener")


def _is(word: str, kinds: tuple[str, ...]) -> bool:
    w = singular_of(word.lower())
    return any(w == k or covers(k, w) for k in kinds)


def _alike(wanted: str, done: str, want: list[Thing], have: list[Thing]) -> bool:
    """Whether one thing can stand in for the other: water, oil or milk is what things are
    boiled, fried, washed or soaked in, and stands in only for another thing poured ("milk
    instead of water", "vegetable oil instead of butter": the oil of the caption is the
    butter's stand-in); "adds water to a pan" at "Boil the dough" or "adds oil to the pan" at
    "Add the mixed spice" is the pan readied, not a swap, and "adds salt" at "Add the water"
    puts no salt in the water's place."""
    w_medium, d_medium = _is(wanted, _MEDIA), _is(done, _MEDIA)
    if w_medium == d_medium or (_is(wanted, _POURED) and _is(done, _POURED)):
        return True
    other_side = have if w_medium else want
    return any(_is(t.head, _MEDIA) for t in other_side)
