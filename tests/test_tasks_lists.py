"""A wearer's own list task, interruptions and unscripted activity, with the real tracker and the
real text encoder: a list's order is a default, a step taken up again continues, and no task
under way means no task alerts."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.clock import RealClock
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.phrasing import template
from edge_assist.tasks import findings as F
from edge_assist.tasks.library import LIST_TASK, TaskLibrary
from edge_assist.tasks.listed import list_task
from edge_assist.tasks.session import NO_TASK, TaskSession
from edge_assist.tasks.tracker import StepTracker, TrackerParams
from edge_assist.tasks.vector_cache import VectorCache
from tests.test_tasks_list_orders import TEA

pytestmark = pytest.mark.slow  # loads the text encoder


@pytest.fixture(scope="module")
def vc(text_encoder: TextEncoder) -> VectorCache:
    return VectorCache(text_encoder.encode)


def _kinds(states: list) -> list[list[str]]:
    return [[f.kind for f in s.findings] for s in states]


def _track(vc: VectorCache, captions: list[str]) -> list:
    tr = StepTracker(list_task("tea", "Make tea", TEA), vc.get, vectors=vc)
    return [tr.observe(c) for c in captions]


def test_a_swap_of_listed_steps_that_share_nothing_is_not_flagged(vc: VectorCache) -> None:
    # The tea bag before the kettle: the list puts it third, but nothing ties the two.
    states = _track(
        vc,
        [
            "I put a tea bag in the mug",
            "I fill the kettle with water",
            "Boiling the water in the kettle",
            "Pouring the boiling water into the mug",
        ],
    )
    assert [s.step_id for s in states] == ["3", "1", "2", "4"]
    assert _kinds(states) == [[], [], [], []]


def test_a_step_resumed_after_an_interruption_is_not_a_repeat_but_a_real_repeat_is(vc: VectorCache) -> None:
    resumed = _track(
        vc,
        [
            "I fill the kettle with water",
            "I put a tea bag in the mug",
            "I fill the kettle with water",
            "Boiling the water in the kettle",
        ],
    )
    assert [s.step_id for s in resumed] == ["1", "3", "1", "2"]
    assert _kinds(resumed) == [[], [], [], []]
    # Filled, boiled, poured into the mug and left to steep: filling the kettle again is a
    # round of a step that gives no amount, not a mistake.
    refilled = _track(
        vc,
        [
            "I fill the kettle with water",
            "Boiling the water in the kettle",
            "I put a tea bag in the mug",
            "Pouring the boiling water into the mug",
            "The tea steeps for three minutes",
            "I fill the kettle with water",
        ],
    )
    assert refilled[-1].step_id == "1" and _kinds(refilled) == [[]] * 6
    # A measured spoon of sugar given again, long after, is twice the sugar: told.
    sweet = (*TEA[:5], "Stir 1 tsp sugar into the tea", "Remove the tea bag")
    tr = StepTracker(list_task("tea", "Make sweet tea", sweet), vc.get, vectors=vc)
    again = [
        tr.observe(c)
        for c in [
            "I fill the kettle with water",
            "Boiling the water in the kettle",
            "I put a tea bag in the mug",
            "Pouring the boiling water into the mug",
            "I stir a teaspoon of sugar into the tea",
            "The tea steeps for three minutes",
            "I take the tea bag out of the mug",
            "I stir a teaspoon of sugar into the tea",
        ]
    ]
    assert again[-1].step_id == "6" and F.REPEATED in _kinds(again)[-1]
    assert _kinds(again)[:-1] == [[]] * 7


async def test_a_list_task_recognised_mid_way_credits_what_came_before(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    tea = tmp_path / "tea.txt"
    tea.write_text("Make a cup of tea:\n" + "".join(f"{i}. {s}\n" for i, s in enumerate(TEA, 1)))
    data = ["--set", f"general.data_dir={tmp_path / 'data'}"]
    assert main(["tasks", *data, "add", str(tea)]) == 0
    lib = TaskLibrary.load([tmp_path / "data" / "tasks"])
    ts = TaskSession(lib, text_encoder, RealClock())
    captions = [
        "I fill the kettle with water",
        "I put a tea bag in the mug",
        "Pouring water from the kettle into the mug",  # never boiled
        "Waiting a few minutes for the tea to steep",
    ]
    readings = [await ts.observe("s1", c) for c in captions]
    named = next(i for i, r in enumerate(readings) if r is not None)
    assert named >= 1 and all(r is not None and r.state.task == "tea" for r in readings[named:])
    said = [f.say() for r in readings if r is not None for f in r.state.findings]
    # The steps seen before the task was named are done, not skipped...
    assert not any("Fill the kettle" in s or "tea bag" in s for s in said)
    assert readings[-1] is not None and {"1", "3", "4"} <= set(readings[-1].state.done)
    # ...and the step really skipped is reported.
    assert any(s.startswith('Did you skip "Boil the water in the kettle"') for s in said)


async def test_ordinary_cooking_matching_one_recipe_step_adopts_no_task(text_encoder: TextEncoder) -> None:
    ts = TaskSession(TaskLibrary.load(), text_encoder, RealClock())
    captions = [
        "The person peels a garlic clove",
        "The person peels a garlic clove",
        "The person opens the fridge and looks inside",
        "The person talks on the phone",
        "The person wipes the counter with a cloth",
        "The person puts the plates in the cupboard",
    ]
    readings = [await ts.observe("s1", c) for c in captions]
    assert readings == [None] * len(captions)  # no task, so no task findings
    assert await ts.answer("s1", "what's next?") == NO_TASK


def test_a_stream_that_says_its_task_is_its_list_gets_the_list() -> None:
    lib = TaskLibrary.load()
    egg = lib.get("microwaveeggsandwich")
    assert egg is not None
    listed = "Steps: " + "; ".join(s.text for s in egg.steps)
    assert lib.resolve(listed) is egg  # the library's task, graph and all
    as_list = lib.resolve(listed, name=LIST_TASK)
    assert (
        as_list is not None
        and as_list is not egg
        and [s.text for s in as_list.steps] == [s.text for s in egg.steps]
    )


def test_a_listed_step_done_late_was_reported_skipped_and_then_out_of_order(vc: VectorCache) -> None:
    # Pouring and boiling share the water: the list's order between them is what its writer
    # meant, as in a graph (a swap of steps that share nothing is never flagged, above).
    states = _track(
        vc,
        [
            "I fill the kettle with water",
            "I put a tea bag in the mug",
            "Pouring water into the mug",  # not boiled: reported while it can be done
            "Now I boil the water in the kettle",
        ],
    )
    assert _kinds(states)[2] == [F.PREREQUISITE] and states[2].missing == ("2",)
    assert states[3].step_id == "2" and _kinds(states)[3] == [F.ORDER] and not states[3].missing


def test_a_step_still_missing_is_said_before_the_step_that_began_without_it(vc: VectorCache) -> None:
    # The tea is poured without the water boiled; the wearer then puts the bag in, a step the
    # boiling need not precede. The reminder still names the pouring, not the step now under way.
    states = _track(
        vc, ["I fill the kettle with water", "Pouring water into the mug", "I put a tea bag in the mug"]
    )
    assert [s.step_id for s in states] == ["1", "4", "3"]
    last = states[-1]
    assert last.missing == ("2",) and last.missing_for == ("4",) and last.missing_told_with == ("2",)
    said = template(None, last)
    boil, pour = "Boil the water in the kettle", "Pour the boiling water into the mug"
    assert said == f'Did you skip "{boil}"? It comes before "{pour}".'


def test_activity_that_names_nothing_of_the_task_is_no_unmatched_step(vc: VectorCache) -> None:
    # The wearer charges a phone while the kettle boils: no step, and nothing to say about it.
    states = _track(vc, ["I fill the kettle with water", "The person charges a phone battery"])
    assert states[-1].step_id == "" and states[-1].findings == ()
    # An action on the task's own things that is no step of it is still one.
    tr = StepTracker(list_task("tea", "Make tea", TEA), vc.get, vectors=vc)
    assert tr._about_the_task("The person throws the tea bag at the kettle")
    assert not tr._about_the_task("The person charges a phone battery")


def test_a_skip_or_an_order_finding_says_how_clearly_the_caption_is_the_step_read(vc: VectorCache) -> None:
    # A caption that fits the step said missing nearly as well as the step read may be that step:
    # each skip or order finding carries that gap, for the trace and the rule that needs it.
    captions = [
        "I fill the kettle with water",
        "I put a tea bag in the mug",
        "Pouring water into the mug",
        "Now I boil the water in the kettle",
    ]
    states = _track(vc, captions)
    skip, late = states[2].findings[0], states[3].findings[0]
    boil, pour = TEA[1], TEA[3]
    v = vc.get([captions[2], captions[3], pour, boil])
    assert skip.margin == pytest.approx(float(v[0] @ v[2] - v[0] @ v[3]), abs=1e-5)
    assert late.margin == pytest.approx(float(v[1] @ v[3] - v[1] @ v[2]), abs=1e-5)
    assert skip.to_json()["margin"] == round(skip.margin, 3)


def test_a_caption_that_may_be_the_step_said_skipped_is_no_skip_and_a_clearer_later_step_is(
    vc: VectorCache,
) -> None:
    # "I pour the kettle into the mug" is read as the pouring, but it is nearly as much the
    # boiling the list puts before it: no "Did you skip" on it. The steeping, which also needs
    # the water boiled and is plainly no boiling, says it.
    states = _track(
        vc,
        [
            "I fill the kettle with water",
            "I put a tea bag in the mug",
            "I pour the kettle into the mug",
            "Letting the tea steep for 3 minutes",
        ],
    )
    assert [s.step_id for s in states] == ["1", "3", "4", "5"]
    assert states[2].findings == () and states[2].missing == ()
    (skip,) = states[3].findings
    assert skip.kind == F.PREREQUISITE and skip.missing == ("Boil the water in the kettle",)
    assert skip.margin >= TrackerParams().finding_min_margin


def test_a_caption_that_names_nothing_the_step_works_on_calls_nothing_skipped(vc: VectorCache) -> None:
    # Drying the chopping board is like "Chop the potatoes" in its words only: no "Did you skip
    # the cleaning and the peeling?", and so no "done late" when they come.
    steps = ("Clean the potatoes", "Peel the potatoes", "Chop the potatoes")
    tr = StepTracker(list_task("potatoes", "Potatoes", steps), vc.get, vectors=vc)
    captions = [
        "The person dries the chopping board and knives.",
        "The person cleans potatoes.",
        "The person peels potatoes skin.",
        "The person chops potatoes.",
    ]
    assert [f.kind for c in captions for f in tr.observe(c).findings] == []
    # A caption that names the potatoes does say it.
    tr = StepTracker(list_task("potatoes", "Potatoes", steps), vc.get, vectors=vc)
    (skip,) = tr.observe("The person chops potatoes into cubes.").findings
    assert skip.kind == F.PREREQUISITE
