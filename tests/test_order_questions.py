"""Order questions: an order's "No" needs every moment of both acts to agree, and a moment that
tells only other acts tells neither."""

from __future__ import annotations

from edge_assist.answers import order
from edge_assist.retrieval.api import Moment


async def test_an_order_no_needs_every_moment_of_both_acts_to_agree() -> None:
    salt_late = Moment("s", 5, 300.0, 310.0, "Add salt to the pan", 0.9)
    salt_early = Moment("s", 1, 20.0, 30.0, "Sprinkle salt on the eggs", 0.8)
    pepper = Moment("s", 3, 100.0, 110.0, "Add pepper to the pan", 0.9)
    found = {"add the salt": [salt_late], "add the pepper": [pepper]}
    weak: dict[str, list[Moment]] = {"add the salt": [], "add the pepper": []}

    async def find(focus: str) -> order.Found:
        return order.Found(found[focus], found[focus] + weak[focus])

    asked = order.Ordered("add the salt", "before", "add the pepper")
    told = await order.answer(asked, find)
    assert told is not None and told[0].startswith("No: at 1:40")
    # a weaker moment of the salt before the pepper may be the act: no "No" on the stronger one
    weak["add the salt"] = [salt_early]
    assert await order.answer(asked, find) is None
    # ...while a "Yes" is still said when the offered moments agree
    assert (told := await order.answer(order.Ordered("add the pepper", "before", "add the salt"), find))
    assert told[0].startswith("Yes: at 1:40")
    weak["add the salt"] = []
    found["add the salt"] = [salt_late, salt_early]  # salt went in twice, once before the pepper
    assert (told := await order.answer(asked, find)) and told[0].startswith("Yes: at 0:20")


async def test_before_an_act_told_twice_is_before_its_first_time() -> None:
    """ "Did I grease the cup before the egg went in?": the egg tipped in at 0:00 and placed on the
    lettuce at 5:55 is asked against its first time; the oil at 2:17 came after it."""
    egg_in = Moment("s", 0, 0.0, 31.0, "I tipped one egg in the dish.", 0.6)
    egg_out = Moment("s", 10, 355.0, 377.0, "From the mug under the lettuce, I'm placing the egg.", 0.6)
    oil = Moment("s", 3, 137.0, 147.0, "I put some cooking oil in a six - oz. ramekin mug.", 0.5)
    found = {"add fat to the cup": [oil], "add the egg": [egg_out, egg_in]}
    weak: dict[str, list[Moment]] = {"add fat to the cup": [], "add the egg": []}

    async def find(focus: str) -> order.Found:
        return order.Found(found[focus], found[focus] + weak[focus])

    asked = order.Ordered("add fat to the cup", "before", "add the egg")
    told = await order.answer(asked, find)
    assert told is not None and told[0].startswith("No: at 0:00 you tipped one egg in the dish, then at 2:17")
    # a weaker moment that may be the greasing, before the egg: no "No"
    weak["add fat to the cup"] = [Moment("s", 0, 0.0, 20.0, "I wipe the cup with an oiled towel.", 0.2)]
    assert await order.answer(asked, find) is None
    # "after" one of two times says nothing of which: no answer
    weak["add fat to the cup"] = []
    assert await order.answer(order.Ordered("add fat to the cup", "after", "add the egg"), find) is None


def test_a_moment_telling_only_other_acts_tells_no_act_of_an_order() -> None:
    set_in = Moment("s", 2, 414.0, 447.0, "In the microwave-safe dish, I'm setting the diced pepper.", 0.9)
    zapped = Moment("s", 5, 539.0, 560.0, "For two mins, I'm microwaving the peppers, covered.", 0.5)
    found = order.telling("microwave the peppers", order.Found([set_in, zapped], [set_in, zapped]))
    assert found == order.Found([zapped], [zapped])


def test_an_act_told_as_not_done_stays_a_moment_of_it() -> None:
    unwashed = Moment("s", 3, 175.0, 216.0, "Now I am dicing one unwashed strawberry.", 0.6)
    found = order.Found([unwashed], [unwashed])
    assert order.telling("wash the strawberry", found) == found


def _parsed(said: str) -> order.Ordered | None:
    from edge_assist.text.question_voice import as_wearers
    from edge_assist.text.spoken_questions import plain

    return order.parse(as_wearers(plain(said)))


def test_an_order_said_with_and_then_or_either_way_is_an_order_question() -> None:
    told = _parsed("so I chopped the tomato and then the cucumber, right?")
    assert told == order.Ordered("chop the tomato", "before", "chop the cucumber")
    either = _parsed("did I turn on the oven before or after mixing the batter?")
    assert either == order.Ordered("turn on the oven", "either", "mix the batter")  # said "Before"/"After"
    firsts = _parsed("did I peel the potatoes first or wash them first?")
    assert firsts is not None and firsts.word == "first" and firsts.first == "peel the potatoes"


def test_done_already_when_another_act_came_is_done_before_it() -> None:
    had = _parsed("had I already chopped the garlic when I heated the pan?")
    assert had == order.Ordered("chop the garlic", "before", "heat the pan")
    placed = _parsed("was the butter in the pan before the eggs?")
    assert placed == order.Ordered("add the butter", "before", "add the eggs")


async def test_before_or_after_is_answered_by_the_word_never_by_a_no() -> None:
    salsa = Moment("s", 2, 186.0, 250.0, "I topped mug with two tbsp of salsa.", 0.9)
    cheese = Moment("s", 6, 439.0, 480.0, "I'm sprinkling one tbsp of cheese on mug.", 0.9)
    found = {"add the cheese": [cheese], "add the salsa": [salsa]}

    async def find(focus: str) -> order.Found:
        return order.Found(found[focus], found[focus])

    told = await order.answer(order.Ordered("add the cheese", "either", "add the salsa"), find)
    assert told is not None and told[0].startswith("After: at 3:06")
    told = await order.answer(order.Ordered("add the salsa", "either", "add the cheese"), find)
    assert told is not None and told[0].startswith("Before: at 3:06")


def test_a_second_act_told_with_no_thing_orders_against_the_first() -> None:
    from edge_assist.answers.order_from_clips import second_told_bare
    from edge_assist.memory.api import CaptionRecord

    clips = [
        CaptionRecord("s", 0, 4.0, 60.0, "To a microwave-safe dish, I'm tossing in an egg."),
        CaptionRecord("s", 1, 110.0, 150.0, "I zapped for two mins, without stirring in between."),
        CaptionRecord("s", 2, 344.0, 355.0, "Now I am beating the egg."),
    ]
    beat = Moment.of_clip(clips[2], 0.9)
    first = order.Found([beat], [beat])
    before = order.Ordered("whisk the egg", "before", "microwave the egg")
    told = second_told_bare(before, first, clips)
    assert told is not None and told[0].startswith("No: at 1:50 you zapped for two mins"), told
    told = second_told_bare(order.Ordered("whisk the egg", "after", "microwave the egg"), first, clips)
    assert told is not None and told[0].startswith("Yes: at 1:50"), told
    # a zap of a named bowl may be of another thing; a first act on both sides says no order
    bowl = [*clips[:1], CaptionRecord("s", 1, 110.0, 150.0, "I zapped the bowl for two mins."), clips[2]]
    assert (
        second_told_bare(order.Ordered("whisk the egg", "before", "microwave the egg"), first, bowl) is None
    )
    early = Moment.of_clip(CaptionRecord("s", 9, 20.0, 30.0, "Whisking the egg."), 0.5)
    both = order.Found([beat], [beat, early])
    assert (
        second_told_bare(order.Ordered("whisk the egg", "before", "microwave the egg"), both, clips) is None
    )


async def test_the_first_time_of_an_act_may_be_a_weaker_moment_whose_verb_tells_it() -> None:
    zap1 = Moment("s", 3, 343.9, 398.0, "Now I am zapping the ramekin mug uncovered on full power.", 0.5)
    stir = Moment("s", 4, 398.5, 433.0, "Now I am stirring the ramekin mug.", 0.9)
    zap2 = Moment("s", 8, 541.3, 560.0, "I zapped just till cheese melts, around ten secs.", 0.9)
    fill = Moment("s", 1, 79.6, 100.0, "Into the ramekin mug, I'm tipping one egg.", 0.4)
    found = {"stir it": order.Found([stir], [stir]), "zap": order.Found([zap2], [zap2, zap1])}

    async def find(focus: str) -> order.Found:
        return found[focus]

    told = await order.answer(order.Ordered("stir it", "after", "zap", "first"), find)
    assert told is not None and told[0].startswith("Yes: at 5:44 you were zapping"), told
    # an earlier moment that may tell the act but whose verb does not leaves the first time unknown
    found["zap"] = order.Found([zap2], [zap2, zap1, fill])
    assert await order.answer(order.Ordered("stir it", "after", "zap", "first"), find) is None


def test_it_may_stand_for_either_thing_of_the_first_act() -> None:
    import asyncio

    asked = order.parse("did I add the bread into the egg before it was microwaved?")
    assert asked is not None and (asked.second, asked.second_else) == (
        "microwave the bread",
        "microwave the egg",
    )
    # "they" is the thing said in the plural: no other reading
    eggs = order.parse("did I mix the cilantro into the eggs before they went in the pan?")
    assert eggs is not None and (eggs.second, eggs.second_else) == ("add the eggs", "")

    zap = Moment("s", 4, 127.0, 187.0, "Now I am nuking on full power till the egg is cooked through.", 0.6)
    bread = Moment("s", 8, 242.0, 275.0, "I'm tossing in bread chunks to the egg mix in the cup.", 0.6)

    async def find(focus: str) -> order.Found:
        hit = {"add the bread into the egg": bread, "microwave the egg": zap}.get(focus)
        return order.Found([hit], [hit]) if hit else order.Found([], [])

    said = asyncio.run(order.answer(asked, find))
    assert said is not None and said[0].startswith("No: at 2:07 you were nuking"), said


def test_a_thing_done_is_its_cooking_at_its_end() -> None:
    asked = order.parse("did i chop the strawberry after the pancakes were done")
    assert asked is not None and (asked.second, asked.second_which) == ("cook the pancakes", "last")
