"""Where a question puts its thing: in a vessel ("any fruit on the plate?"), in an appliance that
acts on it ("was there fish in the oven?"), or on as a thing is switched on ("is the oven on?")."""

from __future__ import annotations

from edge_assist.text.action_families import ACTING_APPLIANCES, APPLIANCE_ACTS
from edge_assist.text.kinds_of_things import covers

# Things that are on when switched on, not when put on: "is the oven on?" asks about the oven.
_SWITCHED = frozenset("stove hob burner cooktop light lamp tap faucet fan heat flame gas power".split())


def switched(thing: str, question: str) -> bool:
    return " on" in question and any(w in _SWITCHED or w in APPLIANCE_ACTS for w in thing.split())


def appliance(place: str) -> str | None:
    """The appliance a place names ("the oven", "the microwave"), which acts on what is in it."""
    words = place.split()
    return next((w for w in words[:3] if w in ACTING_APPLIANCES), None)


def vessel(question: str, place: str) -> str:
    """ " on the plate" when the place said is a vessel ("the plate with them", "the big mug"),
    else ""."""
    words = place.split()
    lead = 1 if words and words[0] in ("the", "a", "my") else 0
    for n, w in enumerate(words[lead : lead + 2], start=lead + 1):
        if covers("container", w.removesuffix("s")) or covers("container", w):
            prep = "on" if f" on {place}" in question else "in"
            return f" {prep} {' '.join(words[:n])}"
    return ""
