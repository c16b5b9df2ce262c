"""Things and acts told in other words than a question's: butter is no oil, by hand is no knife,
running water over a thing washes it, and a food asked as where a thing went is the vessel the
caption names when its verb is the question's own."""

from __future__ import annotations

import numpy as np

from edge_assist.answers import contradicted, earned_no, meaning
from edge_assist.memory.api import CaptionRecord
from edge_assist.retrieval.api import Moment
from edge_assist.text.kinds_of_things import covers


def _clip(i: int, t0: float, t1: float, text: str) -> CaptionRecord:
    return CaptionRecord("s", i, t0, t1, text)


def test_by_hand_is_no_knife() -> None:
    sliced = "Into two bits with a knife, I'm slicing the english muffin."
    d = contradicted.difference("tear the muffin open with my hands", sliced)
    assert d is not None and (d.kind, d.expected, d.observed) == ("tool", "hand", "knife")
    assert contradicted.difference("cut the muffin with a knife", sliced) is None


def test_butter_greases_but_is_no_oil() -> None:
    assert covers("fat", "butter") and covers("fat", "oil") and covers("oil", "olive")
    assert not covers("oil", "butter")
    butter = "In a non-stick frying skillet on low-medium heat, I'm softening a little knob of butter."
    clips = [_clip(0, 1.0, 30.0, "I'm tipping in one egg to a blender."), _clip(1, 40.0, 80.0, butter)]

    def alone(focus: str) -> tuple[list[str], np.ndarray]:
        words = focus.split()
        return words, np.eye(len(words), 384, dtype=np.float32)

    assert earned_no.unseen("use oil", clips, alone("use oil"), []) == earned_no.Unseen("oil", 0.0)
    ranked = [Moment("s", c.clip_index, c.t0, c.t1, c.text, 0.5) for c in clips]
    # said with the butter that was used instead, not the closest moment of another thing
    assert earned_no.seen_instead("use oil", ranked, "oil") == ranked[1]
    assert meaning.restate("add butter in the pan", butter) is not None  # softened in the pan: it went in


def test_the_same_verb_with_a_food_as_where_the_thing_went_is_the_vessel_s_act() -> None:
    water = "To the dish, I'm adding one tbsp of water."
    assert meaning.restate("add water to the peppers", water) == "add water"
    assert meaning.restate("add the bit of water in with the peppers", water) == "add the bit of water in"
    # a verb that puts on what its "with" names asks about that thing
    assert meaning.restate("top the dish with salsa", water) is None


def test_running_water_over_a_thing_washes_it_and_no_drying() -> None:
    assert meaning.read("wash the tomato", "Now I am running water over a tomato.").restated is not None
    dried = meaning.read("dry the tomato off", "I ran water over a tomato.")
    assert dried.restated is None and dried.other_act


def test_softened_butter_is_no_heating_but_softening_it_in_a_pan_puts_it_in() -> None:
    from edge_assist.answers.quantities import tells_act
    from edge_assist.answers.quantity_question import parse

    q = parse("how many times did I use the microwave?")
    assert q is not None and not tells_act(q, "To the dish, I'm adding half a tbsp softened butter.")
    softened = "In a non-stick frying skillet on low heat, I'm softening a little knob of butter."
    assert meaning.restate("add butter", softened) is not None


def test_the_other_side_or_a_state_undone_is_a_difference() -> None:
    from edge_assist.answers.contradicted import side_difference

    d = side_difference("microwave the mug covered", "nuking the ramekin mug uncovered on full power")
    assert d is not None and (d.kind, d.expected, d.observed) == ("state", "covered", "uncovered")
    d = side_difference("put lettuce on the top half", "with lettuce, covering the bottom bit of the muffin")
    assert d is not None and (d.expected, d.observed) == ("top", "bottom")
    # told as asked, or no side said: no difference
    assert side_difference("microwave the mug uncovered", "nuking the mug uncovered") is None
    assert side_difference("put lettuce on the bottom half", "covering the bottom bit") is None
    assert side_difference("put the top back on", "swapping back the top of the muffin") is None


def test_made_soft_in_a_hot_pan_is_melted_but_softened_on_the_counter_is_not() -> None:
    in_pan = "In a non-stick frying skillet on top of low-medium heat, I'm softening a little knob of butter."
    assert meaning.read("melt the butter", in_pan).restated == "softening the butter"
    on_counter = meaning.read("melt the butter", "I'm softening the butter on the counter.")
    assert on_counter.restated is None and on_counter.other_act


def test_a_thing_done_is_not_one_only_where_another_thing_went() -> None:
    on_it = meaning.read("do the lettuce", "I put the egg from the mug on top of the lettuce.")
    assert on_it.as_place
    assert not meaning.read("do the lettuce", "I lined the muffin with lettuce.").as_place


def test_a_thing_thrown_in_casually_is_put_in_not_blended() -> None:
    # the caption tells it going in; "in the blender" asks no blending here
    added = "The person adds onions to blender, then peels outer skin of tomato."
    assert meaning.read("throw the onions in the blender", added).restated is not None
    assert meaning.read("throw the peppers in the blender", added).restated is None


def test_a_thing_put_into_the_pan_on_the_hob_is_being_cooked() -> None:
    added = "The person adds onions to the oil in the pan, then activates range hood."
    assert meaning.read("cook the onions", added).restated is not None
    assert meaning.read("fry the onions", added).restated is not None
    # the pan names no cooking of what was not put in it, and an oven is no hob
    assert meaning.read("cook the mushrooms", added).restated is None
    assert meaning.read("bake the onions", added).restated is None


def test_the_stuff_put_away_is_whatever_food_the_caption_names() -> None:
    put_away = "The person refrigerates ingredients."
    assert meaning.read("put the stuff in the fridge", put_away).restated is not None
    no_food = "The person refrigerates the dish rack."
    assert meaning.read("put the stuff in the fridge", no_food).restated is None


def test_doughs_are_kneaded_flattened_and_shaped_as_three_acts() -> None:
    molded = "The person molds dough with oil."
    assert meaning.read("flatten the dough", molded).restated is None
    assert meaning.read("shape the dough", molded).restated is not None


def test_a_thing_put_in_a_heating_appliance_is_heated_as_that_appliance_heats() -> None:
    zapped = "The person places flour tortilla in the micro wave."
    for asked in (
        "warm up the tortillas",
        "heat the tortilla",
        "microwave the tortilla",
        "zap the tortillas",
    ):
        assert meaning.read(asked, zapped).restated is not None, asked
    assert meaning.read("bake the tortilla", zapped).other_act  # a microwave does not bake
    baked = "The person puts the bread in the oven."
    assert meaning.read("bake the bread", baked).restated is not None
    assert meaning.read("toast the bread", baked).other_act
    # a dish safe for the microwave is no microwave
    set_in = "In the microwave-safe dish, I'm setting the diced pepper."
    assert meaning.read("microwave the peppers", set_in).restated is None


def test_an_act_is_read_in_the_clause_that_names_its_thing() -> None:
    # the cooking is the cheese's; the tortilla only had cheese spread in it
    assert meaning.read(
        "warm up the tortillas", "The person cooks cheese, then spreads cheese in tortilla."
    ).other_act
    # "it" takes the thing up in the next clause
    cracked = meaning.read("crack the egg", "The person takes the egg, then cracks it into the bowl.")
    assert not cracked.other_act
    # the clause naming the thing tells no verb: nothing is read into it, and nothing breaks
    shorthand = "The person stirs the soup, then a pinch of salt into the pan."
    assert meaning.read("add salt to the pan", shorthand).restated is None


def test_a_run_of_an_act_is_told_by_the_act_not_by_its_words() -> None:
    # "cut out doughs" names cutting, but the clip tells thinning them out
    assert not meaning.tells_asked_act("cut the dough up", "The person thins out cut out doughs.")
    assert meaning.tells_asked_act("cut the dough up", "The person cuts dough into smaller pieces.")
    # put into the pan on the hob, the potatoes are being cooked
    assert meaning.tells_asked_act("cook the potatoes", "The person adds diced potato to pan.")


def test_an_act_alone_names_no_thing_and_is_not_only_timed() -> None:
    assert meaning.act_alone("kneading") and meaning.act_alone("wash my hands")
    # "have I eaten yet?": the bare act, which a whole family of verbs tells; "flip them": a thing said before
    assert not meaning.act_alone("eat yet") and not meaning.act_alone("flip them")
