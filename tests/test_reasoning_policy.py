"""The intervention policy: cooldowns, the hourly cap, do-not-disturb, no repeats,
Safety's bypass and answers to questions, all on stream time."""

from __future__ import annotations

import pytest

from edge_assist.config import Config, PolicyConfig
from edge_assist.events import SubType
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.policy import InterventionPolicy, normalise

SID = "s1"


def policy(**overrides: object) -> InterventionPolicy:
    cfg = Config().replace(**{f"policy.{k}": v for k, v in overrides.items()}).policy
    return InterventionPolicy(cfg)


async def admit(
    p: InterventionPolicy, st: SubType, text: str, t: float, trigger: str = "proactive", sid: str = SID
):
    return await p.admit(session_id=sid, sub_type=st, text=text, now_t=t, trigger=trigger)


async def test_cooldown_per_sub_type_on_stream_time() -> None:
    p = policy(cooldown_s={"NSG": 30.0, "ER": 20.0})
    assert (await admit(p, SubType.NEXT_STEP_GUIDANCE, "Now add the salt.", 100.0)).allowed
    v = await admit(p, SubType.NEXT_STEP_GUIDANCE, "Now stir the pot.", 110.0)
    assert not v.allowed and v.reason.startswith("cooldown:NSG") and "10.0 s" in v.reason
    # Another sub-type has its own cooldown.
    assert (await admit(p, SubType.ERROR_RECOVERY, "That was sugar, not salt.", 111.0)).allowed
    assert (await admit(p, SubType.NEXT_STEP_GUIDANCE, "Now stir the pot.", 130.5)).allowed
    # A step that ended before the last alert (steps of a stream may overlap) is held, and the
    # reason says so instead of a negative time.
    v = await admit(p, SubType.NEXT_STEP_GUIDANCE, "Now serve.", 125.0)
    assert not v.allowed and "the last at 130.5 s, after this step ended" in v.reason


async def test_hourly_cap_and_do_not_disturb() -> None:
    p = policy(max_per_hour=2, cooldown_s={"NSG": 0.0})
    assert (await admit(p, SubType.NEXT_STEP_GUIDANCE, "one", 0.0)).allowed
    assert (await admit(p, SubType.NEXT_STEP_GUIDANCE, "two", 60.0)).allowed
    v = await admit(p, SubType.NEXT_STEP_GUIDANCE, "three", 120.0)
    assert not v.allowed and v.reason.startswith("max_per_hour")
    assert (await admit(p, SubType.NEXT_STEP_GUIDANCE, "four", 3601.0)).allowed  # the first left the hour
    dnd = policy(do_not_disturb=True)
    assert (await admit(dnd, SubType.HABIT_COACHING, "Stretch.", 5.0)).reason == "do_not_disturb"


async def test_safety_bypasses_caps_but_is_not_repeated_at_once() -> None:
    p = policy(max_per_hour=1, do_not_disturb=True, cooldown_s={"SA": 600.0})
    assert (await admit(p, SubType.SAFETY, "The pan handle is hot.", 10.0)).allowed
    assert (await admit(p, SubType.SAFETY, "Knife near your fingers.", 12.0)).allowed
    v = await admit(p, SubType.SAFETY, "The pan handle is hot!", 20.0)
    assert not v.allowed and v.reason.startswith("repeat")
    assert (await admit(p, SubType.SAFETY, "The pan handle is hot.", 45.0)).allowed  # past its 30 s window


async def test_answers_to_questions_bypass_everything() -> None:
    p = policy(do_not_disturb=True, max_per_hour=1)
    for t in (1.0, 2.0, 3.0):
        assert (
            await admit(p, SubType.MEMORY_RECALL, "The keys are on the shelf.", t, trigger="query")
        ).allowed


async def test_exact_repeat_within_window_and_new_session() -> None:
    p = policy(repeat_window_s=300.0, repeat_similarity=1.0, cooldown_s={"RR": 0.0})
    assert (await admit(p, SubType.RESOURCE_REMINDER, "Take the milk out.", 10.0)).allowed
    v = await admit(p, SubType.RESOURCE_REMINDER, "take the MILK out", 100.0)
    assert not v.allowed and "repeat" in v.reason
    assert (await admit(p, SubType.RESOURCE_REMINDER, "Take the milk out.", 400.0)).allowed
    # A new session restarts stream time and the history.
    assert (await admit(p, SubType.RESOURCE_REMINDER, "Take the milk out.", 5.0, sid="s2")).allowed
    assert normalise("Take, the  MILK out!") == "take the milk out"


async def test_the_same_error_sentence_is_not_said_again_for_longer() -> None:
    p = policy(repeat_window_s=300.0, error_repeat_window_s=1800.0, repeat_similarity=1.0)
    skip = 'Did you skip "Shape the dough"? It comes before "Bake the dough".'

    async def said(text: str, t: float, about: str = "") -> bool:
        v = await p.admit(session_id=SID, sub_type=SubType.ERROR_RECOVERY, text=text, now_t=t, about=about)
        return v.allowed

    assert await said(skip, 1000.0, "shape the dough")
    assert not await said(skip, 1400.0, "shape the dough")  # past repeat_window_s, the same sentence
    # the same skipped step reminded at a later step is another sentence: repeat_window_s holds
    later = 'Did you skip "Shape the dough"? It comes before "Serve".'
    assert not await said(later, 1200.0, "shape the dough")
    assert await said(later, 1500.0, "shape the dough")
    assert await said(skip, 2900.0, "shape the dough")  # past error_repeat_window_s
    # other services keep repeat_window_s for the same sentence
    assert (await admit(p, SubType.RESOURCE_REMINDER, "Take the milk out.", 10.0)).allowed
    assert (await admit(p, SubType.RESOURCE_REMINDER, "Take the milk out.", 400.0)).allowed


@pytest.mark.slow
async def test_semantic_repeat_uses_the_text_encoder(text_encoder: TextEncoder) -> None:
    cfg: PolicyConfig = (
        Config().replace(**{"policy.cooldown_s": {"NSG": 0.0}, "policy.repeat_similarity": 0.8}).policy
    )
    p = InterventionPolicy(cfg, text_encoder=text_encoder)
    assert (
        await admit(p, SubType.NEXT_STEP_GUIDANCE, "Next, pour the egg into the ramekin cup.", 10.0)
    ).allowed
    v = await admit(p, SubType.NEXT_STEP_GUIDANCE, "Now pour the egg into the ramekin cup.", 20.0)
    assert not v.allowed and "cosine" in v.reason
    assert (
        await admit(p, SubType.NEXT_STEP_GUIDANCE, "Cut the English muffin in two with a knife.", 30.0)
    ).allowed


@pytest.mark.slow
async def test_two_steps_at_once_cannot_both_pass_a_cooldown(text_encoder: TextEncoder) -> None:
    import asyncio

    from edge_assist.clock import RealClock

    # With an encoder the policy awaits a worker thread between checking and remembering:
    # that is where two steps in flight could interleave.
    cfg = Config().replace(**{"policy.cooldown_s": {"NSG": 30.0}}).policy
    p = InterventionPolicy(cfg, text_encoder=text_encoder, clock=RealClock())
    a, b = await asyncio.gather(
        admit(p, SubType.NEXT_STEP_GUIDANCE, "Now add the salt.", 100.0),
        admit(p, SubType.NEXT_STEP_GUIDANCE, "Now stir the pot.", 100.5),
    )
    assert [a.allowed, b.allowed].count(True) == 1


async def test_the_same_missing_step_is_one_piece_of_advice_whatever_step_names_it() -> None:
    # The sentences differ (each names the step in progress); what they are about does not.
    p = policy(cooldown_s={"ER": 0.0})
    about = 'Did you skip "Add the salt"? It comes before this step.'
    first = await p.admit(
        session_id=SID,
        sub_type=SubType.ERROR_RECOVERY,
        now_t=10.0,
        about=about,
        text='Did you skip "Add the salt"? It comes before "Stir the pot".',
    )
    again = await p.admit(
        session_id=SID,
        sub_type=SubType.ERROR_RECOVERY,
        now_t=40.0,
        about=about,
        text='Did you skip "Add the salt"? It comes before "Serve the soup".',
    )
    other = await p.admit(
        session_id=SID,
        sub_type=SubType.ERROR_RECOVERY,
        now_t=50.0,
        text='Did you skip "Chop the onion"? It comes before "Serve the soup".',
    )
    assert first.allowed and not again.allowed and "repeat" in again.reason and other.allowed
