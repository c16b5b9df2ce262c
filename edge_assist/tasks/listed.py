"""A task given as a plain list of steps: its order is a default, not a law.

A list says in which order someone wrote the steps, not which must come first. Two listed
steps that share nothing may be done in either order; a swap of them is no skip and no
order error. Where a later step shares a thing with an earlier one, the listed order holds
between them as if written in `after` ("Fill the kettle with water" before "Boil the water":
both name the water; "Put a tea bag in the mug" before "Remove the tea bag").

"Share" is read from the step texts, without a model, the same for every task:

- a step's things are the noun phrases it names, without the verbs that begin its clauses
  ("Boil the water" -> water; "Measure and add the flour" -> flour; "to create a pinwheel"
  -> pinwheel), singular, and without grammar words, amounts ("2 tbsp", "a pinch") and words
  of size or state ("1/4 medium onion into pieces" -> onion; "the new tube" is "the old
  tube"): what it works on, with and for (tools too: "Clean the knife" and "Use the knife to
  scoop jelly" share the knife). A bracketed aside names nothing of its step;
- a phrase is its last word (the head) with the words before it: "baking powder" and "cumin
  powder" are two things, "black pepper" and "bell pepper", "side panel" and "top panel"
  too, while "pepper" alone may be either; "garlic" is the garlic of "garlic cloves";
- how a thing was made ("minced garlic", "the peeled cloves", "whisked eggs") qualifies it
  but never tells two things apart, and is no thing alone;
- vessels and work surfaces (bowl, mug, pan, tray, tube, platter, blender, ...) are no thing
  shared. Steps that put something into one (add, pour, sprinkle; or a step with no verb,
  "1/2 tsp salt to the bowl") may come in any order among themselves; a step that works on
  what it holds (whisk, heat, microwave, spin; "Whisk the mixture", "Cook, mixing
  everything", "Remove from heat": the vessel last in use) comes after everything put in
  before it, and what is put in after comes after it. Adding flour and adding sugar to the
  bowl may be swapped; whisking before the sugar is in may not. A step that works on a thing
  put into a vessel works on what the vessel holds ("Add the onions to the pan", "Saute the
  onions": after the salt put in before, and before the garlic put in after). A step that
  readies a vessel itself ("Label the tubes", "Line the mug") comes before what is put in
  after it, and after nothing (an empty vessel, maybe another of the same name); what a
  vessel yields ("the mixture", "the supernatant") is taken from the one in use;
- a thing something is put into, onto or joined to is, for those steps, as a vessel ("Tap
  the dowels into the side panels", "Screw the bolts into the side panels"; "Season the
  tomato slices with salt", "Sprinkle the cheese on the tomato"; "Attach the backrest to the
  seat"): they may come in any order, after the step that made it ready, and a step that then
  works on it is after them all;
- cookware heated on a hob (pan, skillet, wok, pot: "Heat the oil in the pan", "Melt the
  butter in the pan") does not wait once hot: heating it comes after the earlier steps that
  make ready what goes into it later ("Mince the garlic", then "Add the garlic to the pan";
  "Whisk the eggs in the bowl", then "Pour the eggs into the pan"), but not after a step
  that cooks (the lentils may simmer in their pot while the pan heats). A step that names no
  vessel is read as into the one in use for this, and as put in before the next step that
  works on that vessel ("Season with salt", then "Cook for 2 minutes or until done": what a
  step waits for, after "until", is not what it works on). An oven or a water bath is left
  out: people start those first, whatever order the list has. A "skillet" is "the pan" a
  step later;
- an oven, a microwave, a rack, a sink, a hob, a board or a counter holds things side by side,
  not mixed: a step there that names its thing is ordered by that thing alone ("Remove the
  bread from the oven" and "Bake the pastries in the oven" share only the oven);
- a product renamed ("Whisk the eggs", then "Pour the custard") is not linked, so its order
  is not enforced: a miss, never a false alarm.

Each step is after the latest earlier step that names each of its things, and after the
steps a vessel orders it after; the order of the rest is free. A step begun without one it
is after reports the earlier one as skipped ("Did you skip ...?", while it can still be
done); the earlier one done after all, after it, is an order error, as in a graph: the two
work on the same thing, so the list's order between them is what its writer meant. A TOML
task's `after` is the way to state a hard order the words do not show (preparing what goes
into the oven before preheating it, say).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from edge_assist.tasks.model import Task, make_step
from edge_assist.tasks.step_phrases import (
    ANY_THING,
    CLAUSE_BREAK,
    GENERIC,
    TOKEN,
    UNMIXED,
    Thing,
    noun_phrases,
    singular,
)
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.stop_words import STEP_STOP_WORDS
from edge_assist.text.units import UNIT_NAMES
from edge_assist.text.verb_forms import is_verb

# Verbs that put a thing somewhere: such steps into one vessel may come in any order.
_PUTTING = frozenset(
    """add put place pour crack sprinkle drop measure transfer spoon scoop season top layer spread
    arrange insert load pipette dispense fill squeeze drizzle grate break mince chop garnish dress
    dust""".split()
)
# Putting verbs that ready a thing where it is rather than add it to what a vessel holds.
_READYING = frozenset("chop mince grate break measure crack fill load".split())
# Setting up a tool or an appliance ("Turn on the heat") works on no vessel's contents.
_SETUP = frozenset("turn switch preheat plug set wait".split())
# What a vessel holds once things are in it.
_PRODUCTS = frozenset(
    "mixture batter dough contents everything ingredients supernatant lysate filtrate".split()
)
# A step may open with where or when it happens ("In a bowl, add ...", "Once the pan is hot,
# add ..."): its verb is after the comma.
_OPENERS = frozenset("in into on onto once when while after before if as using with at".split())
# Where a thing goes: after these whatever the verb ("Tap the dowels into the panels"); after
# these when the step puts ("Sprinkle the cheese over the tomato").
_INTO = frozenset("into onto".split())
_TO = frozenset("in on over to inside".split())
# "Season the slices with salt": the slices are where the salt goes.
_COATING = frozenset("season top garnish dress coat sprinkle drizzle brush dust spread rub".split())
# "Attach the backrest to the seat", "Screw the armrests onto the seat": the seat is where they go.
_JOINING = frozenset("attach fix fasten mount connect bolt screw glue nail clip tape tie".split())
# Heating cookware on a hob: what goes into it once it is hot must be ready by then.
_HEATING = frozenset("heat warm melt".split())
HOT_VESSELS = frozenset("pan pot".split())
# Steps that cook a thing: they may go on while the pan heats.
_COOKING = frozenset(
    """cook boil simmer bake roast fry saute steam pressure microwave heat warm melt toast grill
    soak marinate""".split()
)
# Verbs that work on a vessel itself, not on what it holds ("Label the tubes", "Line the mug").
_ON_VESSEL = frozenset("label clean wash wipe dry line grease mark".split())
# A recipe's "skillet" is "the pan" a step later.
_SAME_VESSEL = {"skillet": "pan", "wok": "pan", "griddle": "pan", "saucepan": "pot"}
# A vessel named as one not yet in use: "a pan", "another bowl", "a clean pot".
_INDEFINITE = re.compile(
    r"\b(?:a|an|another|a\s+(?:new|clean|second|fresh|separate|large|small|big))\s+([a-z]+)\b"
)
# What a step names after these is what it waits for ("Cook until the sauce thickens"), not
# what it works on.
_CONDITION = re.compile(r"\b(?:until|till|unless)\b")


def _verb(words: Sequence[str]) -> str:
    """The word that says what a step does (see `_OPENERS`)."""
    if words and words[0] in _OPENERS and "," in words:
        words = words[words.index(",") + 1 :]
    lead = [w for w in words if w not in STEP_STOP_WORDS or w in _PUTTING]
    return lead[0] if lead else ""


def destinations(text: str) -> frozenset[str]:
    """The heads of the things a step puts something into or onto ("Spread jelly over the nut
    butter" -> butter): steps that put onto one thing may come in any order among themselves,
    like steps that put into one vessel."""
    words = TOKEN.findall(text.lower())
    verb = _verb(words)
    putting = verb in _PUTTING | _COATING | _JOINING
    out: set[str] = set()
    for k, w in enumerate(words):
        # ("to create a pinwheel" says what for, not where.)
        if (w in _INTO or (putting and w in _TO)) and not (
            w == "to" and is_verb(words[min(k + 1, len(words) - 1)])
        ):
            rest = list(
                itertools.takewhile(lambda x: x[:1].isalpha() and x not in CLAUSE_BREAK, words[k + 1 :])
            )
            where = noun_phrases(" ".join(["put", *rest]))
            out.update(p.head for p in where[:1])
    if verb in _COATING and "with" in words:
        at = words.index(verb) if verb in words else 0
        what = noun_phrases(" ".join(["put", *words[at + 1 : words.index("with")]]))
        out.update(p.head for p in what[:1])
    return frozenset(out)


@dataclass(frozen=True)
class _Use:
    """How a step uses a vessel: puts something in (any order among such), or works on what
    it holds (after everything put in before, and before anything put in after). A use
    `guessed` (a step naming no vessel, read as into the vessel in use) orders nothing by
    itself: only what goes into hot cookware (`_heat_order`)."""

    vessel: str
    works: bool
    guessed: bool = False
    readies: bool = False  # readies the vessel itself ("Label the tubes"): before what goes in after
    adds: bool = False  # a guessed use that adds a thing ("Season with salt"), not readies it ("Chop")


def _uses(text: str, phrases: tuple[Thing, ...], current: str, held: dict[str, str]) -> list[_Use]:
    words = TOKEN.findall(text.lower())
    first = _verb(words)
    # "1/2 tsp salt to the bowl", "A pinch of salt ...", "Pepper on the pan": no verb, a thing put in.
    works = (
        first[:1].isalpha()
        and first not in _PUTTING | UNIT_NAMES | GENERIC
        and lexical_kind(first) != MATERIAL
    )
    vessels = list(dict.fromkeys(_SAME_VESSEL.get(p.head, p.head) for p in phrases if p.vessel))
    if vessels:
        # "Heat a pan" after "Turn the sausages over in the pan": "a pan" is one not yet in use,
        # maybe another of that name, so it readies one rather than works on what one holds.
        fresh = {_SAME_VESSEL.get(v, v) for v in _INDEFINITE.findall(text.lower())}
        return [_Use(v, works, readies=first in _ON_VESSEL or v in fresh) for v in vessels]
    named = [p for p in noun_phrases(_CONDITION.split(text.lower())[0]) if not p.vessel]
    said = {singular(w) for w in words}
    # "Whisk the batter", "Cook, mixing everything", "Remove from the heat": what the vessel in
    # use holds. ("Add the noodles" may go anywhere: read as into the vessel in use, it orders
    # swaps people make freely, 0.3 more false alarms/h on train for 0.4 F1.)
    if current and (said & _PRODUCTS or (not named and first not in _SETUP)):
        return [_Use(current, works)]
    # "Saute the onions" after "Add the onions to the pan": works on what the pan holds.
    inside = {held[p.head] for p in named if p.head in held}
    if works and len(inside) == 1:
        return [_Use(inside.pop(), True)]
    return [_Use(current, works, guessed=True, adds=_adds(words))] if current and named else []


def _adds(words: Sequence[str]) -> bool:
    """A step that adds a thing ("Add the noodles", "Season with salt", "1/2 cup parmesan",
    "Pepper to taste"), not one that readies it ("Chop 1 tomato", "Take a tomato")."""
    if words and words[0] in _OPENERS and "," in words:
        words = words[words.index(",") + 1 :]
    w = words[0] if words else ""
    return w in _PUTTING - _READYING or w[:1].isdigit() or lexical_kind(w) == MATERIAL


def _vessel_uses(texts: Sequence[str], named: list[tuple[Thing, ...]]) -> list[list[_Use]]:
    out: list[list[_Use]] = []
    held: dict[str, str] = {}  # thing -> the vessel it was last put into
    current = ""
    for j, text in enumerate(texts):
        uses = _uses(text, named[j], current, held)
        for u in uses:
            if not u.works and not u.guessed:
                held.update((p.head, u.vessel) for p in named[j] if not p.vessel)
            current = u.vessel
        out.append(uses)
    return out


def _item(p: Thing) -> bool:
    """A thing of its own a step names: not a vessel, a tool ("with a spoon") or any thing."""
    anything = p.head in ANY_THING or p.head in GENERIC or p.head + "s" in GENERIC  # "the contents"
    return not p.vessel and not anything and lexical_kind(p.head) != TOOL


def _vessel_order(uses: list[list[_Use]], named: list[tuple[Thing, ...]]) -> list[set[int]]:
    """For each step, the earlier steps it must follow through a vessel they share (above)."""
    after: list[set[int]] = [set() for _ in uses]
    put: dict[str, list[int]] = {}  # vessel -> steps that put into it since it was last worked on
    worked: dict[str, int] = {}  # vessel -> the last step that worked on what it holds
    for j, us in enumerate(uses):
        if any(_item(p) for p in named[j]):
            us = [u for u in us if u.vessel not in UNMIXED]  # each its own thing there
        # "Season with salt", then "Cook for 2 minutes": what went into the vessel in use is
        # cooked by the next step that works on it (though it may go in before or after others).
        for u in (u for u in us if u.guessed and u.adds and not u.works):
            put.setdefault(u.vessel, []).append(j)
        for u in (u for u in us if not u.guessed):
            # A vessel readied is an empty one, maybe another of the same name: after nothing.
            after[j].update([worked[u.vessel]] if u.vessel in worked and not u.readies else [])
            if u.readies:
                worked[u.vessel] = j
            elif u.works:
                after[j].update(put.pop(u.vessel, []))
                worked[u.vessel] = j
            else:
                put.setdefault(u.vessel, []).append(j)
    return after


def _latest(named: list[tuple[Thing, ...]], p: Thing, before: int) -> int | None:
    return next(
        (i for i in range(before - 1, -1, -1) if any(p.same(q) for q in named[i] if not q.vessel)), None
    )


def _ready_from(i: int, heated: int, vessel: str, uses: list[list[_Use]], verb: str) -> int | None:
    """The step before `heated` that made ready what step `i` names: `i` itself, or, when `i`
    put it into another vessel, the last step before `heated` that worked on that vessel (the
    whisked eggs); None when it went into the hot vessel already or into a vessel never worked,
    or when it cooks (a pot of lentils may simmer while the pan heats)."""
    if verb in _COOKING:
        return None
    into = [u.vessel for u in uses[i] if not u.works and not u.guessed]
    if not into:
        return i
    if vessel in into:
        return None
    works = [k for k in range(i + 1, heated) if any(u.works and u.vessel in into for u in uses[k])]
    return works[-1] if works else None


def _heat_order(named: list[tuple[Thing, ...]], uses: list[list[_Use]], verbs: list[str]) -> list[set[int]]:
    """Heating cookware ("Heat the oil in the pan") comes after the earlier steps that make
    ready what goes into it later ("Mince the garlic", then "Add the garlic"): once it is hot,
    what it cooks will not wait."""
    after: list[set[int]] = [set() for _ in named]
    hot = [[u for u in us if u.vessel in HOT_VESSELS and verbs[s] in _HEATING] for s, us in enumerate(uses)]
    for s in range(len(named)):
        for vessel in {u.vessel for u in hot[s]}:
            for t in range(s + 1, len(named)):
                if any(u.vessel == vessel and not u.guessed for u in hot[t]):
                    break  # heated again ("Heat the pan" once more): what goes in after waits for that
                if not any(u.vessel == vessel for u in uses[t]):
                    continue
                for p in (p for p in named[t] if not p.vessel):
                    i = _latest(named, p, s)
                    ready = _ready_from(i, s, vessel, uses, verbs[i]) if i is not None else None
                    after[s].update([ready] if ready is not None else [])
    return after


def _thing_order(named: list[tuple[Thing, ...]], into: list[frozenset[str]]) -> list[set[int]]:
    """Each step after the latest earlier one that names each of its things; a step that puts
    onto a thing is not after another that put onto it too (either may come first), and a step
    that works on the thing is after all of those."""
    after: list[set[int]] = [set() for _ in named]
    for j, phrases in enumerate(named):
        for p in (p for p in phrases if not p.vessel):
            onto = p.head in into[j]
            for i in range(j - 1, -1, -1):
                hits = [q for q in named[i] if not q.vessel and p.same(q)]
                if not hits:
                    continue
                if all(q.head in into[i] for q in hits):
                    after[j].update([] if onto else [i])
                    continue
                after[j].add(i)
                break
    return after


def list_task(
    name: str, title: str, texts: Sequence[str], *, source: str = "", kind: str = "procedure", where: str = ""
) -> Task:
    """A task from listed step texts (ids "1", "2", ...), ordered only where steps share a thing."""
    named = [noun_phrases(t) for t in texts]
    uses = _vessel_uses(texts, named)
    verbs = [_verb(TOKEN.findall(t.lower())) for t in texts]
    orders = [
        _vessel_order(uses, named),
        _thing_order(named, [destinations(t) for t in texts]),
        _heat_order(named, uses, verbs),
    ]
    steps = []
    for j, text in enumerate(texts):
        after = {i + 1 for o in orders for i in o[j]}
        steps.append(make_step(str(j + 1), text, [str(i) for i in sorted(after)]))
    return Task.build(name, title, steps, source=source, kind=kind, where=where, listed=True)
