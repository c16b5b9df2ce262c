"""Alerts a cooldown held back, kept to be said when the cooldown ends if they still stand.

One alert is kept per piece of advice (its service and normalised words): a later wording of
the same advice replaces the earlier. Whether an alert still stands is read off the tracker's
state at the step that would say it (`stands`): a missing step that is still not done, a
deviation, order or repeat while the wearer is still in that step, an unmatched action while
the caption still matches no step.
"""

from __future__ import annotations

from dataclasses import dataclass

from edge_assist.events import SubType
from edge_assist.reasoning.alert_strength import Strength
from edge_assist.tasks.findings import PREREQUISITE, UNMATCHED, Finding, TrackerState

# Marks a suppression that a weaker alert caused (only a cap may still do that); the reports
# count decisions whose suppressed_by says it.
BEHIND_WEAKER = "behind weaker"

HELD_PREFIX = "held back at"


def behind_weaker(suppressed_by: str) -> bool:
    """A decision held back because a weaker alert was spoken ("strong held behind weak")."""
    return BEHIND_WEAKER in suppressed_by


def spoken_after_held(reason: str) -> bool:
    """A decision that said an alert a cooldown had held back."""
    return reason.startswith(HELD_PREFIX)


@dataclass(frozen=True)
class HeldAlert:
    t: float  # stream time it was held back
    sub_type: SubType
    text: str
    about: str  # what repeats are judged on ("" = the text)
    strength: Strength
    subject: object  # a Subject; typed loosely so that any decider may hold one
    reason: str  # the decider's reason when it wanted to speak
    key: tuple[str, str]  # (service, normalised advice): one kept per key

    def spoken_reason(self, rule: str = "cooldown") -> str:
        return f"{HELD_PREFIX} {self.t:.1f} s ({rule}), still stands; {self.reason}"


class HeldAlerts:
    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], HeldAlert] = {}

    def keep(self, alert: HeldAlert) -> None:
        self._by_key.pop(alert.key, None)
        self._by_key[alert.key] = alert

    def drop(self, alert: HeldAlert) -> None:
        if self._by_key.get(alert.key) is alert:
            del self._by_key[alert.key]

    def clear(self) -> None:
        self._by_key.clear()

    def expire(self, before_t: float) -> None:
        for key in [k for k, a in self._by_key.items() if a.t < before_t]:
            del self._by_key[key]

    def pending(self) -> list[HeldAlert]:
        """Strongest first; among equals, the latest first. Ties keep a fixed order (replay)."""
        return sorted(
            self._by_key.values(),
            key=lambda a: (-a.strength.rank, -(a.strength.score or 0.0), -a.t, a.key),
        )

    def __len__(self) -> int:
        return len(self._by_key)


def stands(subject: object, state: TrackerState | None) -> bool:
    """Whether what a held alert is about is still so in the tracker's state now."""
    if state is None:
        return False
    if isinstance(subject, str):
        return subject in state.missing
    if not isinstance(subject, Finding):
        return False
    if subject.kind == PREREQUISITE:
        still = {state.text_of(s) for s in state.missing}
        return any(m in still for m in subject.missing)
    if subject.kind == UNMATCHED:
        return any(f.kind == UNMATCHED for f in state.findings)
    return bool(subject.step_id) and state.step_id == subject.step_id
