"""No task under way, no task alerts: the policy's rule for alerts about a task.

An error alert (a skip, an order, a deviation, a repeat, an action outside the task) is
advice about a task, so it needs one the tracker is following: named by the stream or the
wearer, or recognised from the captions as clearly under way. Without one it is not said,
whatever decided to say it (the gate on timing and history, or the LLM's passes).

A task only recognised from the captions may be the wrong one: someone's own cooking looks
like a library recipe in its onions and pans. There, an alert is said only with a tracker
finding behind it at this caption, about a step the caption clearly is (the bar a deviation
needs: the step's share of the tracker's belief and its cosine with the caption both at
least `CLEAR`). A standing skip, the session's history, or a skip read off a caption that is
only loosely like some step ("refrigerates a bowl of food" as "Whisk the contents of bowl")
is not enough. A task the wearer named is theirs, and its alerts keep the gate's word.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from edge_assist.events import SubType
from edge_assist.tasks.findings import Finding

# The services whose alerts are about a task (the gate's and the passes' Error Recovery).
TASK_ALERTS = frozenset({SubType.ERROR_RECOVERY})
RECOGNISED = "recognised"
NO_TASK_RULE = "no task under way (a task alert needs a task the tracker follows)"
NO_FINDING_RULE = "no finding behind it (the task was only recognised from the captions)"
UNCLEAR_RULE = "the caption is not clearly the step (the task was only recognised from the captions)"
# The tracker's own bar for "a step the caption clearly is" (TrackerParams.deviation_min_*).
CLEAR = 0.5


@dataclass(frozen=True)
class TaskBasis:
    """What a proactive alert rests on: the task the tracker follows ("" for none), how it got
    it ("named", "context", "recognised"), and the kind of finding the alert is about."""

    task: str = ""
    source: str = ""
    finding: str = ""
    step_id: str = ""  # the step the tracker reads this caption as
    similarity: float = 1.0  # that step's cosine with the caption
    clear: bool = False  # the finding is about that step, and the caption clearly is it

    def about(self, subject: object) -> TaskBasis:
        """This basis for an alert about `subject` (a finding, or a standing missing step)."""
        if not isinstance(subject, Finding):
            return replace(self, finding="", clear=False)
        clear = subject.step_id == self.step_id and subject.confidence >= CLEAR and self.similarity >= CLEAR
        return replace(self, finding=subject.kind, clear=clear)

    def to_json(self) -> dict[str, str | bool]:
        return {"task": self.task, "source": self.source, "finding": self.finding, "clear": self.clear}


def task_rule(sub_type: SubType, basis: TaskBasis | None) -> str:
    """The rule that holds this alert back ("" when none does, or when the caller gave no basis)."""
    if basis is None or sub_type not in TASK_ALERTS:
        return ""
    if not basis.task:
        return NO_TASK_RULE
    if basis.source == RECOGNISED and not basis.finding:
        return NO_FINDING_RULE
    if basis.source == RECOGNISED and not basis.clear:
        return UNCLEAR_RULE
    return ""
