"""The gate as the decider of a proactive step (`reasoner.decider = "gate"` or "gate+llm").

Per caption: the tracker's reading and the hazard scores become the gate's features; the
gate gives the probability that an Error Recovery helps now, compared with the threshold of
the wearer's chattiness. A caption the hazard detector calls a hazard is an Instant Safety
candidate. With "gate+llm" a probability within `unsure_band` of the threshold is handed
to the LLM's pass 1 instead. Milliseconds, no model call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from edge_assist.events import SubType
from edge_assist.reasoning.gate import Gate
from edge_assist.reasoning.gate_features import SessionClock, can_name, features
from edge_assist.reasoning.hazard_phrases import HazardMatcher
from edge_assist.reasoning.hazards import Hazard, HazardDetector
from edge_assist.tasks.findings import (
    DEVIATION,
    ORDER,
    PREREQUISITE,
    REPEATED,
    UNMATCHED,
    Finding,
    TrackerState,
)

# Which finding the words are about when the gate says speak: the most specific first.
SAY_ORDER = (DEVIATION, PREREQUISITE, ORDER, REPEATED, UNMATCHED)


@dataclass
class GateVerdict:
    action: str  # "speak", "silent" or "unsure" (gate+llm: ask the LLM)
    sub_type: SubType | None = None
    finding: Finding | None = None
    hazard: Hazard | None = None
    probability: float | None = None
    threshold: float | None = None
    trace: dict[str, Any] = field(default_factory=dict)
    vague: bool = False  # over the threshold, but with no finding and no missing step to name

    @property
    def reason(self) -> str:
        if self.hazard is not None:
            return f"hazard: {self.hazard.kind} ({self.hazard.reading}; P {self.hazard.score:.2f})"
        if self.probability is None:
            return "gate: no task under way"
        if self.vague:
            return f"gate: P(ER helps) {self.probability:.2f}, but no finding or missing step to name"
        rel = ">=" if self.action == "speak" else "<" if self.action == "silent" else "near"
        what = f"; {self.finding.kind}: {self.finding.evidence}" if self.finding is not None else ""
        return f"gate: P(ER helps) {self.probability:.2f} {rel} {self.threshold:.2f}{what}"


def top_finding(state: TrackerState) -> Finding | None:
    for kind in SAY_ORDER:
        for f in state.findings:
            if f.kind == kind:
                return f
    return None


class GateDecider:
    def __init__(
        self,
        gate: Gate,
        hazards: HazardDetector | None,
        *,
        chattiness: str,
        llm_too: bool,
        unsure_band: float,
        phrases: HazardMatcher | None = None,
    ) -> None:
        self.gate = gate
        self.hazards = hazards
        self.phrases = phrases  # the "hazard_cosine" feature of gate files trained on the phrase list
        self.chattiness = chattiness
        self.llm_too = llm_too
        self.unsure_band = unsure_band
        self.clock = SessionClock()

    def decide(
        self,
        session_id: str,
        t0: float,
        t1: float,
        state: TrackerState | None,
        step_hazards: tuple[str, ...],
        caption_vec: np.ndarray,
        caption: str = "",
    ) -> GateVerdict:
        timing = self.clock.update(session_id, state, t0, t1)
        hazard, hz = None, 0.0
        if self.hazards is not None:
            hazard, hz = self.hazards.detect_and_score(caption, caption_vec)
        trace: dict[str, Any] = {"chattiness": self.chattiness}
        if hazard is not None:
            trace["hazard"] = hazard.to_json()
            # An Instant alert does not wait for the task: it goes to the policy at once.
            return GateVerdict("speak", SubType.SAFETY, hazard=hazard, trace=trace)
        if state is None:
            return GateVerdict("silent", trace=trace)
        if self.gate.inputs == "caption_embedding":  # the caption-only baseline
            feats = {f"e{i}": float(x) for i, x in enumerate(caption_vec)}
        else:
            cos = self.phrases.cosine(caption_vec) if self.phrases is not None else 0.0
            feats = features(state, timing, step_hazards=step_hazards, hazard_cosine=cos, hazard_score=hz)
        p = self.gate.probability("ER", feats)
        if p is None:
            return GateVerdict("silent", trace=trace | {"note": "the gate has no ER model"})
        # The gate learned on streams that named their task; a task only recognised from the
        # captions may be the wrong one, so what it finds counts only as far as it is sure.
        p *= state.task_confidence
        thr = self.gate.threshold("ER", self.chattiness)
        trace.update(
            {
                "ER": round(p, 4),
                "threshold": round(thr, 4),
                "features": {k: round(v, 4) for k, v in feats.items()},
            }
        )
        finding = top_finding(state)
        if self.gate.inputs != "caption_embedding" and not can_name(feats):
            # An error alert says what is wrong: with no finding and no missing step there is
            # only "check this step", which leaves the wearer to guess.
            return GateVerdict("silent", SubType.ERROR_RECOVERY, None, None, p, thr, trace, vague=p >= thr)
        if self.llm_too and abs(p - thr) < self.unsure_band:
            return GateVerdict("unsure", SubType.ERROR_RECOVERY, finding, None, p, thr, trace)
        action = "speak" if p >= thr else "silent"
        return GateVerdict(action, SubType.ERROR_RECOVERY, finding, None, p, thr, trace)
