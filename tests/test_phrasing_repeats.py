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
