"""The policy keeps the strongest: a weak alert's cooldown never holds a stronger one back, and
an alert a cooldown held back is said when the cooldown ends if it still stands. Real text
encoder (the repeat check's cosine), real step tracker for "still stands"."""

from __future__ import annotations

import pytest

from edge_assist.config import Config
from edge_assist.evaluation.report import policy_counts
from edge_assist.events import Decision, SubType
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.held_alerts import HeldAlert, stands
from edge_assist.reasoning.policy import InterventionPolicy
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.tracker import StepTracker
from edge_assist.tasks.vector_cache import VectorCache

pytestmark = pytest.mark.slow  # loads the text encoder

SID = "omelette-demo"
ER = SubType.ERROR_RECOVERY
FORK = 'Fork instead of pinch of salt? The step says "Beat the eggs with a pinch of salt".'
HIGH = 'High instead of medium? The step says "Heat the pan over medium heat".'
SKIP = 'Did you skip "Grate the cheese"? It comes before this step.'


def policy(encoder: TextEncoder, **overrides: object) -> InterventionPolicy:
    cfg = Config().replace(**{f"policy.{k}": v for k, v in overrides.items()}).policy
    return InterventionPolicy(cfg, text_encoder=encoder)


async def say(p: InterventionPolicy, text: str, t: float, score: float | None, subject: object = None):
    return await p.admit(session_id=SID, sub_type=ER, text=text, now_t=t, score=score, subject=subject)


def always(_: HeldAlert) -> bool:
    return True


def never(_: HeldAlert) -> bool:
    return False


async def test_a_strong_alert_is_spoken_within_a_weak_ones_cooldown(text_encoder: TextEncoder) -> None:
    p = policy(text_encoder)  # ER cooldown 20 s
    assert (await say(p, FORK, 63.0, 0.39)).allowed
    assert (await say(p, HIGH, 73.0, 0.95)).allowed
    # A weaker one after the strong one is still held back by its cooldown.
    held = await say(p, SKIP, 80.0, 0.5)
    assert not held.allowed and held.reason.startswith("cooldown:ER")
    # A Safety alert has no cooldown to wait for.
    fire = "The pan is smoking: turn the burner off."
    assert (await p.admit(session_id=SID, sub_type=SubType.SAFETY, text=fire, now_t=81.0, score=0.6)).allowed


async def test_the_same_advice_is_not_said_twice_whatever_its_strength(text_encoder: TextEncoder) -> None:
    p = policy(text_encoder, cooldown_s={"ER": 0.0})
    assert (await say(p, HIGH, 10.0, 0.4)).allowed
    again = await say(p, HIGH, 40.0, 0.95)
    assert not again.allowed and again.reason.startswith("repeat")


async def test_a_held_alert_is_said_when_its_cooldown_ends_if_it_still_stands(
    text_encoder: TextEncoder,
) -> None:
    p = policy(text_encoder)
    assert (await say(p, HIGH, 63.0, 0.95)).allowed
    assert not (await say(p, SKIP, 73.0, 0.6)).allowed  # held: 10 s into a stronger alert's cooldown
    assert await p.reoffer(session_id=SID, now_t=78.0, stands=always) is None  # still cooling down
    held = await p.reoffer(session_id=SID, now_t=83.0, stands=always)
    assert held is not None and held.text == SKIP
    assert held.spoken_reason().startswith("held back at 73.0 s (cooldown), still stands")
    # Said once: it is no longer held, and it now counts as spoken for the rules.
    assert await p.reoffer(session_id=SID, now_t=200.0, stands=always) is None
    assert not (await say(p, SKIP, 210.0, 0.6)).allowed


async def test_a_held_alert_whose_finding_is_gone_is_dropped(text_encoder: TextEncoder) -> None:
    p = policy(text_encoder)
    assert (await say(p, HIGH, 63.0, 0.95)).allowed
    assert not (await say(p, SKIP, 73.0, 0.6)).allowed
    assert await p.reoffer(session_id=SID, now_t=83.0, stands=never) is None
    assert len(p.held) == 0
    assert await p.reoffer(session_id=SID, now_t=90.0, stands=always) is None


async def test_a_held_alert_superseded_by_a_newer_one_as_strong_is_dropped(text_encoder: TextEncoder) -> None:
    p = policy(text_encoder)
    assert (await say(p, HIGH, 63.0, 0.95)).allowed
    assert not (await say(p, SKIP, 73.0, 0.6)).allowed
    newer = 'Sugar instead of grated cheese? The step says "Sprinkle the grated cheese over the eggs".'
    assert (await say(p, newer, 84.0, 0.7)).allowed  # after the cooldown, as strong as the held one
    assert await p.reoffer(session_id=SID, now_t=110.0, stands=always) is None
    assert len(p.held) == 0


async def test_only_a_cap_may_hold_a_strong_alert_behind_a_weak_one_and_it_is_counted(
    text_encoder: TextEncoder,
) -> None:
    p = policy(text_encoder, max_per_hour=1)
    assert (await say(p, FORK, 63.0, 0.39)).allowed
    capped = await say(p, HIGH, 73.0, 0.95)
    assert (
        not capped.allowed and capped.reason.startswith("max_per_hour") and "behind weaker" in capped.reason
    )

    def dec(speak: bool, reason: str, suppressed_by: str = "") -> Decision:
        return Decision(0.0, SID, 0, 0.0, 10.0, speak, ER, "x", reason=reason, suppressed_by=suppressed_by)

    counts = policy_counts(
        {
            "r": [
                dec(False, "gate: P(ER helps) 0.95 >= 0.35", capped.reason),
                dec(
                    False, "gate: P(ER helps) 0.40 >= 0.35", "cooldown:ER (5.0 s since the last, needs 20 s)"
                ),
                dec(True, "held back at 73.0 s (cooldown), still stands; gate: P(ER helps) 0.60 >= 0.35"),
                dec(True, "gate: P(ER helps) 0.95 >= 0.35"),
            ]
        }
    )
    assert counts == {"suppressed": 2, "strong_held_behind_weak": 1, "spoken_after_held": 1}


def test_still_stands_reads_the_trackers_state(text_encoder: TextEncoder) -> None:
    lib = TaskLibrary.load()
    task = lib.get("microwaveeggsandwich")
    assert task is not None
    vc = VectorCache(text_encoder.encode)
    tr = StepTracker(task, vc.get, vectors=vc)
    pour = tr.observe("Pour 2 eggs into the ramekin cup")  # a quantity deviation in this step
    dev = next(f for f in pour.findings if f.differences)
    assert stands(dev, pour)
    assert stands(dev, tr.observe("I keep pouring the eggs into the ramekin cup"))
    later = tr.observe("Cut the English muffin into two pieces with a knife")
    assert not stands(dev, later)  # the wearer moved on: the deviation is past
    assert not stands(dev, None) and not stands("no-such-step", later)


async def test_similar_advice_holds_back_only_what_is_not_stronger(text_encoder: TextEncoder) -> None:
    p = policy(text_encoder, cooldown_s={"ER": 0.0}, repeat_similarity=0.8)
    assert (await say(p, "Next, pour the egg into the ramekin cup.", 10.0, 0.4)).allowed
    weaker = await say(p, "Now pour the egg into the ramekin cup.", 20.0, 0.3)
    assert not weaker.allowed and "cosine" in weaker.reason
    assert (await say(p, "Now pour the egg into the ramekin cup.", 30.0, 0.9)).allowed


async def test_a_chattier_wearer_hears_a_second_alert_sooner(text_encoder: TextEncoder) -> None:
    # ER cooldown 20 s: quiet keeps all of it, normal half, chatty a quarter.
    for chattiness, allowed in (("quiet", False), ("normal", False), ("chatty", True)):
        p = policy(text_encoder, chattiness=chattiness)
        assert (await say(p, SKIP, 10.0, 0.9)).allowed
        assert (await say(p, HIGH, 16.0, 0.9)).allowed is allowed, chattiness
    p = policy(text_encoder, chattiness="normal")
    assert (await say(p, SKIP, 10.0, 0.9)).allowed
    assert (await say(p, HIGH, 21.0, 0.9)).allowed
