"""No task under way, no task alerts: the policy's rule, and an unscripted day read by the real
tracker and text encoder, where whatever wants to speak an error alert is held back."""

from __future__ import annotations

import pytest

from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.events import SubType
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.policy import InterventionPolicy
from edge_assist.reasoning.task_alerts import NO_FINDING_RULE, NO_TASK_RULE, UNCLEAR_RULE, TaskBasis
from edge_assist.tasks import findings as F
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.session import TaskSession

ER = SubType.ERROR_RECOVERY
SKIP = F.Finding(F.PREREQUISITE, "2", "Boil the water", 0.9, "began before boiling", ("Boil the water",))


async def say(p: InterventionPolicy, t: float, basis: TaskBasis | None, sub_type: SubType = ER):
    return await p.admit(session_id="s", sub_type=sub_type, text=f"alert {t}", now_t=t, basis=basis)


async def test_a_task_alert_needs_a_task_under_way() -> None:
    p = InterventionPolicy(Config().policy)
    held = await say(p, 10.0, TaskBasis())
    assert not held.allowed and held.reason == NO_TASK_RULE
    # Not a task alert: a hazard is said with no task at all.
    assert (await say(p, 20.0, TaskBasis(), SubType.SAFETY)).allowed
    # Held back by the rule, so it set no cooldown: a named task's alert right after is said.
    assert (await say(p, 30.0, TaskBasis("tea", "named"))).allowed


async def test_on_a_task_only_recognised_an_alert_needs_a_finding_behind_it() -> None:
    p = InterventionPolicy(Config().policy)
    recognised = TaskBasis("tea", "recognised", step_id="2", similarity=0.7)
    held = await say(p, 10.0, recognised.about("2"))  # a standing missing step, no finding now
    assert not held.allowed and held.reason == NO_FINDING_RULE
    assert (await say(p, 20.0, recognised.about(SKIP))).allowed
    # A task the wearer named keeps the gate's word, finding or not.
    assert (await say(p, 200.0, TaskBasis("tea", "named").about("2"))).allowed
    # A caller that gives no basis is not judged by the rule.
    assert (await say(p, 400.0, None)).allowed


async def test_on_a_task_only_recognised_a_finding_needs_a_caption_clearly_its_step() -> None:
    p = InterventionPolicy(Config().policy, clock=None)
    # Read off a caption only loosely like the step ("refrigerates a bowl of food" as "Whisk
    # the contents of bowl"), off a step the tracker is unsure of, or off another step than
    # the one the caption is read as: not said.
    loose = TaskBasis("tea", "recognised", step_id="2", similarity=0.45).about(SKIP)
    unsure = TaskBasis("tea", "recognised", step_id="2", similarity=0.7).about(
        F.Finding(F.PREREQUISITE, "2", "Boil the water", 0.22, "began before boiling", ("Boil the water",))
    )
    elsewhere = TaskBasis("tea", "recognised", step_id="5", similarity=0.7).about(SKIP)
    for t, basis in enumerate((loose, unsure, elsewhere)):
        held = await say(p, 100.0 * (t + 1), basis)
        assert not held.allowed and held.reason == UNCLEAR_RULE
    # A task the wearer named keeps the gate's word, however loose the caption.
    assert (await say(p, 500.0, TaskBasis("tea", "named", step_id="2", similarity=0.45).about(SKIP))).allowed


# Ordinary home activity, worded as Goal-Step's captions are: cooking that is no library
# recipe (its steps are shared by many), cleaning, phone, laundry.
UNSCRIPTED = (
    "The person washes mushrooms in a sink.",
    "The person cleans hands with towel, then arranges onions on a countertop.",
    "The person chops onion.",
    "The person chops onion.",
    "The person dices bell pepper.",
    "The person stirs vegetables in the pan.",
    "The person stirs vegetables in the pan.",
    "The person talks on the phone.",
    "The person wipes the counter with a cloth.",
    "The person folds the laundry on the bed.",
    "The person puts the plates in the cupboard.",
    "The person opens the fridge and looks inside.",
)


@pytest.mark.slow  # loads the text encoder
async def test_an_unscripted_day_gets_no_task_alert(text_encoder: TextEncoder) -> None:
    ts = TaskSession(TaskLibrary.load(), text_encoder, RealClock())
    p = InterventionPolicy(Config().policy)
    for i, caption in enumerate(UNSCRIPTED):
        tracked = await ts.track("day", caption, index=i)
        reading = tracked.reading
        assert reading is None, f"{caption!r} named {reading.state.task if reading else ''}"
        # Whatever decided to speak an error alert here (the gate on history, an LLM pass),
        # the policy holds it back, and says why.
        basis = TaskBasis(reading.state.task, reading.source) if reading is not None else TaskBasis()
        held = await say(p, 10.0 * (i + 1), basis)
        assert not held.allowed and held.reason == NO_TASK_RULE
