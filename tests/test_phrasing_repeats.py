"""What an error alert is about, for the policy's repeat check."""

from __future__ import annotations

from edge_assist.reasoning.phrasing import repeat_key
from edge_assist.tasks import findings as F


def test_a_step_done_late_after_it_was_reported_skipped_is_the_same_advice() -> None:
    skipped = F.Finding(F.PREREQUISITE, "3", "Pour the water", 0.9, "...", missing=("Boil the water",))
    late = F.Finding(F.ORDER, "2", "Boil the water", 0.9, "...", missing=("Pour the water",))
    other = F.Finding(F.ORDER, "4", "Add the milk", 0.9, "...", missing=("Pour the water",))
    assert repeat_key(late, None) == repeat_key(skipped, None)
    assert repeat_key(other, None) != repeat_key(skipped, None)


def test_a_chattier_wearer_also_hears_that_the_late_step_broke_the_order() -> None:
    skipped = F.Finding(F.PREREQUISITE, "3", "Pour the water", 0.9, "...", missing=("Boil the water",))
    late = F.Finding(F.ORDER, "2", "Boil the water", 0.9, "...", missing=("Pour the water",))
    assert repeat_key(late, None, late_step_is_news=True) != repeat_key(skipped, None, late_step_is_news=True)
    # A missing step is still one piece of advice at whatever step it is noticed.
    again = F.Finding(F.PREREQUISITE, "4", "Add the tea", 0.9, "...", missing=("Boil the water",))
    news = {"late_step_is_news": True}
    assert repeat_key(again, None, **news) == repeat_key(skipped, None, **news)
