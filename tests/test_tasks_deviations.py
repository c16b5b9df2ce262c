"""Deviations compare like with like: a tool with a tool, an ingredient with an ingredient, an
amount with an amount; a word that is no value is no deviation. Real text encoder."""

from __future__ import annotations

import pytest

from edge_assist.inference.base import TextEncoder
from edge_assist.tasks import findings as F
from edge_assist.tasks.details import parse_details
from edge_assist.tasks.deviations import Thresholds, differences
from edge_assist.tasks.library import TaskLibrary, parse_listed_steps
from edge_assist.tasks.model import Task
from edge_assist.tasks.tracker import StepTracker, TrackerParams
from edge_assist.tasks.vector_cache import VectorCache
from edge_assist.tasks.word_kinds import MATERIAL, OTHER, TOOL, WordKinds

pytestmark = pytest.mark.slow  # loads the text encoder

OMELETTE = (
    "Cheese omelette. Steps: Crack three eggs into a bowl; Beat the eggs with a pinch of salt and "
    "pepper; Grate the cheese; Heat the pan over medium heat and melt the butter; Pour the beaten "
    "eggs into the pan; Sprinkle the grated cheese over the eggs; Fold the omelette in half and "
    "slide it onto a plate"
)


@pytest.fixture(scope="module")
def vc(text_encoder: TextEncoder) -> VectorCache:
    return VectorCache(text_encoder.encode)


@pytest.fixture(scope="module")
def omelette() -> Task:
    task = TaskLibrary.load().resolve(OMELETTE)
    assert task is not None and task.n == len(parse_listed_steps(OMELETTE)[1])
    return task


def _diffs(vc: VectorCache, step: str, caption: str) -> list[str]:
    p = TrackerParams()
    th = Thresholds(p.tool_same_cos, p.object_new_cos, p.object_gone_cos)
    return [d.say() for d in differences(step, parse_details(step), caption, vc.get, WordKinds(vc.get), th)]


def _deviations(task: Task, vc: VectorCache, captions: list[str]) -> list[list[F.Finding]]:
    tr = StepTracker(task, vc.get, vectors=vc)
    return [[f for f in tr.observe(c).findings if f.kind == F.DEVIATION] for c in captions]


def test_words_are_typed_and_function_words_and_verbs_never_count(vc: VectorCache) -> None:
    kinds = WordKinds(vc.get)
    assert kinds.kinds(["fork", "spatula", "blender", "knives"]) == [TOOL] * 4
    assert kinds.kinds(["sugar", "cheese", "cheddar", "tomatoes"]) == [MATERIAL] * 4
    assert kinds.kinds(["plus", "secure", "puts", "contents", "tilting", "edges", "medium"]) == [OTHER] * 7


def test_sugar_for_cheese_is_a_deviation(omelette: Task, vc: VectorCache) -> None:
    found = _deviations(
        omelette,
        vc,
        [
            "The person cracks three eggs into a glass bowl.",
            "The person pours the beaten eggs into the pan; they bubble and set around the rim.",
            "The person spoons white granules from the glass sugar jar over the half-set eggs; "
            "the bowl of grated cheddar stays beside the hob.",
        ],
    )
    assert found[0] == [] and found[1] == []
    dev = found[2]
    assert dev and dev[0].step_text == "Sprinkle the grated cheese over the eggs"
    assert dev[0].differences[0].kind == "ingredient"
    assert dev[0].say().startswith("Sugar instead of grated cheese?")
    assert _diffs(vc, "Sprinkle the grated cheese over the eggs", "pours sugar over the eggs") == [
        "sugar instead of grated cheese"
    ]


def test_a_word_that_is_no_value_is_no_deviation(vc: VectorCache) -> None:
    # A fork is a tool, a pinch of salt an amount of an ingredient: nothing to compare.
    assert (
        _diffs(
            vc,
            "Beat the eggs with a pinch of salt and pepper",
            "The person beats the eggs with a fork and adds a pinch of salt and a twist of pepper.",
        )
        == []
    )
    assert _diffs(vc, "Secure the lid on the tube", "The person closes the tube plus the lid.") == []
    assert _diffs(vc, "Add the contents to the blender", "The person puts the fritter batter in.") == []
    # A step of two actions: the caption of one names only its own tool.
    assert (
        _diffs(
            vc,
            "Fold the omelette in half and slide it onto a plate",
            "The person folds the omelette in half with the spatula; cheese oozes at the edge.",
        )
        == []
    )


def test_an_ordinary_matching_step_raises_none(omelette: Task, vc: VectorCache) -> None:
    found = _deviations(
        omelette,
        vc,
        [
            "The person cracks three eggs into a glass bowl and drops the shells into a small dish.",
            "The person beats the eggs with a fork and adds a pinch of salt and a twist of pepper.",
            "The person grates cheddar on a box grater into a small white bowl.",
            "The person pours the beaten eggs into the pan, tilting the pan to spread them.",
            "The person sprinkles the grated cheddar from the white bowl over the eggs.",
        ],
    )
    assert found == [[], [], [], [], []]


def test_a_different_setting_amount_or_tool_still_is(vc: VectorCache) -> None:
    assert _diffs(vc, "Heat the pan over medium heat", "The person heats the pan on high heat") == [
        "high instead of medium"
    ]
    assert _diffs(vc, "Add 1 tablespoon of water", "I add 3 tablespoons of water") == [
        "3 tablespoons instead of 1 tablespoon"
    ]
    assert _diffs(vc, "Cut the muffin in two with a knife", "Cut the muffin in two with a spoon") == [
        "spoon instead of knife"
    ]


def test_a_clip_of_two_actions_compares_the_one_that_is_the_step(vc: VectorCache) -> None:
    # The second action is the next step begun (or an aside), not what this step used.
    assert (
        _diffs(vc, "Mix flour in water", "The person mixes flour in bowl, then adds salt to mixture.") == []
    )
    assert (
        _diffs(
            vc,
            "Stir the rice in the pot with a spoon",
            "The person stirs the rice in a pot with a spoon, then stirs the zucchini with a spatula.",
        )
        == []
    )
    # The action that is the step still differs where it does.
    assert _diffs(vc, "Mix flour in water", "The person washes the bowl, then mixes sugar in water.") == [
        "sugar instead of flour"
    ]


def test_of_two_actions_the_one_that_works_on_the_steps_own_things_is_the_step(vc: VectorCache) -> None:
    # Whatever the encoder makes of the spice paste, the onions are the step's: no "shelf
    # instead of onions".
    caption = "The person collects spice paste from shelf, then removes the unwanted parts from the onions."
    assert _diffs(vc, "Reduce the onions into small slices", caption) == []
    caption = "The person checks for oil in the pancake, then immerses pancake inside syrup."
    assert _diffs(vc, "Add the pancake to a syrup in a pot", caption) == []
    # The action on the step's eggs is the step, and its sugar is no cheese.
    caption = "The person wipes the counter, then pours sugar over the eggs."
    step = "Sprinkle the grated cheese over the eggs"
    assert _diffs(vc, step, caption) == ["sugar instead of grated cheese"]


def test_a_thing_of_any_kind_or_written_in_two_words_is_no_other_thing(vc: VectorCache) -> None:
    # "ingredients" names no particular thing: the pasta stirred is one of them.
    assert _diffs(vc, "Stir fry the ingredients", "The person stir-fries the pasta.") == []
    assert _diffs(vc, "Add flaxseed on the dough rolls", "The person adds flax seed to dough.") == []
    # A compound verb begins an action ("deep-fries"): that clause is the step, the syrup is the next.
    caption = (
        "The person deep-fries pancake batter in the pan, then adds the pancake to the syrup in the pot."
    )
    assert _diffs(vc, "Deep fry pancake batter in the pan", caption) == []


def test_a_member_of_a_plural_kind_is_that_kind_but_a_singular_food_is_itself(vc: VectorCache) -> None:
    # "Slice vegetables" is done by slicing a tomato; "add the spices" by adding cumin.
    assert _diffs(vc, "Slice vegetables", "The person chops carrot, then slices tomato.") == []
    assert _diffs(vc, "Add the spices to the pan", "The person adds cumin to the pan.") == []
    # A slice of bread means bread: an English muffin there is a swap, as is sugar for the spices.
    assert _diffs(vc, "Cut 1 slice of bread into pieces", "I cut one english muffin into pieces.") == [
        "muffin instead of bread"
    ]
    assert _diffs(vc, "Add the spices to the pan", "The person adds sugar to the pan.") == [
        "sugar instead of spices"
    ]


def test_an_ingredient_another_step_names_is_that_step_not_a_swap(vc: VectorCache) -> None:
    # The salt is the next step's: a clip that shows it beside the flour is that step begun (or
    # the wrong step read), not salt used instead of the water; the honey no step names is a swap.
    task = TaskLibrary.load().resolve(
        "Flatbread. Steps: Mix the flour in water; Add salt to the dough; Knead the dough"
    )
    assert task is not None
    other = _deviations(task, vc, ["The person mixes the flour with salt in a bowl."])
    assert other == [[]]
    swap = _deviations(task, vc, ["The person mixes the flour with honey in a bowl."])
    assert swap[0] and swap[0][0].differences[0].observed == "honey"


def test_a_thing_joined_to_the_steps_own_is_added_not_swapped(vc: VectorCache) -> None:
    # "flour and salt" at "Mix flour in water": salt added to the step's flour, not put in the
    # water's place; "flour with honey" puts the honey where the water would be
    assert _diffs(vc, "Mix flour in water", "The person mixes flour and salt in bowl.") == []
    assert _diffs(vc, "Mix flour in water", "The person mixes flour with honey in a bowl.") != []


def test_water_or_oil_stands_in_only_for_a_thing_poured(vc: VectorCache) -> None:
    # The pan readied with water or oil is no swap for the dough or the spice of the step.
    assert (
        _diffs(vc, "Boils the dough in a pan", "The person adds water to a pan, then boils water on cooker.")
        == []
    )
    assert _diffs(vc, "Adds the mixed spice to the pan", "The person adds oil to pan.") == []
    assert _diffs(vc, "Add 1/6 cup water to the bowl", "The person adds salt to the bowl.") == []
    # One thing poured for another still is a swap.
    assert _diffs(vc, "Measure 12 ounces of cold water", "The person measures 12 ounces of milk.") == [
        "milk instead of water"
    ]
    assert (
        _diffs(vc, "Add 1 teaspoon of softened butter", "The person adds 1 teaspoon of vegetable oil.") != []
    )
    assert (
        _diffs(vc, "Add the sweet and sour sauce to the bowl", "The person adds minced garlic to the bowl.")
        != []
    )


def test_a_tool_used_on_another_thing_is_no_tool_swap(vc: VectorCache) -> None:
    assert _diffs(vc, "Clean the plate with a cloth", "The person wipes the sink area with a napkin.") == []
    assert _diffs(vc, "Clean the plate with a cloth", "The person wipes the plate with a sponge.") == [
        "sponge instead of cloth"
    ]
    # A clause naming nothing may be the step's own.
    assert _diffs(vc, "Spread the jelly with a butter knife", "The person spreads it with a spoon.") == [
        "spoon instead of butter knife"
    ]


def test_the_clause_naming_the_steps_plural_thing_is_the_step(vc: VectorCache) -> None:
    # "spices" is named in its singular by the first clause; the salt of the second is an addition.
    caption = (
        "The person pours cumin spice to chicken stir fry mixture, "
        "then pours salt to chicken stir fry mixture."
    )
    assert _diffs(vc, "Adds spices to chicken stir fry mixture", caption) == []
    # "The spices" of a wearer's list are any seasoning; "the spice" is that spice.
    assert _diffs(vc, "Add the spices to the pan", "The person pours salt to the pan.") == []
    assert _diffs(vc, "Add the spice to the pan", "The person adds salt to the pan.") == [
        "salt instead of spice"
    ]


def test_of_two_clauses_the_one_doing_the_steps_act_is_compared(vc: VectorCache) -> None:
    caption = "The person stirs the ingredients, then adds sauce to the ingredients in the pan."
    assert _diffs(vc, "Mix spice with the ingredients in the pan", caption) == []
    assert _diffs(vc, "Add the spice to the pan", caption) == ["sauce instead of spice"]


def test_a_caption_working_on_the_steps_product_is_no_swap_of_it(vc: VectorCache) -> None:
    step = "Blends the veggies with a hand blender"
    assert _diffs(vc, step, "The person stirs the blended veggies with a fork.") == []
    assert _diffs(vc, step, "The person blends the veggies with a fork.") == ["fork instead of hand blender"]
    # A participle in a step begun by no verb is the thing's state, not the step's act.
    assert _diffs(vc, "1/8 cup shredded mozzarella to a bowl", "I tip in 1/8 cup shredded cheddar.") != []


REHEATED_RICE = (
    "Reheated rice. Steps: Put the rice in a bowl; Add 1 teaspoon salt to the bowl; "
    "Microwave the bowl, covered, for 2 minutes; Stir the rice; Microwave for 1 more minute; "
    "Fry the sliced onion in the pan; Top the rice with the onion"
)


def test_a_step_said_in_other_words_is_compared_by_its_act(vc: VectorCache) -> None:
    # The encoder puts "zapped" far from "Microwave" (cosine 0.24): the verb says it is the step.
    # A thing swapped is told by such a caption only in the step's own amount: with no amount,
    # "tossed in some sugar" may as well be another activity of the wearer's.
    task = TaskLibrary.load().resolve(REHEATED_RICE)
    assert task is not None
    said = [
        "I put the rice in a bowl.",
        "I tossed in one tsp sugar to the dish.",
        "I'm nuking the dish, covered, for two mins.",
        "I stirred the rice.",
        "I zapped for one and a half more min.",
    ]
    found = _deviations(task, vc, said)
    assert [d[0].say().split("?")[0] for d in found if d] == [
        "Sugar instead of salt",
        "One and a half more min instead of 1 more minute",
    ]
    vague = [said[0], "I tossed in some sugar to the dish.", said[2], said[3], "I zapped for one more min."]
    assert _deviations(task, vc, vague) == [[]] * 5


def test_bare_hands_in_a_hand_tools_place(vc: VectorCache) -> None:
    cut = "Cut the English muffin into two pieces with a knife"
    muffin = "In two bits with hands, I'm slicing the english muffin."
    assert _diffs(vc, cut, muffin) == ["hands instead of knife"]
    # One hand holds; a machine's step done by hand is that step done another way.
    assert _diffs(vc, cut, "I'm cutting the muffin with a knife, holding it with one hand") == []
    assert _diffs(vc, "Knead the dough with the mixer", "The person kneads dough with hands.") == []


def test_a_part_of_the_step_said_not_done(vc: VectorCache) -> None:
    micro = "Microwave the plate, covered, on high for 1.5 minutes"
    assert _diffs(vc, micro, "I microwave the plate, uncovered, on high for 1.5 minutes.") == ["uncovered"]
    assert _diffs(vc, "Peel 1 medium onion", "I'm getting one medium onion ready and don't peel it.") == [
        "no peeling"
    ]
    stirring = "Microwave for 3 minutes, stirring in between"
    assert _diffs(vc, stirring, "microwaves for 3 minutes without stirring") == ["no stirring"]
    # Only the step's own acts: unsalted butter negates no act of adding salt.
    assert _diffs(vc, "Add 1/3 tsp salt to the pan", "adds 1/3 tsp salt next to the unsalted butter") == []
