"""A composed answer tells every action in the past, not only the first one."""

from __future__ import annotations

import pytest

from edge_assist.reasoning import answer_text as at
from edge_assist.text.verb_forms import past_tense, present_participle


@pytest.mark.parametrize(
    ("caption", "said"),
    [
        # narrations, third person (the VLM's and the house captions)
        ("C comes back and grabs the knife", "you came back and grabbed the knife"),
        ("The person picks up the bowl and pours the eggs", "you picked up the bowl and poured the eggs"),
        (
            "The person checks the timetable on the shelter wall and sits on the bench.",
            "you checked the timetable on the shelter wall and sat on the bench",
        ),
        (
            "The person mops up the puddle, dries their feet, then plugs the washing machine in.",
            "you mopped up the puddle, dried their feet, then plugged the washing machine in",
        ),
        (
            "The person bends at the waist with straight legs and heaves one end of the sofa up alone.",
            "you bent at the waist with straight legs and heaved one end of the sofa up alone",
        ),
        # a clip stream's clauses (Ego4D Goal-Step): verbs we do not list, and "is ...ing" after "then"
        ("The person removes cabbage from plastic bag.", "you removed cabbage from plastic bag"),
        (
            "The person adds onions to the oil in the pan, then activates range hood.",
            "you added onions to the oil in the pan, then activated range hood",
        ),
        (
            "The person adds oil to the pan, sets the heat temperature on the pan, then adds onions.",
            "you added oil to the pan, set the heat temperature on the pan, then added onions",
        ),
        (
            "The person sliced green beans, then is extracting boiled water from the mushroom.",
            "you sliced green beans, then were extracting boiled water from the mushroom",
        ),
        (
            "The person is stirring the sauce, then is stirring the pasta.",
            "you were stirring the sauce, then stirring the pasta",
        ),
        # imperative recipe steps (CaptainCook4D, original)
        (
            "Add contents of the bowl to the lettuce and replace the top of the English muffin",
            "you added contents of the bowl to the lettuce and replaced the top of the English muffin",
        ),
        (
            "Measure 1/8 teaspoon of baking powder and add it to the mug",
            "you measured 1/8 teaspoon of baking powder and added it to the mug",
        ),
        (
            "Add chopped onions to the bowl, then move it to the pan",
            "you added chopped onions to the bowl, then moved it to the pan",
        ),
        (
            "Heat the wrong pan; turn off the heat; and turn on the heat for the correct pan",
            "you heated the wrong pan; turned off the heat; and turned on the heat for the correct pan",
        ),
        (
            "Microwave for 16 seconds, stop microwaving to add cover",
            "you microwaved for 16 seconds, stopped microwaving to add cover",
        ),
        (
            "Heat the contents of the mug for 1 minute and serve",
            "you heated the contents of the mug for 1 minute and served",
        ),
        (
            "Toast both sides of the slices on the pan for 2 to 3 minutes until lightly charred and crispy "
            "and transfer the slices to a plate",
            "you toasted both sides of the slices on the pan for 2 to 3 minutes until lightly charred and "
            "crispy and transferred the slices to a plate",
        ),
        (
            "Extract and add contents of an egg to a bowl",
            "you extracted and added contents of an egg to a bowl",
        ),
        # first person (CaptainCook4D, paraphrased), simple and progressive
        # a narrator's list of acts, one after each comma (Ego4D Goal-Step, as the builder writes it)
        (
            "The person grills fish in the oven, washes hands, then regulates the heat of the oven.",
            "you grilled fish in the oven, washed hands, then regulated the heat of the oven",
        ),
        ("I chopped or grate the cucumber.", "you chopped or grated the cucumber"),
        ("I'm dicing or grate the cucumber.", "you were dicing or grating the cucumber"),
        (
            "I put in one tablespoon milk to the basin, but splash some milk outside.",
            "you put in one tablespoon milk to the basin, but splashed some milk outside",
        ),
        (
            "When mustard and cumin seeds, I'm starting to sizzle, put in finely chopped garlic.",
            "when mustard and cumin seeds, you were starting to sizzle, putting in finely chopped garlic",
        ),
    ],
)
def test_every_coordinated_verb_goes_into_the_tense_of_the_first(caption: str, said: str) -> None:
    assert at.second_person(caption) == said


@pytest.mark.parametrize(
    ("caption", "said"),
    [
        # nouns stay nouns
        ("Coat a 6-oz. ramekin cup with cooking spray", "you coated a 6-oz. ramekin cup with cooking spray"),
        ("Add oil and salt to the pan", "you added oil and salt to the pan"),
        ("Season with pepper and salt", "you seasoned with pepper and salt"),
        # a list of things after a comma: a plural that is also a verb stays a thing
        ("The person grabs plates, spoons and forks.", "you grabbed plates, spoons and forks"),
        (
            "The person lays out forks and napkins at six places around the table.",
            "you laid out forks and napkins at six places around the table",
        ),
        (
            "The person feeds the board through the table saw with a push stick, fingers back from the blade",
            "you fed the board through the table saw with a push stick, fingers back from the blade",
        ),
        # an infinitive's or a subordinate clause's verbs are not the wearer's next action
        (
            "Cook for 3-5 minutes, stirring often, until mushrooms start to soften and brown",
            "you cooked for 3-5 minutes, stirring often, until mushrooms start to soften and brown",
        ),
        (
            "Use the knife to scoop jelly from the jar and spill some out",
            "you used the knife to scoop jelly from the jar and spill some out",
        ),
        # "while ...ing" and an -ing after a comma stay as they are; so does the comma
        ("Cook, stirring often, for 4 minutes", "you cooked, stirring often, for 4 minutes"),
        ("Microwave for 3 minutes, stirring in between", "you microwaved for 3 minutes, stirring in between"),
        # a later sentence is a note about the step, not an action
        (
            "Boil the water. (While the water is boiling, assemble the filter cone)",
            "you boiled the water. (While the water is boiling, assemble the filter cone)",
        ),
        # a first verb the rules did not turn: the others are left alone too
        ("I pump the tyre up and check the gauge", "you pump the tyre up and check the gauge"),
    ],
)
def test_nouns_infinitives_and_notes_keep_their_form(caption: str, said: str) -> None:
    assert at.second_person(caption) == said


def test_the_told_answer_of_the_demo_shape() -> None:
    assert (
        at.compose("what", "C comes back and grabs the knife", 194.0)
        == "At 3:14 you came back and grabbed the knife."
    )


def test_verb_forms_of_coordinated_verbs() -> None:
    assert [present_participle(v) for v in ("dice", "put", "stir", "tie", "transfer", "open", "see")] == [
        "dicing",
        "putting",
        "stirring",
        "tying",
        "transferring",
        "opening",
        "seeing",
    ]
    assert [past_tense(v) for v in ("unclip", "bleed", "grab", "open")] == [
        "unclipped",
        "bled",
        "grabbed",
        "opened",
    ]
