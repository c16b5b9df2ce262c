"""The things a step of a task names, read from its text without a model: noun phrases, their
heads and the words that tell them apart, and which of them are vessels (`listed.py` orders a
plain list of steps by them; its doc says how they are read).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.stop_words import STEP_STOP_WORDS
from edge_assist.text.units import UNIT_NAMES
from edge_assist.text.verb_forms import is_verb

# Things every step of a kind names without depending on another: where things go, and
# words of shape, amount, state or extent. A shared one of these orders nothing.
VESSELS = frozenset(
    """bowl bowls mug mugs cup cups glass jar jars pan pans pot pots skillet saucepan wok tray
    baking sheet plate plates dish dishes board container lid ramekin tube tubes rack counter
    surface table workbench bench oven microwave stove hob sink tap platter blender processor
    jug beaker flask bottle basin bucket""".split()
)
# Vessels that hold things side by side, not mixed, and are not named loosely for a container:
# an oven, a rack, a counter.
UNMIXED = frozenset("oven microwave rack counter surface table workbench bench sink stove hob board".split())
GENERIC = frozenset(
    """mixture contents ingredients everything rest remaining end ends edge edges top bottom underside
    middle center centre inch inches layer layers amount until together about each every between
    enough almost apart halfway direction opposite length shape thick thin tight loose high low
    covered uncovered small large big fresh hot cold warm cool lukewarm frozen chilled medium
    heat power flame piece pieces strip strips slice slices cube cubes chunk chunks round rounds
    half halves quarter quarters wedge wedges bit bits side sides whole heaped level
    minute minutes second seconds hour hours old new spare used back pinch dash splash handful
    spoonful spoonfuls drop drops""".split()
)
_PLACES = frozenset("top bottom underside side back end edge middle center centre".split())
# A clause begins after these; a verb there is what the step does, not a thing.
CLAUSE_BREAK = frozenset("and then or to if while until by".split())
# Words of place between two things ("the air out of the tube through the valve").
_BETWEEN = frozenset(
    """through throughout inside outside around against without across along behind beside near
    toward towards""".split()
)
# A bracketed aside ("Boil the water (while it boils, set out the filter)") says what may go on
# meanwhile, not what the step works on.
_ASIDE = re.compile(r"\([^)]*\)?")
TOKEN = re.compile(r"[a-z](?:[a-z'-]*[a-z])?|[0-9][0-9./-]*|[.,;:()!?/]")


# Plurals in "-ies" of a singular in "-ie", not "-y": "veggies" is a veggie, not a "veggy".
_IE_PLURALS = frozenset(
    "veggies cookies brownies smoothies movies goodies beanies hoodies wellies calories selfies".split()
)


def singular(word: str) -> str:
    if word in _IE_PLURALS:
        return word[:-1]
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "oes")):
        return word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Thing:
    """A noun phrase: its head, the words that tell it from another of that head ("baking"
    powder, "black" pepper), and the words that say how it was made ("minced")."""

    head: str
    kind: frozenset[str] = frozenset()
    made: frozenset[str] = frozenset()

    @property
    def vessel(self) -> bool:
        return self.head in VESSELS

    def same(self, other: Thing) -> bool:
        if self.head == other.head:
            # "baking powder" is no "cumin powder"; "pepper" may be either.
            return not self.kind or not other.kind or bool(self.kind <= other.kind or other.kind <= self.kind)
        # "garlic" is the garlic of "garlic cloves".
        return (not self.kind and self.head in other.kind) or (not other.kind and other.head in self.kind)


def _made(w: str) -> bool:
    """A word of doing or of how a thing was made: "boiling", "minced", "peeled"."""
    return len(w) > 4 and (w.endswith("ing") or (w.endswith("ed") and not w.endswith("eed")))


def _manner(w: str) -> bool:
    """A word of manner ("roughly", "evenly"), not a thing ending so ("jelly")."""
    return len(w) > 4 and w.endswith("ly") and lexical_kind(w) not in (MATERIAL, TOOL)


def _phrase(run: list[str]) -> Thing | None:
    run = [w for w in run if not _manner(w)]
    # The head is the last word that can be one ("the tortilla roll's top" -> roll).
    at = next((i for i in range(len(run) - 1, -1, -1) if run[i] not in GENERIC), -1)
    if at < 0 or _made(run[at]):
        return None
    # Words of size and state tell nothing apart ("medium onion"); of place they do ("top panel").
    mods = [w for w in run[:at] if w not in GENERIC or w in _PLACES]
    kind = frozenset(w for w in mods if not (w.endswith("ed") and _made(w)))
    return Thing(run[at], kind, frozenset(mods) - kind)


def _flush(run: list[str], out: list[Thing]) -> None:
    p = _phrase(run)
    if p is not None and p not in out:
        out.append(p)


def noun_phrases(text: str) -> tuple[Thing, ...]:
    """The things a step names (see the module's doc)."""
    out: list[Thing] = []
    run: list[str] = []
    clause_start = True
    amount = False  # after a number: "2 tbsp", "1 heaped spoonful" are amounts, "the pinwheels" a thing
    prev = ""
    for n, tok in enumerate(TOKEN.findall(_ASIDE.sub(" , ", text.lower()))):
        w = singular(re.sub(r"'s?$", "", tok.strip("-'")))
        brk = not w[:1].isalpha() or w in CLAUSE_BREAK or tok in CLAUSE_BREAK
        # The first word is the step's verb, listed or not ("Saute the onions"), and so is the
        # word after "to" ("to create one more").
        verb = n == 0 or (clause_start and is_verb(w)) or (prev == "to" and w not in STEP_STOP_WORDS)
        unit = w in UNIT_NAMES and amount
        amount = not w[:1].isalpha() or (amount and (unit or w in GENERIC))
        prev = tok
        if brk or verb or unit or len(w) <= 2 or w in STEP_STOP_WORDS or w in _BETWEEN:
            if not unit:
                _flush(run, out)
                run = []
            # A clause has one verb; grammar words before it ("then carefully remove") keep it due.
            clause_start = brk or (clause_start and not verb and w in STEP_STOP_WORDS)
            continue
        clause_start = False
        run.append(w)
    _flush(run, out)
    return tuple(out)


def things(text: str) -> frozenset[str]:
    """The heads of the things a step names, vessels aside."""
    return frozenset(p.head for p in noun_phrases(text) if not p.vessel)


# Words that name no particular thing but any: "arranges ingredient on counter-top" names nothing
# of "Prepare the diced ingredients in a bowl".
ANY_THING = frozenset("ingredient food meal stuff item thing everything something anything component".split())


def names_a_thing_of(step_text: str, caption: str) -> bool:
    """Whether `caption` names a thing the step names (its head, or a word that tells it apart:
    "the garlic" for "garlic cloves"), or a container for the step's ("zapping the dish" for
    "Microwave the plate": captioners name containers loosely, though a counter or a rack is no
    bowl); True for a step that names none. A caption that names none of them ("dries the
    chopping board" for "Chop the potatoes") is like the step in its words only."""
    named = noun_phrases(step_text)
    words = {singular(w) for w in TOKEN.findall(caption.lower())} - ANY_THING
    vessel = any(p.vessel for p in named) and bool(words & (VESSELS - UNMIXED))
    return not named or vessel or any(p.head in words or p.kind & words for p in named)
