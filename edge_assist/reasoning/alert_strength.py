"""How strong a proactive alert is, so that the policy never holds a stronger one back behind a
weaker one.

Strength is the service first (Safety > Error Recovery > every other proactive kind), then,
within a service, the decider's own score: the gate's probability that an Error Recovery
helps, the hazard match's cosine for a Safety alert. A score the decider did not give (the
LLM's passes say speak or not, no number) compares as unknown: such an alert is stronger
than another of its service only if the other is of a weaker service.
"""

from __future__ import annotations

from dataclasses import dataclass

from edge_assist.events import SubType

_RANK = {SubType.SAFETY: 2, SubType.ERROR_RECOVERY: 1}


@dataclass(frozen=True)
class Strength:
    rank: int  # 2 Safety, 1 Error Recovery, 0 any other proactive service
    score: float | None = None  # the decider's number within the service, when it gave one

    @classmethod
    def of(cls, sub_type: SubType, score: float | None = None) -> Strength:
        return cls(_RANK.get(sub_type, 0), score)

    def beats(self, other: Strength) -> bool:
        """Strictly stronger: a higher service, or the same one with a higher known score."""
        if self.rank != other.rank:
            return self.rank > other.rank
        return self.score is not None and other.score is not None and self.score > other.score

    def text(self) -> str:
        kind = {2: "SA", 1: "ER"}.get(self.rank, "other")
        return kind if self.score is None else f"{kind} {self.score:.2f}"
