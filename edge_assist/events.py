"""The typed, timestamped events that pass between stages.

Every event is a frozen dataclass stamped by the one injected clock (`t`, seconds on
that clock). Stream times (`t0`, `t1`) are seconds from the start of the recording or
of the live session; they are what memory and causality (t' <= t) are about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import numpy as np


class MainType(str, Enum):
    INSTANT = "Instant"
    SHORT_TERM = "Short-Term"
    EPISODIC = "Episodic"
    LONG_TERM = "Long-Term"


class SubType(str, Enum):
    """The EgoServe service taxonomy (DESIGN.md, Services)."""

    SAFETY = "SA"
    TOOL_USE = "TU"
    NEXT_STEP_GUIDANCE = "NSG"
    ERROR_RECOVERY = "ER"
    RESOURCE_REMINDER = "RR"
    MEMORY_RECALL = "MR"
    TASK_REMINDER = "TR"
    HABIT_COACHING = "HC"
    MEMORY_LINK = "ML"
    ROUTINE_OPTIMIZATION = "RO"

    @property
    def main_type(self) -> MainType:
        return _MAIN_OF[self]

    @property
    def label(self) -> str:
        return _LABELS[self]

    @classmethod
    def parse(cls, value: str) -> SubType:
        """Accept the code ("ER"), the enum name or the label ("Error Recovery")."""
        v = value.strip()
        for st in cls:
            if v.upper() == st.value or v.upper().replace(" ", "_").replace("-", "_") == st.name:
                return st
            if v.lower() == st.label.lower():
                return st
        raise ValueError(f"unknown sub-type {value!r}; expected one of {', '.join(s.value for s in cls)}")


_MAIN_OF = {
    SubType.SAFETY: MainType.INSTANT,
    SubType.TOOL_USE: MainType.INSTANT,
    SubType.NEXT_STEP_GUIDANCE: MainType.SHORT_TERM,
    SubType.ERROR_RECOVERY: MainType.SHORT_TERM,
    SubType.RESOURCE_REMINDER: MainType.SHORT_TERM,
    SubType.MEMORY_RECALL: MainType.EPISODIC,
    SubType.TASK_REMINDER: MainType.EPISODIC,
    SubType.HABIT_COACHING: MainType.LONG_TERM,
    SubType.MEMORY_LINK: MainType.LONG_TERM,
    SubType.ROUTINE_OPTIMIZATION: MainType.LONG_TERM,
}
_LABELS = {
    SubType.SAFETY: "Safety",
    SubType.TOOL_USE: "Tool Use",
    SubType.NEXT_STEP_GUIDANCE: "Next-Step Guidance",
    SubType.ERROR_RECOVERY: "Error Recovery",
    SubType.RESOURCE_REMINDER: "Resource Reminder",
    SubType.MEMORY_RECALL: "Memory Recall",
    SubType.TASK_REMINDER: "Task Reminder",
    SubType.HABIT_COACHING: "Habit Coaching",
    SubType.MEMORY_LINK: "Memory Link",
    SubType.ROUTINE_OPTIMIZATION: "Routine Optimization",
}


@dataclass(frozen=True, eq=False)
class Frame:
    """One camera frame. `image` is BGR uint8 (OpenCV's layout)."""

    t: float
    index: int
    stream_t: float
    image: np.ndarray


@dataclass(frozen=True, eq=False)
class Keyframe:
    stream_t: float
    image: np.ndarray
    reason: str  # "even" or "scene-change"


@dataclass(frozen=True, eq=False)
class Clip:
    """A non-overlapping slice of the stream [t0, t1) with its chosen keyframes."""

    t: float
    session_id: str
    index: int
    t0: float
    t1: float
    keyframes: tuple[Keyframe, ...]
    frame_count: int
    dropped_frames: int = 0


@dataclass(frozen=True)
class Caption:
    """What happened in clip `index` of `session_id`, in words."""

    t: float
    session_id: str
    index: int
    t0: float
    t1: float
    text: str
    source: str = "replay"  # "replay" (caption stream) or the captioner's model name
    latency_s: float = 0.0
    image_count: int = 0
    keyframes: tuple[Keyframe, ...] = field(default=(), compare=False, repr=False)


@dataclass(frozen=True)
class UserQuery:
    """A question from the wearer: an external trigger with d_t = 1."""

    t: float
    text: str
    source: str = "cli"  # "cli", "stdin", "bridge", "voice"
    stream_t: float | None = None


@dataclass(frozen=True)
class Decision:
    """The reasoner's verdict for one step: stay silent, or speak a service."""

    t: float
    session_id: str
    clip_index: int
    stream_t0: float
    stream_t1: float
    speak: bool
    sub_type: SubType | None = None
    text: str = ""
    latency_s: float = 0.0
    reason: str = ""
    trigger: str = "proactive"  # "proactive" or "query"
    suppressed_by: str = ""  # the policy rule that silenced a wanted response
    timings_s: dict[str, float] = field(default_factory=dict, compare=False)
    trace: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    question: str = ""  # the wearer's words, when this decision answers them

    @property
    def main_type(self) -> MainType | None:
        return self.sub_type.main_type if self.sub_type else None

    def to_json(self) -> dict[str, Any]:
        asked = {"question": self.question} if self.question else {}
        return {
            "type": "decision",
            "t": round(self.t, 3),
            "session_id": self.session_id,
            "clip_index": self.clip_index,
            "t0": round(self.stream_t0, 3),
            "t1": round(self.stream_t1, 3),
            "decision": "speak" if self.speak else "silent",
            "main_type": self.main_type.value if self.main_type else None,
            "sub_type": self.sub_type.value if self.sub_type else None,
            **asked,
            "text": self.text,
            "latency_s": round(self.latency_s, 4),
            "reason": self.reason,
            "trigger": self.trigger,
            "suppressed_by": self.suppressed_by or None,
            "timings_s": {k: round(v, 4) for k, v in self.timings_s.items()},
        }

    @staticmethod
    def from_json(d: dict[str, Any]) -> Decision:
        """A decision as `to_json` wrote it (the trace is not in it)."""
        return Decision(
            float(d["t"]),
            str(d["session_id"]),
            int(d["clip_index"]),
            float(d["t0"]),
            float(d["t1"]),
            d["decision"] == "speak",
            SubType(d["sub_type"]) if d.get("sub_type") else None,
            str(d.get("text", "")),
            float(d.get("latency_s", 0.0)),
            str(d.get("reason", "")),
            str(d.get("trigger", "proactive")),
            str(d.get("suppressed_by") or ""),
            {str(k): float(v) for k, v in d.get("timings_s", {}).items()},
            question=str(d.get("question", "")),
        )


@dataclass(frozen=True)
class Utterance:
    """Something to say or show to the wearer, with a priority (higher cuts lower)."""

    t: float
    text: str
    priority: int
    sub_type: SubType | None = None
    duration_s: float = 5.0


@dataclass(frozen=True)
class StreamEnd:
    """The source has nothing more (end of a replay file)."""

    t: float
    reason: str = "end of stream"


PRIORITY_BACKGROUND = 0
PRIORITY_NORMAL = 1
PRIORITY_ANSWER = 2
PRIORITY_SAFETY = 3


def priority_of(sub_type: SubType | None, trigger: str = "proactive") -> int:
    if sub_type is SubType.SAFETY:
        return PRIORITY_SAFETY
    if trigger == "query":
        return PRIORITY_ANSWER
    return PRIORITY_NORMAL


# -- from the glasses (firmware_bridge) ---------------------------------------------

# Below these the glasses are constrained and the scheduler should shrink its budget.
LOW_BATTERY_PCT = 20.0
CRITICAL_BATTERY_PCT = 8.0
THERMAL_STATES = ("normal", "warm", "hot", "critical")


@dataclass(frozen=True)
class GlassesStatus:
    """Battery and thermal state reported by the glasses; the newest one is `link.status`."""

    t: float
    battery_pct: float | None = None
    charging: bool = False
    temperature_c: float | None = None
    thermal: str = "normal"  # one of THERMAL_STATES, as the firmware judges it

    @property
    def budget_factor(self) -> float:
        """Fraction of the normal step budget to spend (1.0 = all, 0.25 = a quarter)."""
        factor = {"normal": 1.0, "warm": 0.75, "hot": 0.5, "critical": 0.25}.get(self.thermal, 1.0)
        if self.battery_pct is not None and not self.charging:
            if self.battery_pct <= CRITICAL_BATTERY_PCT:
                factor = min(factor, 0.25)
            elif self.battery_pct <= LOW_BATTERY_PCT:
                factor = min(factor, 0.5)
        return factor

    @property
    def constrained(self) -> bool:
        return self.budget_factor < 1.0


@dataclass(frozen=True)
class ButtonEvent:
    """A button or touch-pad event on the glasses (push-to-talk, dismiss, ...)."""

    t: float
    button: str  # "main", "touch", ...
    action: str  # "press", "release", "tap", "long_press"; for touch: the gesture
    source: str = "bridge"
