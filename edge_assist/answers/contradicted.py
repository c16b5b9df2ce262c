"""A yes/no question whose setting the remembered moment contradicts: "did I cook it on medium
heat?" over "I'm heating the oil on low heat" is a "No", said with what was seen.

The moment that answers tells the same act on the same thing, so it is the moment asked
about; when the question names a heat or power setting (or a temperature word) and that
moment names another, the act happened, but not as asked. The tracker reads such settings
the same way for its deviations (tasks/details.py), so "low" and "medium" are compared by
their order, not their wording. Amounts are left out: two captions may each add part of
what was asked ("did I add 2 eggs?" over two moments of one egg).
"""

from __future__ import annotations

from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import Moment
from edge_assist.tasks.details import Difference, parse_details, value_differences

# The differences that say the act was done otherwise: a setting or a temperature word.
_KINDS = ("setting", "temperature")


def difference(focus: str, caption: str) -> Difference | None:
    """The setting the question names that the caption names otherwise, or None."""
    asked = parse_details(focus)
    if not asked.levels and not asked.temperatures:
        return None
    told = parse_details(caption)
    return next((d for d in value_differences(asked, told) if d.kind in _KINDS), None)


def compose(d: Difference, m: Moment) -> str:
    """ "No: at 0:04 you were heating three tablespoon oil on low heat (low, not medium)." """
    told = tell(m.text, m.t0, m.note).rstrip(".")
    return f"No: {told[0].lower()}{told[1:]} ({d.observed}, not {d.expected})."
