"""What an error alert is about, for the policy's repeat check."""

from __future__ import annotations

from edge_assist.reasoning.phrasing import repeat_key, template
from edge_assist.tasks import findings as F


def test_a_step_done_late_after_it_was_reported_skipped_is_the_same_advice() -> None:
    skipped = F.Finding(F.PREREQUISITE, "3", "Pour the water", 0.9, "...", missing=("Boil the water",))
    late = F.Finding(F.ORDER, "2", "Boil the water", 0.9, "...", missing=("Pour the water",))
    other = F.Finding(F.ORDER, "4", "Add the milk", 0.9, "...", missing=("Serve the tea",))
    assert repeat_key(late, None) == repeat_key(skipped, None)
    assert repeat_key(other, None) != repeat_key(skipped, None)


def test_a_chattier_wearer_also_hears_that_the_late_step_broke_the_order() -> None:
    skipped = F.Finding(F.PREREQUISITE, "3", "Pour the water", 0.9, "...", missing=("Boil the water",))
    late = F.Finding(F.ORDER, "2", "Boil the water", 0.9, "...", missing=("Pour the water",))
    assert repeat_key(late, None, late_step_is_news=True) != repeat_key(skipped, None, late_step_is_news=True)


def test_steps_found_missing_together_are_told_together_and_once() -> None:
    both = ("Boil the water", "Warm the pot")
    skipped = F.Finding(F.PREREQUISITE, "3", "Pour the water", 0.9, "...", missing=both)
    assert (
        skipped.say()
        == 'Did you skip "Boil the water" and "Warm the pot"? They come before "Pour the water".'
    )
    # The water boiled late; the pot is still missing: reminding of it is what was said already.
    # (The water's own lateness is news at a chattier setting, as for one step.)
    texts = {"1": "Boil the water", "2": "Warm the pot", "3": "Pour the water", "4": "Add the tea"}
    state = F.TrackerState(
        "tea", "Tea", "4", "Add the tea", 0.9, 0.8, 0.2, ("1", "3", "4"), (), 4,
        missing=("2",), missing_for=("3",), missing_told_with=("1",), step_texts=texts,
    )  # fmt: skip
    for news in (False, True):
        assert repeat_key(None, state, late_step_is_news=news) == repeat_key(
            skipped, None, late_step_is_news=news
        )
    assert template(None, state) == 'Did you skip "Warm the pot"? It comes before "Pour the water".'
    many = F.Finding(
        F.PREREQUISITE, "9", "Serve", 0.9, "...", missing=tuple(f"Step {i}" for i in range(1, 6))
    )
    assert many.say() == 'Did you skip "Step 1", "Step 2" and 3 more steps? They come before "Serve".'
