"""Questions in the shapes people use: the thing as subject ("was the butter softened?"), a
pronoun for the thing ("when did I flip them?"), a verb that names what it puts on ("did I
sweeten it?"), other names of one thing ("mayo"), and "which came first". Rules only, no model."""

from __future__ import annotations

import pytest

from edge_assist.answers import meaning, order, thing_naming
from edge_assist.text.action_families import covers_act
from edge_assist.text.kinds_of_things import same_thing
from edge_assist.text.participles import participle_base
from edge_assist.text.question_voice import as_wearers


@pytest.mark.parametrize(
    ("asked", "said_as"),
    [
        ("was the butter softened?", "did I soften the butter?"),
        ("did the honey go in?", "did I add the honey?"),
        ("when did the chilli go into the pan?", "when did I add the chilli into the pan?"),
        ("how much mayo went in?", "how much mayo did I add?"),
        ("how much salt was used?", "how much salt did I use?"),
        ("did the eggs get whisked?", "did I whisk the eggs?"),
        ("has the rice been rinsed?", "did I rinse the rice?"),
        ("when was the oven preheated?", "when did I preheat the oven?"),
        ("did the olive oil get heated first?", "did I heat the olive oil first?"),
        ("did the salt go in before the milk?", "did I add the salt before the milk?"),
        # what heat does to a thing is the wearer heating it
        ("did the butter melt?", "did I melt the butter?"),
        ("did the water boil before the pasta went in?", "did I boil the water before the pasta went in?"),
        # the thing said as a pronoun stays one
        ("has it been plated up?", "did I plate it up?"),
        ("were they flipped?", "did I flip them?"),
        ("was it microwaved before the cheese went on?", "did I microwave it before the cheese went on?"),
    ],
)
def test_a_question_about_a_thing_is_asked_about_the_wearer_s_act(asked: str, said_as: str) -> None:
    assert as_wearers(asked) == said_as


@pytest.mark.parametrize(
    "asked",
    [
        "did I add salt?",
        "was it burnt?",
        "was the pan hot?",
        "did the timer go off?",
        "were you tired?",
        "did the sauce thicken?",
        "did anything spill?",
        "is it done?",
        "were they golden?",
    ],
)
def test_questions_that_are_not_about_a_thing_s_fate_are_left_as_asked(asked: str) -> None:
    assert as_wearers(asked) == asked


def test_participles_regular_irregular_and_unknown_verbs() -> None:
    assert participle_base("beaten") == "beat" and participle_base("cut") == "cut"
    assert participle_base("chopped") == "chop" and participle_base("softened") == "soften"
    assert participle_base("hot") is None


def test_other_names_of_one_thing() -> None:
    assert same_thing("mayo", "mayonnaise") and same_thing("scallion", "spring-onion")
    assert not same_thing("salt", "salsa")
    assert thing_naming.thing_in("scallion", "Now I am dicing two spring onions.") == "onions"
    assert thing_naming.thing_in("mayo", "I put in a quarter mug mayonnaise to the dish.") == "mayonnaise"


def test_general_verbs_cover_each_other_but_not_specific_acts() -> None:
    assert covers_act("put", "add") and covers_act("use", "add")
    assert not covers_act("pour", "add")  # a caption's "add" does not say how
    assert meaning.restate("put milk in", "To the bowl, I'm adding one tbsp milk.") == "adding milk in"


def test_a_pronoun_object_is_matched_by_its_act_alone() -> None:
    assert meaning.restate("flip them", "Now I am turning over the pancakes.") == "turning over them"
    assert meaning.restate("stir it", "Now I am turning over the pancakes.") is None
    assert meaning.restate("use it", "Now I am turning over the pancakes.") is None  # too general


def test_a_verb_that_names_what_it_puts_on_asks_about_that_thing() -> None:
    assert meaning.implied("sweeten it") == "add sweetener to it"
    assert meaning.restate("sweeten it", "Now I am putting in one tbsp of white sugar to the cup.")
    assert meaning.restate("sweeten it", "Now I am putting in one tbsp of salt to the cup.") is None
    assert meaning.implied("salt the pan") == "add salt to the pan"
    assert meaning.restate("salt the pan", "To the pan, I'm tipping in a pinch of salt.")
    # the verb's own act still counts; another act on the thing, with none of the material, is other
    assert meaning.restate("grease the cup", "Coat a 6-oz. ramekin cup with cooking spray.") == "Coat the cup"
    assert meaning.read("pepper the tuna", "Now I am unsealing a can of tuna.").other_act
    assert meaning.parse("season it with pepper").thing == "pepper"


def test_what_a_with_phrase_puts_on_is_asked_about() -> None:
    # "top the cup with salsa" puts salsa on the cup, either way round
    assert meaning.implied("season it with pepper") == "add pepper to it"
    assert meaning.implied("top the cup with salsa") == "add salsa to the cup"
    assert meaning.implied("brush it with a brush") == "brush it with a brush"  # a tool, not a thing put on
    assert meaning.implied("stir it with a spoon") == "stir it with a spoon"  # stirring puts nothing on
    pepper = "Half a teaspoon, I'm grinding black pepper to the dish."
    assert meaning.restate("season it with pepper", pepper)
    assert meaning.restate("season it with salt", pepper) is None


def test_a_verb_of_its_own_manner_adds_what_it_puts_into_a_vessel_or_a_food() -> None:
    assert meaning.restate("add lemon", "squeezing a lemon into the bowl of batter") == "squeezing lemon"
    assert meaning.restate("add the milk", "I am carrying the milk to the table.") is None
    # the thing asked about is where the egg went, not what was put: no "Yes" to greasing it
    assert meaning.restate("grease the cup", "Pour 1 egg into the ramekin cup") is None


def test_a_noun_first_focus_is_restated_verb_first() -> None:
    assert meaning.restate("mayo add", "I put in a quarter mug mayonnaise to the dish.") == "put mayonnaise"


def test_order_questions_in_other_shapes() -> None:
    assert order.parse("before adding the sauce, did I heat the oil?") == order.Ordered(
        "heat the oil", "before", "add the sauce"
    )
    assert order.parse("which did I do first, the salt or the pepper?") == order.Ordered(
        "add the salt", "first", "add the pepper"
    )
    assert order.parse("what came first, cracking the eggs or heating the pan?") == order.Ordered(
        "crack the eggs", "first", "heat the pan"
    )
    assert order.parse("did I peel the garlic before it was chopped?") == order.Ordered(
        "peel the garlic", "before", "chop the garlic"
    )
    # "they" is what the first act named in the plural; into a pan a thing is put, not cooked yet
    assert order.parse("did I mix the cilantro into the eggs before they went in the pan?") == order.Ordered(
        "mix the cilantro into the eggs", "before", "add the eggs"
    )
    assert order.parse(as_wearers("were the eggs beaten before the milk went in?")) == order.Ordered(
        "beat the eggs", "before", "add the milk"
    )
    assert order.parse("had I preheated the oven by the time I mixed the batter?") == order.Ordered(
        "preheat the oven", "before", "mix the batter"
    )


@pytest.mark.parametrize(
    "asked", ["when did I put cheese on it?", "did I put the salt in?", "how many eggs did I crack?"]
)
def test_a_question_about_the_wearer_is_never_turned(asked: str) -> None:
    assert as_wearers(asked) == asked


def test_amounts_find_their_thing_by_another_name_or_a_kind() -> None:
    from edge_assist.answers import quantities
    from edge_assist.retrieval.api import CaptionRecord

    said = [
        "I tipped in half a cup mayonnaise to the dish.",
        "To the dish, I'm tipping in one can drained tuna.",
        "I added 2 eggs and 1 tablespoon of milk.",
    ]
    clips = [CaptionRecord("s", i, 10.0 * i, 10.0 * i + 5, t) for i, t in enumerate(said)]

    def found(question: str) -> list[str]:
        asked = quantities.parse(question)
        assert asked is not None
        return [f.moment.text for f in quantities.matches(asked, clips)[0]]

    assert found("how much mayo did I add?") == [said[0]]
    assert found("how many cans of tuna did I add?") == [said[1]]
    assert found("how much dairy did I add?") == [said[2]]
    assert found("how much ketchup did I add?") == []


def test_did_i_forget_asks_about_the_act_and_turns_the_answer() -> None:
    from edge_assist.answers import forgot

    assert forgot.inner("did I forget to add the salt?") == "did I add the salt?"
    assert forgot.inner("did I forget the salt?") == "did I add the salt?"
    assert forgot.inner("did I forget to turn off the stove?") == "did I turn off the stove?"
    assert forgot.inner("did I forget anything?") is None  # the task tracker's question
    assert forgot.inner("did I forget the oven?") is None  # no act to ask about
    assert forgot.turned("Yes. At 3:10 you added salt.") == "No, you didn't forget: at 3:10 you added salt."
    assert forgot.turned("No: you skipped the step Coat the cup.").startswith("Yes, it looks like it: you")
    assert forgot.turned("I don't remember you doing that.") == "I don't remember you doing that."


def test_tossing_a_thing_in_adds_it_and_does_not_mix() -> None:
    caption = "I tossed in one tsp of pepper powder to the basin."
    assert meaning.caption_verbs(caption) == [(1, "add")]
    assert meaning.restate("stir the bowl", caption) is None
    assert meaning.read("stir the bowl", caption).other_act


def test_a_setting_the_moment_names_otherwise_is_a_no_with_what_was_seen() -> None:
    from edge_assist.answers import contradicted
    from edge_assist.retrieval.api import Moment

    caption = "In a nonstick skillet on low heat, I'm heating three tablespoon oil."
    assert as_wearers("was the oil on medium heat?") == "did I heat the oil on medium heat?"
    d = contradicted.difference("heat the oil on medium heat", caption)
    assert d is not None and (d.expected, d.observed) == ("medium", "low")
    assert contradicted.difference("heat the oil on low heat", caption) is None
    assert contradicted.difference("microwave it on high", "Microwave the mug on full power.") is None
    assert contradicted.difference("add 2 eggs", "I added one egg.") is None  # amounts may add up
    said = contradicted.compose(d, Moment("s", 0, 4.0, 60.0, caption, 0.9))
    assert said.startswith("No: at 0:04") and said.endswith("(low, not medium).")


def test_a_tool_the_moment_names_otherwise_is_a_no_unless_a_moment_names_the_one_asked() -> None:
    from edge_assist.answers import contradicted
    from edge_assist.answers.support import AnswerGate
    from edge_assist.retrieval.api import Moment

    spoon = "I'm whisking the two eggs with a spoon in the bowl."
    d = contradicted.difference("whisk the eggs with a fork", spoon)
    assert d is not None and (d.kind, d.expected, d.observed) == ("tool", "fork", "spoon")
    assert contradicted.without_setting("whisk the eggs with a fork") == "whisk the eggs"
    assert contradicted.difference("whisk the eggs with a spoon", spoon) is None
    assert contradicted.difference("whisk them with a fork", "whisking with a fork and a spoon") is None
    assert contradicted.difference("top it with cheese", "topping it with salsa") is None  # no tool
    assert contradicted.difference("whisk the eggs", spoon) is None  # no tool asked
    # a moment naming the asked tool anywhere among those found: no "No" by another moment's tool
    fork = Moment("s", 4, 80.0, 90.0, "Beating the eggs again, now with a fork.", 0.7)
    found = [Moment("s", 2, 40.0, 50.0, spoon, 0.8), fork]
    assert (
        contradicted.no_by_setting(AnswerGate.load(), None, "whisk the eggs with a fork", found, 0.0) is None
    )  # type: ignore[arg-type]


def test_a_statement_asked_back_is_the_question_it_asks() -> None:
    assert as_wearers("I didn't forget the salt, did I?") == "did I forget the salt?"
    # the tool used is said with the act it was used for: "with a knife", as captions say it
    knife = "I used a knife to split the muffin, didn't I?"
    assert as_wearers(knife) == "did I split the muffin with a knife?"
    assert as_wearers("I've added the sugar, haven't I?") == "did I add the sugar?"
    assert as_wearers("pepper went in before the salt, right?") == "did I add the pepper before the salt?"
    assert as_wearers("the butter was softened, wasn't it?") == "did I soften the butter?"
    assert as_wearers("the oil was on medium heat, right?") == "did I heat the oil on medium heat?"
    assert as_wearers("I put the lid on, yeah?") == "did I put the lid on?"
    # a question already, or no statement before the tag: left as asked
    assert as_wearers("did I add the salt, right?") == "did I add the salt?"
    assert as_wearers("how long did I cook it, roughly?") == "how long did I cook it?"


def test_a_moment_timed_otherwise_is_another_doing_of_the_act() -> None:
    from edge_assist.answers.backing import _another_time, _times

    def another(focus: str, caption: str) -> bool:
        return _another_time(_times(focus), caption)

    assert another("cook it for 3 minutes", "I am frying it in the skillet for two mins.")
    assert another("microwave it for about 10 seconds", "for fifteen - thirty more seconds, microwaving")
    assert not another("cook it for 2 minutes", "pan-frying the garlic for two - three mins")  # a range
    assert not another("microwave it for 30 seconds", "nuking the mug for thirty secs")
    assert not another("microwave it", "nuking the mug for 45 seconds")  # no time asked


def test_a_thing_put_under_or_beside_what_it_was_asked_on_is_a_no() -> None:
    from edge_assist.answers import contradicted

    d = contradicted.difference(
        "add the egg on top of the lettuce", "From the mug under the lettuce, placing the egg."
    )
    assert d is not None and (d.kind, d.expected, d.observed) == (
        "place",
        "on the lettuce",
        "under the lettuce",
    )
    assert (
        contradicted.difference("add the egg on top of the lettuce", "placing the egg on the lettuce") is None
    )
    assert contradicted.difference("put the lid on the pot", "I put the pot on the stove.") is None
    # beside it is neither on it nor under it
    d = contradicted.difference("put the cheese on top of the egg", "Scattering the cheese beside the egg.")
    assert d is not None and (d.expected, d.observed) == ("on the egg", "beside the egg")
    d = contradicted.difference("put the spoon next to the mug", "I set the spoon on the mug.")
    assert d is not None and (d.expected, d.observed) == ("beside the mug", "on the mug")
    assert contradicted.difference("put the cheese next to the egg", "the cheese goes beside the egg") is None


def test_an_order_question_in_other_shapes_names_both_acts() -> None:
    from edge_assist.answers import order

    assert order.parse("did I salt it before the pepper?") == order.Ordered(
        "add salt to it", "before", "add the pepper"
    )
    assert order.parse("salsa or oregano, which went in first?") == order.Ordered(
        "add salsa", "first", "add oregano"
    )


def test_short_forms_people_ask_in() -> None:
    from edge_assist.answers import order

    assert as_wearers("is the cheese on yet?") == "did I add the cheese?"
    assert as_wearers("is the oven on?") == "is the oven on?"  # switched on, not put on
    assert as_wearers("have I rolled it up yet?") == "did I roll it up yet?"
    assert as_wearers("have I got any eggs left?") == "have I got any eggs left?"  # having, not doing
    assert order.parse("shallot before garlic in the pan?") == order.Ordered(
        "add the shallot", "before", "add the garlic"
    )
    assert order.parse("the salt before the pepper?") == order.Ordered(
        "add the salt", "before", "add the pepper"
    )
    assert order.parse("stir before the salt?") is None and order.parse("what before the eggs?") is None


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        # a statement said with a rising voice is asked
        ("The oregano went in?", "did I add the oregano?"),
        ("The garlic went in after the balsamic?", "did I add the garlic after the balsamic?"),
        ("So the flour only went in after the sauce?", "did I add the flour after the sauce?"),
        ("So the onion's gone into the bowl?", "did I add the onion into the bowl?"),
        ("The egg's been whisked?", "did I whisk the egg?"),
        ("The butter has been melted?", "did I melt the butter?"),
        ("I added the sugar?", "did I add the sugar?"),
        ("I did centrifuge the samples two times?", "did I centrifuge the samples two times?"),
        ("are the eggs beaten?", "did I beat the eggs?"),
        ("Was the flour in before the milk?", "did I add the flour before the milk?"),
        ("Was the oil heated over a medium-high flame?", "did I heat the oil over a medium-high flame?"),
        ("is the pan hot?", "is the pan hot?"),
        # a telling, then a question, is no statement asked back
        ("ok i stirred it what now", "i stirred it what now"),
        # checks, reminders and lead-ins ask the act
        ("Check I've put the vanilla in.", "did I put the vanilla in."),
        ("Remind me how much flour went in.", "how much flour did I add."),
        ("The sugar's gone in, hasn't it?", "did I add the sugar?"),
        ("Did I remember to add the salt?", "did I add the salt?"),
        ("Tell me, did I add the eggs?", "did I add the eggs?"),
        ("Oh dear, did I forget the baking powder?", "did I forget the baking powder?"),
        ("Now, when did the cheese go on?", "when did I add the cheese?"),
        ("Has everything been mixed?", "did I mix everything?"),
        ("The milk - has it gone in?", "did I add the milk?"),
        ("the fruit I cut up, did it go on the plate", "did I add the fruit on the plate"),
        ("Near the start, what did I do?", "what did I do Near the start?"),
        # "is in", not a possessive; a tag is no pronoun of a thing named first
        ("the honey's in?", "did I add the honey?"),
        ("the honey is in, isn't it?", "did I add the honey?"),
        ("there's salt in it?", "did I add salt?"),
        ("the tofu got pressed before frying?", "did I press the tofu before frying?"),
        ("quick check, did the honey go in?", "did I add the honey?"),
        ("hold on, did I add honey?", "did I add honey?"),
        # a time said first places the act it asks about
        ("before the eggs went in, did I heat the pan?", "did I heat the pan before the eggs went in?"),
        (
            "while the mushrooms were browning, was I stirring them?",
            "was I stirring them while the mushrooms were browning?",
        ),
        # ... but not a time that only says when the wearer asks, nor one still to come
        ("before I forget, did I salt it?", "did I salt it?"),
        ("before I lock up, did I wipe the counter?", "did I wipe the counter?"),
        # the thing said first, what it was after it (which of its kind: used); the thing asked before the act
        ("the cheese on there, that was parmesan, yeah?", "did I use parmesan cheese?"),
        ("Was it two tomatoes I sliced up?", "did I slice two tomatoes up?"),
        ("was it the big knife that I cut with?", "did I cut with the big knife?"),
        ("was it in the oven I put it?", "did I put it in the oven?"),
        ("was that before I melted the cheese?", "was that before I melted the cheese?"),
        # a food and where it went, no verb
        ("milk in the eggs?", "did I add the milk in the eggs?"),
        (
            "after the shallot went in, how long did I cook it?",
            "how long did I cook it after the shallot went in?",
        ),
        # a lid on a vessel covers it; a lid elsewhere is where it was
        ("was the lid on while the tomatoes softened?", "did I cover it while the tomatoes softened?"),
        ("was the lid on the pan?", "did I cover the pan?"),
        ("was the lid on the counter?", "was the lid on the counter?"),
        ("lettuce first and then the egg on top, right?", "did I add the lettuce before the egg on top?"),
    ],
)
def test_statements_checks_and_lead_ins_are_asked_as_the_act(asked: str, said: str) -> None:
    from edge_assist.text.spoken_questions import plain

    assert as_wearers(plain(asked)) == said


@pytest.mark.parametrize(
    "said",
    [
        "after that, what did I do?",  # a follow-up: the time leans on the last answer
        "and the egg, is that in yet?",  # a thing named first is what is asked about
    ],
)
def test_an_opening_that_names_what_is_asked_stays(said: str) -> None:
    from edge_assist.text.spoken_questions import plain

    assert plain(said) == said
