"""A question read by the things it names and its act (answers/anchored.py): the asker's own
wording around them left out, and never an anchor in a caption that names another thing or tells
another act. The rule on its own, then through the answer gate's backing with the real MiniLM."""

from __future__ import annotations

from edge_assist.answers import anchored, backing, support
from edge_assist.inference.base import TextEncoder
from edge_assist.retrieval.api import Moment

VANILLA = "I tossed in one tsp vanilla extract to the cup."
CINNAMON = "On top of the egg, I'm sprinkling a quarter tsp cinnamon."
BUTTER = "In a big dish, now I am liquefying one tbsp of softened butter in the microwave."
BANANA = "To a blender, I'm tossing in one banana."
SALT = "With salt, I'm spicing pan."


def test_the_things_asked_are_said_as_the_caption_says_them_and_the_rest_left_out() -> None:
    assert anchored.anchor("vanilla, how much", VANILLA, act_needed=False) == "vanilla"
    marinara = "I got one tbsp of marinara sauce."
    assert anchored.anchor("the red sauce: how much", marinara, act_needed=False) == "marinara"
    # a verb the act families know is said as the caption's verb for the same act
    assert anchored.anchor("melt the butter first thing", BUTTER) == "liquefying butter"
    pulsed = "For twenty secs, I'm pulsing the blender."
    assert anchored.anchor("blender - how long blitz it", pulsed, act_needed=False) == "blender pulsing"
    assert anchored.anchor("add the yellow fruit in the blender", BANANA) == "tossing banana blender"
    assert anchored.asks_time_or_amount("cheddar: how much?") and anchored.asks_time_or_amount("salt - when?")
    assert not anchored.asks_time_or_amount("what colour was the platter?")


def test_no_anchor_in_a_caption_of_another_thing_or_another_act() -> None:
    assert anchored.anchor("add cumin", SALT) is None
    assert anchored.anchor("how much cumin", SALT, act_needed=False) is None
    assert anchored.anchor("put any cheddar on it", "I'm scattering one tbsp of mozzarella cheese.") is None
    assert anchored.anchor("peel the garlic", "Chop 1 garlic clove", act_needed=False) is None
    # beyond a when or a how much, the act is asked: a verb no family knows, or none, tells nothing
    towel = "Immediately, I patted rinsed mushrooms dry with a cloth towel."
    assert anchored.anchor("paper towel for drying the mushrooms", towel) is None
    garnished = "With italian seasoning, I'm garnishing platter."
    assert anchored.anchor("colour was the platter", garnished) is None
    butter = "Now I am liquefying a little knob of butter in a non-stick frying skillet"
    assert anchored.anchor("pan greased with oil", butter) is None
    # a verb the families know must be told, even beside a caption verb they do not know
    handled = "With milk, I'm handling the cup."
    assert anchored.anchor("mix the contents of the mug", handled, act_needed=False) is None
    assert anchored.anchor("once the water has boiled, check the water", "I'm boiling the water.") is None
    # a describing word the caption does not say is another thing ("hot sauce" is not mayonnaise)
    assert anchored.anchor("add any hot sauce", "I tipped in a quarter mug mayonnaise to the dish.") is None
    assert anchored.anchor("add any hot sauce", "To the basin, I am putting in one teaspoon sriracha sauce.")
    assert anchored.anchor("use a non-stick pan", "I'm pouring three puddles into the steel skillet.") is None
    # a thing the question names that the caption does not (the pan) leaves no anchor
    fried = "Till mushrooms start to soften and brown, I'm frying for six mins."
    assert anchored.anchor("mushrooms in the pan, how long", fried, act_needed=False) is None
    # a noun that is also a verb is no act: "on top of the egg"
    cheese = "On top of the egg, I'm sprinkling cheese."
    assert anchored.anchor("the cheese on top of the egg, when", cheese, act_needed=False) == "cheese egg"


def test_wording_the_encoder_reads_as_no_thing_is_left_out_but_not_in_a_yes_no_question(
    text_encoder: TextEncoder,
) -> None:
    kind_of = anchored.word_kinds(text_encoder).kind
    said = "can't recall when the salt went on"
    assert anchored.anchor(said, SALT, act_needed=False, kind_of=kind_of) == "salt"
    # without the encoder, an unknown word may be a thing
    assert anchored.anchor(said, SALT, act_needed=False) is None
    assert anchored.anchor("recall the salt", SALT, kind_of=kind_of) is None


def _moments(encoder: TextEncoder, focus: str, captions: list[str]) -> list[Moment]:
    q = encoder.encode([focus])[0]
    vecs = encoder.encode(captions)
    scored = zip(captions, vecs, strict=True)
    return [Moment("s", i, 10.0 * i, 10.0 * i + 5, c, float(q @ v)) for i, (c, v) in enumerate(scored)]


def test_the_anchor_lifts_the_moment_that_names_the_thing_above_the_threshold_and_no_other(
    text_encoder: TextEncoder,
) -> None:
    gate = support.load_gate("")
    for focus in ("vanilla, how much", "can't recall when the vanilla went in"):
        found = _moments(text_encoder, focus, [VANILLA, CINNAMON])
        b = backing.backing(gate, text_encoder, focus, found, act_needed=False)
        assert b[found[0]] >= gate.threshold > b[found[1]], (focus, b)
    found = _moments(text_encoder, "melt the butter first thing", [BUTTER, CINNAMON])
    b = backing.backing(gate, text_encoder, "melt the butter first thing", found)
    assert b[found[0]] >= gate.threshold > b[found[1]]
    # an order's acts are read as asked: no anchor
    found = _moments(text_encoder, "vanilla, how much", [VANILLA, CINNAMON])
    b = backing.backing(gate, text_encoder, "vanilla, how much", found, act_needed=None)
    assert b[found[0]] < gate.threshold
    # nothing the question names is in memory: nothing is lifted
    found = _moments(text_encoder, "cumin, how much", [VANILLA, CINNAMON, SALT])
    b = backing.backing(gate, text_encoder, "cumin, how much", found, act_needed=False)
    assert max(b.values()) < gate.threshold
