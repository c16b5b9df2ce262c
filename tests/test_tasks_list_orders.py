"""A wearer's own list ordered by what its steps share, not by its order: the hard orderings
`list_task` infers from the steps' words (no encoder, no recording)."""

from __future__ import annotations

from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.listed import list_task
from edge_assist.tasks.step_phrases import names_a_thing_of

TEA = (
    "Fill the kettle with water",
    "Boil the water in the kettle",
    "Put a tea bag in the mug",
    "Pour the boiling water into the mug",
    "Steep for 3 minutes",
    "Remove the tea bag",
    "Add a splash of milk",
)


def test_listed_steps_that_share_a_thing_keep_their_order() -> None:
    task = list_task("tea", "Make tea", TEA)
    after = {s.id: s.after for s in task.steps}
    assert after["2"] == ("1",)  # boiling the water needs the water filled in
    # The tea bag taken out: it was put in, and it is in the mug steeping works on.
    assert after["6"] == ("3", "5")
    assert after["3"] == () and after["4"] == ("2",)  # two puts into the mug: either order
    assert after["5"] == ("3", "4")  # steeping works on what the mug holds: after what was put in
    assert after["7"] == ()  # milk shares nothing


def test_things_are_noun_phrases_not_shared_words() -> None:
    # "baking powder" is no "cumin powder"; how a thing was made tells nothing apart.
    task = list_task(
        "raita",
        "Raita",
        (
            "Add 1 teaspoon of baking powder to the bowl",
            "Add 1 teaspoon of cumin powder to the bowl",
            "Peel 2 garlic cloves",
            "Add 2 minced garlic cloves to the bowl",
            "Add 1/2 tablespoon minced ginger to the bowl",
            "Whisk the mixture",
            "Add the chopped cilantro to the bowl",
        ),
    )
    after = {s.id: s.after for s in task.steps}
    assert after["2"] == () and after["5"] == ()
    assert after["4"] == ("3",)  # the garlic of "garlic cloves"
    assert after["6"] == ("1", "2", "4", "5")  # the mixture: what the bowl holds
    assert after["7"] == ("6",)  # put in after the bowl was worked on


def _after(texts: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return {s.id: s.after for s in list_task("t", "t", texts).steps}


def test_hot_cookware_waits_for_what_goes_into_it_but_not_for_what_cooks_alongside() -> None:
    after = _after(
        (
            "Rinse the lentils",
            "Boil the lentils in a pot of water for 20 minutes",
            "Mince 2 garlic cloves",
            "Whisk 2 eggs in a bowl",
            "Heat 1 tbsp oil in a skillet",
            "Add the garlic to the pan",
            "Pour the eggs into the pan",
            "Stir in the cooked lentils",
        )
    )
    # The garlic minced and the eggs whisked before the skillet ("the pan" after) heats...
    assert after["5"] == ("3", "4")
    # ...while the lentils may simmer in their pot as it heats.
    assert "2" not in after["5"] and after["8"] == ("2",)


def test_things_put_onto_one_thing_may_be_swapped_and_what_works_on_it_follows_them_all() -> None:
    after = _after(
        (
            "Lay the side panel flat",
            "Tap the wooden dowels into the side panel",
            "Screw the cam bolts into the side panel",
            "Attach the top panel to the side panel",
        )
    )
    assert after["2"] == ("1",) and after["3"] == ("1",)  # either first
    after = _after(
        (
            "Slice the tomato",
            "Season the tomato slices with salt",
            "Sprinkle the mozzarella on top of the tomato",
            "Roll up the tomato slices",
        )
    )
    assert after["2"] == ("1",) and after["3"] == ("1",)
    assert after["4"] == ("1", "2", "3")


def test_a_vessel_readied_comes_before_what_goes_in_after_it_and_after_nothing() -> None:
    after = _after(
        (
            "Add 250 µl of buffer to the tube and invert the tube 5 times",
            "Label a clean collection tube",
            "Place the column in the collection tube",
        )
    )
    assert after["2"] == () and after["3"] == ("2",)


def test_things_side_by_side_in_an_oven_are_ordered_by_their_own_thing_only() -> None:
    after = _after(
        (
            "Remove the baked bread from the oven",
            "Bake the pastry doughs in the oven",
            "Put the sausage rolls in the oven",
            "Remove the sausage rolls from the oven",
            "Preheat the oven",
            "Bake for 20 minutes",
        )
    )
    # The bread, the pastries and the sausage rolls share only the oven: any order.
    assert after["2"] == () and after["3"] == ()
    assert after["4"] == ("3",)  # the sausage rolls come out after they went in
    # A step that names nothing there works on what the oven holds.
    assert set(after["6"]) >= {"5"}


def test_what_is_added_with_no_vessel_named_is_in_before_the_next_step_works_on_the_pan() -> None:
    after = _after(
        (
            "Heat a large pan on medium heat",
            "Season with salt",
            "Add the zucchini noodles",
            "Cook for 2 minutes or until the noodles are soft",
        )
    )
    assert after["2"] == () and after["3"] == ()  # may go in in either order
    assert after["4"] == ("1", "2", "3")


def test_the_example_tasks_given_as_lists_order_nothing_their_graphs_do_not() -> None:
    # Written by hand with their graphs, for other kinds of task (repair, lab, tea): no rule
    # here may order two steps their graphs leave free, or a wearer hears false alarms.
    for name in ("inner-tube", "pcr-setup"):
        task = TaskLibrary.load().get(name)
        assert task is not None
        listed = list_task(name, name, [s.text for s in task.steps])
        truth, got = task.ancestor_masks(), listed.ancestor_masks()
        assert all(g & ~t == 0 for g, t in zip(got, truth, strict=True)), name


def test_a_vessel_named_with_a_or_another_is_one_not_yet_in_use() -> None:
    # "Heat a pan" late in a list of someone's morning: a pan, maybe another one, not the pan the
    # sausages turned in, so heating it first is no skip of them.
    after = _after(
        (
            "Cook sausages in a pan over medium heat",
            "Turn the sausages over in the pan",
            "Heat a pan",
            "Fry the eggs in the pan",
        )
    )
    assert after["3"] == () and after["4"] == ("3",)
    # The pan named again is the one in use.
    assert _after(("Cook sausages in a pan", "Turn the sausages over in the pan", "Heat the pan"))["3"] == (
        "2",
    )


def test_a_step_s_things_are_named_by_their_words_or_by_any_vessel_for_its_vessel() -> None:
    assert names_a_thing_of("Microwave the plate, covered", "Now I am zapping the dish, covered")
    assert names_a_thing_of("Mince 1/8 garlic clove", "I'm mincing the garlic")
    assert not names_a_thing_of("Chop potatoes", "The person dries chopping board and knives.")
    assert names_a_thing_of("Steep for 3 minutes", "Letting it steep")  # a step naming no thing


def test_a_counter_is_no_loose_name_for_a_bowl_and_an_ingredient_is_no_particular_thing() -> None:
    # A counter is no loose name for a bowl; "ingredient" names no particular thing.
    assert not names_a_thing_of("Prepare the diced ingredients in a bowl", "The person wipes the counter.")
    assert not names_a_thing_of("Mix the ingredients with the spice", "The person picks an ingredient.")
