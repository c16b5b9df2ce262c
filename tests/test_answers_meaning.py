"""Questions in the wearer's own words: the act and the thing matched to memory by meaning, a
"No" said only when earned, and every verb of an answer in the past.

The rules are checked on their own; the answers over the whole demo recording's memory (real
MiniLM, SmolLM2, sqlite-vec; clip level only, so building it costs no model call)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from edge_assist.answers import earned_no, meaning, order
from edge_assist.answers.answer_record import times_in
from edge_assist.answers.order_from_clips import by_things
from edge_assist.evaluation.qa_scoring import said_no, said_yes
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.memory.api import CaptionRecord
from edge_assist.reasoning.answer_text import DONT_REMEMBER, tell
from edge_assist.retrieval.api import Moment
from edge_assist.runtime.assistant import EgoMemoAssistant
from edge_assist.text.action_families import same_act
from edge_assist.text.kinds_of_things import covers, same_thing
from tests.assistant_memory import clip_level_assistant, demo_stream

CHEESE = "sprinkle 1 tablespoon of cheese on cup"
LETTUCE = "Line the bottom piece of the English muffin with lettuce"
SALSA = "Top cup with 1 tablespoon of salsa"


def test_the_same_act_in_other_words_and_siblings_kept_apart() -> None:
    assert same_act("add", "sprinkle") and same_act("add", "line") and same_act("crack", "pour")
    assert same_act("use", "microwave") and same_act("chop", "slice")
    assert not same_act("peel", "chop") and not same_act("stir", "microwave") and not same_act("add", "cut")
    # the kitchen's other words: a dip coats, a plate serves, juicing squeezes, binning discards
    assert same_act("coat", "dip") and same_act("dip", "dredge") and same_act("put", "serve")
    assert same_act("juice", "squeeze") and same_act("fry", "stir-fry") and same_act("discard", "bin")
    assert same_act("sprinkle", "sift") and same_act("cut", "segment") and same_act("fill", "refill")
    assert not same_act("dip", "cut") and not same_act("serve", "wash") and not same_act("juice", "heat")
    # words of other kitchens and of British English: caramelise fries, liquidise blends, a
    # marinade steeps, shelling peels; steeping is no heating, shelling no cutting
    assert same_act("fry", "caramelise") and same_act("blend", "liquidise") and same_act("marinate", "soak")
    assert same_act("peel", "shell") and same_act("open", "uncover") and same_act("sift", "sieve")
    assert not same_act("steep", "heat") and not same_act("shell", "cut") and not same_act("uncover", "cover")
    assert covers("vegetable", "lettuce") and covers("dairy", "cheese") and covers("seasoning", "cumin")
    assert not covers("dairy", "lettuce") and not covers("lettuce", "vegetable")
    # the kinds hold foods of other kitchens than the recipes': a parsnip, chorizo, naan, tahini
    assert covers("vegetable", "parsnip") and covers("meat", "chorizo") and covers("bread", "naan")
    assert covers("condiment", "tahini") and covers("fruit", "grapefruit") and not covers("fruit", "parsnip")
    # one thing under the names of other kitchens: mince is ground beef, a colander is a sieve
    assert (
        same_thing("mince", "ground-beef")
        and same_thing("colander", "sieve")
        and same_thing("swede", "rutabaga")
    )


def test_a_verb_with_off_or_out_that_takes_a_thing_away_removes_it() -> None:
    assert meaning.parse("take the stalks off", verb_first=True).verb == "remove"
    assert meaning.parse("pull out the seeds").verb == "remove"
    assert meaning.caption_verbs("I drew out mushroom stems.") == [(1, "draw"), (1, "remove")]
    assert meaning.read("take the stalks off", "I drew out mushroom stems.").restated is not None
    assert meaning.read("remove the stems", "I drew out mushroom stems.").restated is not None
    assert meaning.parse("take the bowl").verb == "take"  # taking alone is not removing
    assert meaning.parse("take the stalks off the mushrooms") == meaning.Asked("remove", 1, "stalk", 2, 0)
    assert meaning.parse("tear the muffin open").thing == "muffin"  # what it was left as is no thing


def test_eggs_poured_somewhere_are_not_salted() -> None:
    poured = "I emptied the egg blend into the skillet."
    assert meaning.read("salt the eggs", poured).restated is None
    assert meaning.read("add the eggs", poured).restated is not None


def test_a_food_asked_as_where_a_thing_went_is_in_the_vessel_the_caption_names() -> None:
    milk = "To the dish, I'm tipping in one tablespoon milk."
    assert meaning.restate("put milk in the eggs", milk) == "tipping milk"
    assert meaning.restate("put milk in the mug", milk) is None  # a vessel asked is a vessel
    # ...and a bowl may be the dish: one vessel is called either (contents.one_vessel)
    assert meaning.restate("put milk in the bowl", milk) == "tipping milk in the dish"
    assert meaning.restate("put cheese on the eggs", "Sprinkling cheese on the toast.") is None
    assert meaning.restate("put milk in the eggs", "I poured milk.") is None


def test_a_thing_put_in_an_appliance_undergoes_the_appliance_s_act() -> None:
    zapped = "Now I am zapping the stuff of the cup for one min."
    assert meaning.implied("put it in the microwave") == "microwave it"
    assert meaning.implied("put the oil in the pan") == "put the oil in the pan"  # a pan is added to
    assert meaning.restate("first put it in the microwave", zapped) == "first zapping it"


def test_covering_with_a_substance_is_not_putting_a_lid_on() -> None:
    sprayed = "Now I am covering a six - oz. ramekin mug with cooking spray."
    assert meaning.read("cover the ramekin", sprayed) == meaning.Reading(None, True)
    assert meaning.read("cover the ramekin", "I covered the ramekin with a plate.").other_act is False
    assert meaning.restate("cover the ramekin with spray", sprayed) is not None


def test_a_question_is_restated_in_the_caption_s_words_only_about_the_same_thing() -> None:
    assert meaning.restate("add cheese", CHEESE) == "sprinkle cheese"
    assert meaning.restate("add lettuce", LETTUCE) == "Line lettuce"
    assert meaning.restate("crack an egg", "Pour 1 egg into the ramekin cup") == "Pour an egg"
    assert meaning.restate("add any vegetables", LETTUCE) == "Line any lettuce"
    assert meaning.restate("add the eggs", "Pour 1 egg into the ramekin cup") == "Pour the egg"
    # a sibling step with another thing, or another act on the same thing, is not restated
    assert meaning.restate("add salt", SALSA) is None
    assert meaning.restate("peel the garlic", "Chop 1 garlic clove") is None
    assert meaning.parse("sprinkle 1 tablespoon of cheese on cup").thing == "cheese"
    assert meaning.parse("line the bottom piece of the English muffin").thing == "muffin"


def test_an_order_question_is_two_acts_each_starting_with_its_verb() -> None:
    assert order.parse("did I add the salsa before the cheese?") == order.Ordered(
        "add the salsa", "before", "add the cheese"
    )
    assert order.parse("did I stir the egg before adding the salsa?") == order.Ordered(
        "stir the egg", "before", "add the salsa"
    )
    assert order.parse("did I cut the muffin after I poured the egg?") == order.Ordered(
        "cut the muffin", "after", "pour the egg"
    )
    assert order.parse("did the garlic go in before the shallot?") == order.Ordered(
        "add the garlic", "before", "add the shallot"
    )
    # where the thing went says the act: a microwave acts on it
    assert order.parse("did I whisk the egg before it went in the microwave?") == order.Ordered(
        "whisk the egg", "before", "microwave the egg"
    )
    assert order.parse("what did I do right after cracking the egg?") is None
    assert order.parse("did I add cheese?") is None


def _clip(i: int, t0: float, t1: float, text: str) -> CaptionRecord:
    return CaptionRecord("s", i, t0, t1, text)


def _moment(c: CaptionRecord) -> Moment:
    return Moment(c.session_id, c.clip_index, c.t0, c.t1, c.text, 0.5)


def test_two_things_put_in_are_ordered_by_every_clip_that_names_them() -> None:
    clips = [
        _clip(0, 10.0, 34.0, "I tossed in a quarter tsp vanilla extract to the cup."),
        _clip(1, 35.0, 83.0, "In a big cup, I liquefied one tablespoon of softened butter in the microwave."),
        _clip(2, 84.0, 97.0, "In the cup to coat it, I'm rolling up the butter around."),
        _clip(3, 100.0, 120.0, "I'm scattering red pepper bits and a pinch of salt over the egg."),
    ]
    butter_first = order.Ordered("add the butter into the mug", "before", "add the vanilla")
    said, moments = by_things(butter_first, clips) or ("", [])
    assert said.startswith("No: at 0:10 you tossed in") and "then at 0:35" in said
    assert [m.clip_index for m in moments] == [1, 0]  # the act asked about first
    told = by_things(order.Ordered("add the vanilla", "after", "add the butter"), clips)
    assert told is not None and told[0].startswith("No:")
    told = by_things(order.Ordered("add the vanilla", "first", "add the butter"), clips)
    assert told is not None and told[0].startswith("At 0:10 you tossed in")
    # one clip names both: their order is not told
    assert by_things(order.Ordered("add the salt", "before", "add the pepper"), clips) is None
    # the black pepper is not the red pepper; a tool, a vague word or another act is no thing put in
    assert by_things(order.Ordered("add the black pepper", "after", "add the butter"), clips) is None
    assert by_things(order.Ordered("add the cup", "before", "add the butter"), clips) is None
    assert by_things(order.Ordered("add the stuff", "before", "add the butter"), clips) is None
    assert by_things(order.Ordered("roll the butter", "after", "add the vanilla"), clips) is None
    # a thing named on both sides of the other: either may have gone in first
    again = [*clips, _clip(4, 130.0, 140.0, "I add a drop more vanilla.")]
    assert by_things(butter_first, again) is None
    # the clips that put a thing in stand for it: the can opened first is not the tuna going in
    tuna = [
        _clip(0, 48.0, 90.0, "Now I am opening a can of tuna."),
        _clip(1, 395.0, 430.0, "I'm squeezing one teaspoon sriracha sauce to the basin."),
        _clip(2, 437.0, 460.0, "Now I am tipping in one can drained tuna to the dish."),
        _clip(3, 740.0, 770.0, "I tipped in a quarter tsp salt to the dish."),
        _clip(4, 780.0, 800.0, "To the dish, I'm tossing in a quarter tsp pepper."),
    ]
    told = by_things(order.Ordered("add the sriracha", "before", "add the tuna"), tuna)
    assert told is not None and told[0].startswith("Yes: at 6:35")
    # "a quarter tsp pepper" may be the black pepper asked about: no other kind is said
    told = by_things(order.Ordered("add the salt", "before", "add the black pepper"), tuna)
    assert told is not None and told[0].startswith("Yes: at 12:20")


def test_a_no_needs_memory_of_the_whole_time_and_a_thing_named_nowhere() -> None:
    clips = [_clip(0, 1.0, 30.0, "Pour 1 egg into the ramekin cup"), _clip(1, 40.0, 80.0, SALSA)]
    assert earned_no.covers(clips, 100.0) and earned_no.covers(clips, float("inf"))
    assert not earned_no.covers(clips, 400.0)  # the last minutes are not in memory
    assert not earned_no.covers([_clip(0, 1.0, 30.0, "x"), _clip(1, 300.0, 310.0, "y")], 320.0)
    assert not earned_no.covers([], 10.0)
    assert earned_no.asked_things("add salt to my eggs") == ["salt", "egg"]
    assert earned_no.asked_things("skip anything") == []
    missing = earned_no.unseen("add salt", clips, None, [])
    assert missing is None  # without word vectors, another wording cannot be ruled out
    assert earned_no.unseen("add the eggs", clips, None, []) is None
    stems = [
        _clip(0, 1.0, 30.0, "I drew out mushroom stems."),
        _clip(1, 40.0, 80.0, "I rinse the mushrooms."),
    ]

    # a word no lexicon knows may be named otherwise: its absence earns no No
    def alone(focus: str) -> tuple[list[str], np.ndarray]:  # word vectors near no word of memory
        words = focus.split()
        return words, np.eye(len(words), 384, dtype=np.float32)

    assert earned_no.unseen("add salt", stems, alone("add salt"), []) == earned_no.Unseen("salt", 0.0)
    assert earned_no.unseen("take off the husks", stems, alone("take off the husks"), []) is None
    assert earned_no.unseen("take the stalks off", stems, alone("take the stalks off"), []) is None  # stems


def test_an_answer_tells_every_verb_in_the_past() -> None:
    assert tell("C comes back and grabs the knife", 60.0) == "At 1:00 you came back and grabbed the knife."
    assert tell("The person takes the cup and pours water", 60.0) == (
        "At 1:00 you took the cup and poured water."
    )
    assert tell("Heat the oil then add garlic", 60.0) == "At 1:00 you heated the oil then added garlic."
    assert tell("Stir until cheese melts and serve", 60.0) == (
        "At 1:00 you stirred until cheese melts and served."
    )
    assert tell("C washes the plates and bowls", 60.0) == "At 1:00 you washed the plates and bowls."


@pytest.fixture(scope="module")
def demo(
    tmp_path_factory: pytest.TempPathFactory, llm: LLM, text_encoder: TextEncoder
) -> Iterator[EgoMemoAssistant]:
    with clip_level_assistant(
        tmp_path_factory.mktemp("demo-meaning"), "demo", llm, text_encoder, demo_stream()[1]
    ) as a:
        yield a


def _said_at(text: str) -> list[float]:
    return times_in(text)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "t0"),
    [
        ("did I add cheese?", 255.9),
        ("did I add lettuce?", 201.0),
        ("did I crack an egg?", 1.4),
        ("did I add any vegetables?", 201.0),
    ],
)
async def test_the_demo_s_questions_in_own_words_are_yes_with_the_time(
    demo: EgoMemoAssistant, question: str, t0: float
) -> None:
    sid = demo_stream()[0]["session_id"]
    ans = await demo.answer(question, session_id=sid)
    assert said_yes(ans.text), ans.text
    assert any(abs(t - t0) <= 20 for t in _said_at(ans.text)), ans.text


@pytest.mark.slow
async def test_when_in_own_words_and_an_earned_no_tells_what_was_seen(demo: EgoMemoAssistant) -> None:
    sid = demo_stream()[0]["session_id"]
    when = await demo.answer("when did I add the cheese?", session_id=sid)
    assert any(abs(t - 255.9) <= 20 for t in _said_at(when.text)), when.text
    # a sibling step with another thing is not a yes; salt is named nowhere, so the No is earned
    # and says what was done instead
    salt = await demo.answer("did I add salt?", session_id=sid)
    assert said_no(salt.text) and "salsa" in salt.text and "add salt" in salt.text, salt.text
    assert salt.trace["no"].startswith("earned")
    # memory names the muffin, and heats a cup whose contents no clip names: toasting is not shown
    # absent, so no "No"
    muffin = await demo.answer("did I toast the muffin?", session_id=sid)
    assert not said_yes(muffin.text) and not said_no(muffin.text), muffin.text
    # peeling it is told nowhere, on nothing: that "No" is earned, said with what was done to it
    peel = await demo.answer("did I peel the muffin?", session_id=sid)
    assert said_no(peel.text) and "peel the muffin" in peel.text, peel.text
    # buttering puts butter on it, and butter is named nowhere: that No is earned
    butter = await demo.answer("did I butter the muffin?", session_id=sid)
    assert said_no(butter.text) and "butter the muffin" in butter.text, butter.text
    # the order of two acts, each found by meaning, both told in time order
    before = await demo.answer("did I add the salsa before the cheese?", session_id=sid)
    assert before.text.startswith("Yes: at 3:39") and "then at 4:16" in before.text, before.text
    after = await demo.answer("did I add the cheese before the salsa?", session_id=sid)
    assert after.text.startswith("No: at 3:39") and "then at 4:16" in after.text, after.text
    # a day the session does not cover is never answered "No"
    yesterday = await demo.answer("did I add bacon yesterday?", session_id=sid)
    assert yesterday.text == DONT_REMEMBER


@pytest.mark.slow
async def test_an_order_question_with_one_act_unseen_rests_on_neither(demo: EgoMemoAssistant) -> None:
    sid = demo_stream()[0]["session_id"]
    # the salsa was added, the toasting may have been (a cup is heated whose contents no clip
    # names): the salsa moment alone says nothing of their order
    told = await demo.answer("did I toast the muffin before the salsa?", session_id=sid)
    assert not said_yes(told.text) and not said_no(told.text), told.text
    # salt is named nowhere: salting never happened, so it came before nothing, as "did I add
    # salt?" is a "No"
    salt = await demo.answer("did I salt the cup before the salsa?", session_id=sid)
    assert said_no(salt.text) and "didn't see you add salt to the cup" in salt.text, salt.text
    assert salt.trace["order"][3] == "the first act never seen"


@pytest.mark.slow
async def test_did_i_forget_is_answered_from_the_same_evidence_turned_round(demo: EgoMemoAssistant) -> None:
    sid = demo_stream()[0]["session_id"]
    cheese = await demo.answer("did I forget to add the cheese?", session_id=sid)
    assert cheese.text.startswith("No, you didn't forget") and "4:16" in cheese.text, cheese.text
    salt = await demo.answer("did I forget the salt?", session_id=sid)
    assert salt.text.startswith("Yes, it looks like it") and "add the salt" in salt.text, salt.text


@pytest.mark.slow
async def test_a_setting_asked_otherwise_than_done_is_a_no_resting_on_the_moment(
    demo: EgoMemoAssistant,
) -> None:
    sid = demo_stream()[0]["session_id"]
    low = await demo.answer("did I microwave the cup on low power?", session_id=sid)
    assert low.text.startswith("No: at") and low.text.endswith("(high, not low)."), low.text
    assert low.moment is not None and low.trace["contradicted"]["observed"] == "high"
    high = await demo.answer("did I microwave the cup on high?", session_id=sid)
    assert said_yes(high.text), high.text


@pytest.mark.slow
async def test_more_eggs_than_memory_counts_is_a_no_resting_on_the_moment(demo: EgoMemoAssistant) -> None:
    sid = demo_stream()[0]["session_id"]
    two = await demo.answer("did I crack two eggs?", session_id=sid)
    assert two.text.startswith("No: at 0:01") and two.text.endswith("(one, not two)."), two.text
    assert two.trace["contradicted"]["kind"] == "count"
    one = await demo.answer("did I crack one egg?", session_id=sid)
    assert said_yes(one.text), one.text


def test_a_two_word_name_is_one_thing_and_a_purpose_is_not_an_act() -> None:
    assert meaning.things("chop a spring onion for the wraps") == ["spring-onion"]
    assert (
        meaning.restate("chop a spring onion for the wraps", "I am chopping one scallion.")
        == "chop a scallion"
    )
    assert meaning.restate("chop a spring onion", "I am chopping one onion.") is None
    # a time said with "for" is kept: it tells which time the act was done
    assert "first minute" in (
        meaning.restate("heat the onion for the first minute", "Frying one onion.") or ""
    )


def test_a_thing_that_is_only_where_another_was_put_was_not_put() -> None:
    egg_on = "On top of the tortilla, I'm tipping egg blend."
    assert meaning.read("put the tortilla down", egg_on).as_place
    assert not meaning.read("put the tortilla down", "On a cutting board, I'm putting the tortilla.").as_place
    assert not meaning.read("add lettuce", LETTUCE).as_place  # lined with it: the lettuce went in
    assert meaning.PLACE_WEIGHT < meaning.OTHER_ACT_WEIGHT


def test_the_green_stuff_is_the_green_things() -> None:
    assert meaning.parse("chop the green stuff").thing == "green"
    assert meaning.restate("chop the green stuff", "I'm dicing one tbsp cilantro.") == "dicing the cilantro"
    assert meaning.parse("add the stuff").thing == "stuff"  # nothing before it to name the thing


def test_a_sauce_named_by_its_kind_is_that_sauce() -> None:
    sriracha = "To the basin, I am putting in one teaspoon sriracha sauce."
    assert meaning.restate("add hot sauce", sriracha) == "putting sriracha"
    assert not meaning.read("add hot sauce", sriracha).as_place  # "putting in" is no place
    assert meaning.restate("add the tomato sauce", "Smearing marinara sauce on the batter.") is not None


def test_a_thing_named_by_its_look_is_a_thing_that_looks_so() -> None:
    assert meaning.restate("add the yellow fruit", "I tipped one banana into the blender") == (
        "tipped the banana"
    )
    assert meaning.restate("add the yellow fruit", "I put the strawberries in the blender") is None
    assert meaning.restate("add the red sauce", "Spread 1 tablespoon of marinara over the mug") is not None
    assert meaning.restate("add the little red bits", "Add the pimientos to the bowl") is not None
    assert meaning.restate("add the brown spice", "Sprinkle salt on top") is None


def test_describing_words_the_caption_does_not_say_are_left_out_but_a_variety_stays() -> None:
    assert meaning.restate("add the herby seasoning", "With italian seasoning, I'm garnishing platter.") == (
        "garnishing the seasoning"
    )
    assert meaning.restate("use whole milk", "pour skimmed milk") == "pour whole milk"


def test_an_act_said_alone_is_restated_by_the_captions_verb_for_it() -> None:
    assert meaning.restate("blitz", "Blend the mixture in a blender for 20 secs") == "Blend"
    assert meaning.restate("blitz", "I tossed one banana in a blender") is None
    assert order.parse("did I add the onion ahead of the garlic?") == order.Ordered(
        "add the onion", "before", "add the garlic"
    )


def test_a_thing_cooked_in_a_pan_had_gone_in_it() -> None:
    melted = "In a steel frying skillet on low heat, I'm melting a little knob of butter."
    assert meaning.restate("add the butter in the pan", melted) == "melting the butter in the skillet"
    assert meaning.restate("add the salt", melted) is None  # the thing must be there
    assert meaning.restate("add the butter", "Melt the butter in the microwave") is None  # no pan


def test_a_thing_asked_by_its_name_giving_word_is_the_captions_thing() -> None:
    vinegar = "Now I am putting in one tablespoon balsamic vinegar to the skillet."
    assert meaning.restate("add the balsamic", vinegar) == "putting the balsamic vinegar"
    # a word that is a thing of its own names that thing, not the caption's compound
    assert meaning.restate("add the tomato", "I poured tomato sauce on the pizza.") == "poured the tomato"
