"""No task under way, no task alerts: the policy's rule for alerts about a task.

An error alert (a skip, an order, a deviation, a repeat, an action outside the task) is
advice about a task, so it needs one the tracker is following: named by the stream or the
wearer, or recognised from the captions as clearly under way. Without one it is not said,
whatever decided to say it (the gate on timing and history, or the LLM's passes).

A task only recognised from the captions may be the wrong one: someone's own cooking looks
like a library recipe in its onions and pans. There, an alert is said only with a tracker
finding behind it at this caption; a standing skip or the session's history alone is not
enough. A task the wearer named is theirs, and its alerts keep the gate's word.
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


@dataclass(frozen=True)
class TaskBasis:
    """What a proactive alert rests on: the task the tracker follows ("" for none), how it got
    it ("named", "context", "recognised"), and the kind of finding the alert is about."""

    task: str = ""
    source: str = ""
    finding: str = ""

    def about(self, subject: object) -> TaskBasis:
        """This basis for an alert about `subject` (a finding, or a standing missing step)."""
        return replace(self, finding=subject.kind if isinstance(subject, Finding) else "")

    def to_json(self) -> dict[str, str]:
        return {"task": self.task, "source": self.source, "finding": self.finding}


def task_rule(sub_type: SubType, basis: TaskBasis | None) -> str:
    """The rule that holds this alert back ("" when none does, or when the caller gave no basis)."""
    if basis is None or sub_type not in TASK_ALERTS:
        return ""
    if not basis.task:
        return NO_TASK_RULE
    if basis.source == RECOGNISED and not basis.finding:
        return NO_FINDING_RULE
    return ""
