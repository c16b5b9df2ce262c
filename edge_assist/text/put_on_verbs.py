"""Verbs whose words say more than their act: a phrasal verb that tells another act ("turn over"
flips), a verb that names what it puts on ("salt it"), and verbs that say what is put on a thing
either way round ("top the cup with salsa" puts salsa on the cup)."""

from __future__ import annotations

PHRASAL = {
    ("get", "rid"): "rid",
    ("turn", "over"): "flip",
    ("go", "in"): "add",
    ("go", "into"): "add",
    # "tossed in the pepper" adds it; "tossed the salad" mixes it
    ("toss", "in"): "add",
    ("toss", "into"): "add",
    ("throw", "in"): "add",
    # "chuck out the peel", "threw the shells away": the thing goes in the bin
    **{(verb, part): "discard" for verb in ("throw", "chuck", "toss", "bung") for part in ("out", "away")},
    # "tip it all out onto the plate", "turn the cake out": put where it is served
    ("tip", "out"): "put",
    ("turn", "out"): "put",
    # "top up the piping bag" fills it again; "top" alone puts a thing on top
    ("top", "up"): "refill",
    # "running water over a tomato", "ran it under the tap": washing it
    ("run", "water"): "rinse",
    ("run", "under"): "rinse",
}
# Phrasal verbs that take a thing away from where it was: "take the stalks off", "drew out the
# stems", "pull the tray out" all remove it, while the verb alone ("take", "draw") tells another
# act too. A caption's such verb tells both acts; a question's asks about removing.
REMOVES = frozenset(
    (verb, particle)
    for verbs, particle in (
        ("take pull draw pick snap twist break tear peel strip cut pour scoop scrape wipe rinse", "off"),
        ("take pull draw pick scoop cut squeeze strain", "out"),
    )
    for verb in verbs.split()
)
# Verbs that name the thing they put on ("did I sweeten it?" asks whether a sweetener went in):
# when the question names no other thing, it asks about adding that one.
PUTS_ON = {
    "sweeten": "sweetener",
    "salt": "salt",
    "pepper": "pepper",
    "butter": "butter",
    "oil": "oil",
    "grease": "fat",
    "season": "seasoning",
    "sugar": "sugar",
    "spice": "spice",
    "flour": "flour",
}
# Verbs that say what is put on a thing either way round ("top the cup with salsa" is "put salsa
# on the cup"): with a "with" phrase, the question asks about adding what that phrase names.
PUT_ON_WITH = frozenset(
    "fill cover coat top garnish sprinkle smear spread stuff line drizzle brush dust rub spray "
    "dress glaze baste".split()
) | frozenset(PUTS_ON)
