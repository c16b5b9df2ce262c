"""What kind of thing a word names, so that a deviation compares like with like: a tool with a
tool, an ingredient or material with an ingredient or material. Amounts and settings are
parsed as values (`details`); every other word (function words, verbs, places, body parts,
parts of a thing, qualities) is "other" and is never compared.

A word's kind comes from, in order:
1. what it cannot be: a function or stop word, a unit, a setting or temperature word, a verb
   in any form (base, -s, -ed, -ing), or a word of the small "other" lexicon (body parts,
   places, furniture, positions, shapes): OTHER;
2. two small lexicons of common heads, written for any household, workshop or lab task, not
   for one dataset: TOOLS (utensils, cookware, containers, appliances, hand and lab tools) and
   MATERIALS (foods and ingredients, and the stuff a task works on);
3. for a word in neither, its text-encoder cosine to a few prototype phrases of each kind
   (`PROTOTYPES`): a tool or a material only when that kind's best prototype is close enough
   and clearly closer than the others (`PROTOTYPE_MIN_COS`, `PROTOTYPE_MARGIN`, chosen on the
   CaptainCook4D train split); else OTHER. An unknown word is no value, so it is no deviation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from edge_assist.text.stop_words import FUNCTION_WORDS, PARTICLES, PREPOSITIONS, STEP_STOP_WORDS
from edge_assist.text.units import UNIT_NAMES
from edge_assist.text.verb_forms import IRREGULAR_PAST, base_of_third_person, is_verb

TOOL = "tool"
MATERIAL = "ingredient"  # an ingredient or material: what the task is done to or with
OTHER = "other"

Encode = Callable[[Sequence[str]], np.ndarray]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


TOOLS = _words(
    """knife knives fork spoon teaspoon whisk spatula ladle tongs grater zester peeler masher scoop
    skewer toothpick chopsticks scissors shears slicer mandoline spiralizer rolling-pin brush
    pan skillet tawa wok pot saucepan casserole kettle griddle tray sheet rack lid turner flipper
    bowl basin plate dish platter saucer cup mug glass tumbler jar bottle jug pitcher carafe ramekin tin
    container box bag
    carton tub colander sieve strainer funnel board chopping-board dripper filter
    blender mixer processor grinder toaster oven microwave stove hob burner cooker fryer
    thermometer timer foil towel cloth napkin sponge
    screwdriver wrench spanner hammer mallet pliers drill chisel ruler clamp lever pump gauge
    pipette tube flask beaker cylinder vortex centrifuge thermocycler cycler gloves
    syringe needle tweezers forceps
    """
)
MATERIALS = _words(
    """egg eggs salt pepper sugar flour butter oil margarine milk cream yogurt yoghurt cheese cheddar
    mozzarella parmesan feta ricotta water stock broth vinegar wine honey syrup jam jelly sauce
    ketchup mustard mayonnaise mayo salsa pesto soy
    bread baguette muffin bun tortilla pita rice pasta noodle noodles ramen oats
    cereal cracker crackers dough batter
    tomato potato onion shallot scallion garlic ginger carrot celery cucumber lettuce spinach kale
    cabbage broccoli cauliflower zucchini courgette eggplant aubergine mushroom pepper chilli chili
    jalapeno corn pea peas bean beans lentil avocado olive olives herb herbs basil cilantro
    coriander parsley mint dill chive chives thyme rosemary oregano sage
    lemon lime orange apple banana berry berries strawberry blueberry raspberry grape cherry mango
    pineapple peach pear melon coconut raisin nut nuts almond peanut walnut pecan cashew seed seeds
    sesame
    chicken beef pork bacon ham sausage turkey tuna salmon fish shrimp prawn tofu meat meatball
    meatballs
    chocolate cocoa coffee tea vanilla cinnamon cumin paprika turmeric nutmeg cardamom clove cloves
    powder soda yeast starch cornstarch extract frosting sprinkles ice
    glue screw bolt washer dowel dowels nail nails panel shelf tyre tire
    valve spoke cable wire thread primer varnish
    reagent buffer sample primers dna enzyme polymerase master-mix mastermix ethanol solution
    """
)
# Never a tool or a material, whatever the encoder says: body parts, places and furniture,
# positions and parts of a thing, shapes and sizes; and words that name no particular thing but
# any ("the ingredients", "the food", "everything"): a person's own list says "Stir fry the
# ingredients" and then stirs the pasta, which is no other thing than the step's. A kind that
# is also a variety stays a thing ("vegetable oil" is not "olive oil").
OTHER_WORDS = _words(
    """finger fingers fingertip fingertips thumb palm wrist arm arms elbow face eye eyes head hair
    mouth
    kitchen counter countertop table sink fridge freezer cupboard cabinet drawer shelf-top floor
    wall window door hallway room sofa chair bench stool
    top bottom side sides edge edges rim centre center middle corner end ends half halves surface
    inside outside front back base tip-end
    piece pieces slice slices strip strips cube cubes chunk chunks circle circles round rounds
    layer layers bit bits mixture contents content rest remaining amount amounts portion
    colour color size shape texture temperature heat flame smoke steam bubbles
    plus minus total step steps time times way
    ingredient ingredients food foods meal meals stuff item items thing things everything
    something anything groceries component components supplies"""
)
PROTOTYPES: dict[str, tuple[str, ...]] = {
    TOOL: ("a kitchen utensil", "a hand tool", "a cooking pan or pot", "a kitchen appliance", "a container"),
    MATERIAL: (
        "a food ingredient",
        "a vegetable",
        "a spice or seasoning",
        "a dairy product",
        "a building material",
    ),
    OTHER: ("an action", "a place", "a body part", "a position or direction", "a quality or amount"),
}
PROTOTYPE_MIN_COS = {TOOL: 0.45, MATERIAL: 0.40}
PROTOTYPE_MARGIN = 0.08

_SETTING_WORDS = _words(
    "low medium high max full hot cold warm cool boiling lukewarm frozen chilled room temperature"
)
_NOT_THINGS = FUNCTION_WORDS | STEP_STOP_WORDS | PREPOSITIONS | PARTICLES | _SETTING_WORDS | UNIT_NAMES
_PAST = frozenset(IRREGULAR_PAST.values())


def singular(word: str) -> str:
    w = word.lower()
    if w in TOOLS or w in MATERIALS:
        return w
    for suffix, repl in (("ves", "fe"), ("ves", "f"), ("ies", "y"), ("oes", "o"), ("es", ""), ("s", "")):
        if w.endswith(suffix) and (w[: -len(suffix)] + repl) in (TOOLS | MATERIALS):
            return w[: -len(suffix)] + repl
    return w


def is_verb_form(word: str) -> bool:
    """A verb in any of its forms: "pour", "pours", "poured", "pouring" (and irregular pasts)."""
    w = word.lower()
    if is_verb(w) or is_verb(base_of_third_person(w)) or w in _PAST:
        return True
    for stem in (w[:-3], w[:-3] + "e", w[:-4]) if w.endswith("ing") else ():
        if stem and is_verb(stem):
            return True
    if w.endswith("ed"):
        return any(is_verb(s) for s in (w[:-2], w[:-1], w[:-3], w[:-3] + "y"))
    return False


def lexical_kind(word: str) -> str | None:
    """The kind a word has by the lexicons and the word classes; None: unknown (ask the encoder)."""
    w = singular(word)
    if w in TOOLS:
        return TOOL
    if w in MATERIALS:
        return MATERIAL
    if w in _NOT_THINGS or word.lower() in _NOT_THINGS or w in OTHER_WORDS or is_verb_form(word):
        return OTHER
    if len(w) < 3 or not re.fullmatch(r"[a-z][a-z'-]*", w):
        return OTHER
    return None


class WordKinds:
    """Kinds of words, with the encoder's prototypes for the ones the lexicons do not hold."""

    def __init__(self, encode: Encode) -> None:
        self._encode = encode
        self._proto: np.ndarray | None = None
        self._proto_kinds: list[str] = []
        self._memo: dict[str, str] = {}

    def kinds(self, words: Sequence[str]) -> list[str]:
        unknown = [w for w in dict.fromkeys(words) if w not in self._memo and lexical_kind(w) is None]
        if unknown:
            vecs = np.asarray(self._encode(unknown), dtype=np.float32)
            for w, v in zip(unknown, vecs, strict=True):
                self._memo[w] = self._by_prototype(v)
        return [self._memo.get(w) or lexical_kind(w) or OTHER for w in words]

    def kind(self, word: str) -> str:
        return self.kinds([word])[0]

    def _by_prototype(self, vec: np.ndarray) -> str:
        if self._proto is None:
            names = [(k, p) for k, ps in PROTOTYPES.items() for p in ps]
            self._proto = np.asarray(self._encode([p for _, p in names]), dtype=np.float32)
            self._proto_kinds = [k for k, _ in names]
        sims = self._proto @ vec
        best: dict[str, float] = {}
        for k, s in zip(self._proto_kinds, sims, strict=True):
            best[k] = max(best.get(k, -1.0), float(s))
        for k, floor in PROTOTYPE_MIN_COS.items():
            others = max(v for kk, v in best.items() if kk != k)
            if best[k] >= floor and best[k] - others >= PROTOTYPE_MARGIN:
                return k
        return OTHER
