"""What one step decided (`Verdict`), what it noted on the way (`StepNotes`), and the
policy's last word on a wish to speak (`admit`)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from edge_assist.events import Caption, Decision, SubType
from edge_assist.reasoning.api import StepContext
from edge_assist.reasoning.held_alerts import stands
from edge_assist.reasoning.policy import InterventionPolicy
from edge_assist.reasoning.task_alerts import TASK_ALERTS, TaskBasis
from edge_assist.tasks.findings import TrackerState


@dataclass(frozen=True)
class Verdict:
    """A step's outcome before it is stamped as a Decision."""

    speak: bool
    reason: str  # why: the decider's numbers, the pass that spoke, or the error
    sub_type: SubType | None = None  # the service; None for silence and for answers
    text: str = ""  # the words, also when the policy held them back
    trigger: str = "proactive"  # "proactive" or "query"
    suppressed_by: str = ""  # the policy rule that silenced a wanted response

    @classmethod
    def silent(cls, reason: str) -> Verdict:
        return cls(False, reason)

    @classmethod
    def answer(cls, text: str, citation: str, reason: str) -> Verdict:
        """An answer to the wearer, with the clips it rests on when there are any."""
        spoken = f"{text} ({citation})" if citation else text
        # An answer is not a proactive service, so it has no sub-type: the trigger says it was
        # asked, which gives it answer priority and keeps it out of proactive scoring.
        return cls(True, reason, None, spoken, "query")

    def decision(
        self, *, t: float, caption: Caption, session_id: str, latency_s: float, notes: StepNotes
    ) -> Decision:
        return Decision(
            t=t,
            session_id=session_id,
            clip_index=caption.index,
            stream_t0=caption.t0,
            stream_t1=caption.t1,
            speak=self.speak,
            sub_type=self.sub_type,
            text=self.text,
            latency_s=latency_s,
            reason=self.reason,
            trigger=self.trigger,
            suppressed_by=self.suppressed_by,
            timings_s=notes.timings,
            trace=notes.trace,
        )


@dataclass
class StepNotes:
    """What a step measured and saw, filled as it goes: the Decision's sections and trace."""

    timings: dict[str, float] = field(default_factory=dict)  # seconds per section
    trace: dict[str, Any] = field(default_factory=dict)  # JSON: what each part saw and said
    task: TaskBasis | None = None  # the task the tracker follows at this caption (None: not read)


async def admit(
    policy: InterventionPolicy,
    ctx: StepContext,
    sub_type: SubType,
    text: str,
    reason: str,
    notes: StepNotes,
    *,
    about: str = "",
    severity: int = 0,
    score: float | None = None,
    subject: object = None,
) -> Verdict:
    """A proactive wish to speak, through the intervention policy: spoken, or held back and why.
    `score` is the decider's number within the service (the alert's strength) and `subject`
    what it is about (a finding, a missing step's id), kept if a cooldown holds it back."""
    start = time.perf_counter()
    basis = notes.task.about(subject) if notes.task is not None else None
    allowed = await policy.admit(
        session_id=ctx.session_id,
        sub_type=sub_type,
        text=text,
        now_t=ctx.caption.t1,
        trigger="proactive",
        about=about,
        severity=severity,
        score=score,
        subject=subject,
        reason=reason,
        basis=basis,
    )
    notes.timings["policy"] = time.perf_counter() - start
    notes.trace["policy"] = {"allowed": allowed.allowed, "reason": allowed.reason}
    if score is not None:
        notes.trace["policy"]["strength"] = round(score, 4)
    if basis is not None and sub_type in TASK_ALERTS:
        notes.trace["policy"]["task"] = basis.to_json()
    return Verdict(allowed.allowed, reason, sub_type, text, suppressed_by=allowed.reason)


async def reoffer(
    policy: InterventionPolicy, ctx: StepContext, state: TrackerState | None, notes: StepNotes
) -> Verdict | None:
    """An alert a cooldown held back earlier, spoken now if it still stands (None: nothing to say)."""
    held = await policy.reoffer(
        session_id=ctx.session_id, now_t=ctx.caption.t1, stands=lambda h: stands(h.subject, state)
    )
    if held is None:
        return None
    notes.trace["held_back"] = {"t": held.t, "text": held.text, "strength": held.strength.text()}
    return Verdict(True, held.spoken_reason(), held.sub_type, held.text)
