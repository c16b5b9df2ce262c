"""The intervention policy: when a wanted response may actually be spoken.

Explicit, configurable rules (config [policy]) applied after the reasoner has decided:
per-sub-type cooldowns (shorter for a chattier wearer), a global cap per hour,
do-not-disturb, and no repeat of the same advice within a window (same normalised text, or
text-encoder cosine above a threshold).
An alert about a task needs a task under way (`task_alerts`).
Safety bypasses cooldowns, the cap and do-not-disturb (it still is not repeated within
its own short window, unless it got worse: a higher `severity` than the alert it would
repeat); answers to the wearer's questions bypass everything. Every
suppression returns the rule and numbers that caused it, for Decision.suppressed_by.

The policy keeps the strongest (`alert_strength`): a cooldown or a similar earlier advice
holds an alert back only when what was spoken was at least as strong, so a weak false alarm
never silences the true alert after it. An alert held back by a cooldown is kept (the latest
per piece of advice, `held_alerts`) and offered again on a later step once the cooldown
allows, if the caller still sees its finding and nothing as strong was spoken since.

Time is stream time (the caption's t1), never the wall clock, so a replay at any speed
and a live run make the same choices.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from edge_assist.clock import Clock
from edge_assist.config import PolicyConfig
from edge_assist.events import SubType
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.alert_strength import Strength
from edge_assist.reasoning.held_alerts import BEHIND_WEAKER, HeldAlert, HeldAlerts
from edge_assist.reasoning.task_alerts import TaskBasis, task_rule

HOUR_S = 3600.0
# Share of each proactive cooldown kept at each chattiness: a chattier wearer hears a second,
# different alert sooner after the first (a skipped step, then a swapped ingredient at the next).
COOLDOWN_SHARE = {"quiet": 1.0, "normal": 0.5, "chatty": 0.25}


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str = ""  # the rule that suppressed, with its numbers; "" when allowed


@dataclass(frozen=True)
class _Spoken:
    t: float
    sub_type: SubType
    text: str
    norm: str  # the advice, normalised: what repeats are judged on
    said: str  # the sentence, normalised
    vector: np.ndarray | None
    strength: Strength
    severity: int = 0


def normalise(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", text.lower()).split())


class InterventionPolicy:
    def __init__(
        self, cfg: PolicyConfig, *, text_encoder: TextEncoder | None = None, clock: Clock | None = None
    ):
        self.cfg = cfg
        self._encoder = text_encoder
        self._clock = clock
        self._session = ""
        self._spoken: deque[_Spoken] = deque()
        self.held = HeldAlerts()
        # Check-then-remember must be atomic: two steps in flight at once (a question
        # overtaking a caption) could otherwise both pass the same cooldown.
        self._lock = asyncio.Lock()

    @property
    def chattiness(self) -> str:
        return self.cfg.chattiness

    def _window_s(self) -> float:
        return max(
            self.cfg.repeat_window_s, self.cfg.safety_repeat_window_s, self.cfg.error_repeat_window_s, HOUR_S
        )

    async def _vector(self, text: str) -> np.ndarray | None:
        if self._encoder is None or self.cfg.repeat_similarity >= 1.0:
            return None
        enc = self._encoder
        if self._clock is not None:
            vecs = await self._clock.run_blocking(enc.encode, [text])
        else:
            vecs = enc.encode([text])
        return np.asarray(vecs[0], dtype=np.float32)

    async def admit(
        self,
        *,
        session_id: str,
        sub_type: SubType,
        text: str,
        now_t: float,
        trigger: str = "proactive",
        about: str = "",
        severity: int = 0,
        score: float | None = None,
        subject: object = None,
        reason: str = "",
        basis: TaskBasis | None = None,
    ) -> Verdict:
        """Decide whether this response may be spoken now; remember it when it is. `about`, when
        given, is what the advice is about (e.g. one missing step however the sentence names
        the step in progress): repeats are judged on it instead of the text. `severity`: advice
        more severe than a recent one is not its repeat (a hazard that got worse). `score` is the
        decider's number within the service (its strength); `subject` and `reason` are kept
        with an alert a cooldown holds back, for `reoffer`. `basis`: the task an alert rests on;
        a task alert without a task under way is not said (`task_alerts`)."""
        if trigger == "query":
            return Verdict(True)  # the wearer asked: always answer
        rule = task_rule(sub_type, basis)
        if rule:
            return Verdict(False, rule)
        strength = Strength.of(sub_type, score)
        async with self._lock:
            self._start(session_id, now_t)
            verdict = await self._admit(sub_type, text, about or text, now_t, strength, severity)
            if not verdict.allowed and verdict.reason.startswith("cooldown:"):
                key = (sub_type.value, normalise(about or text))
                self.held.keep(HeldAlert(now_t, sub_type, text, about, strength, subject, reason, key))
            return verdict

    async def reoffer(
        self, *, session_id: str, now_t: float, stands: Callable[[HeldAlert], bool]
    ) -> HeldAlert | None:
        """The strongest held-back alert that may be spoken now, remembered as spoken; None
        when none may. Held alerts whose finding no longer `stands`, or that an alert of their
        service at least as strong spoken after them supersedes, are dropped."""
        async with self._lock:
            self._start(session_id, now_t)
            for held in self.held.pending():
                if not stands(held) or self._superseded(held):
                    self.held.drop(held)
                    continue
                verdict = await self._admit(
                    held.sub_type, held.text, held.about or held.text, now_t, held.strength
                )
                if verdict.allowed:
                    self.held.drop(held)
                    return held
            return None

    def _start(self, session_id: str, now_t: float) -> None:
        if session_id != self._session:
            # Stream time restarts with a session; its history does not carry over.
            self._session = session_id
            self._spoken.clear()
            self.held.clear()
        while self._spoken and self._spoken[0].t < now_t - self._window_s():
            self._spoken.popleft()
        self.held.expire(now_t - self.cfg.repeat_window_s)

    def _superseded(self, held: HeldAlert) -> bool:
        return any(
            s.t > held.t and s.sub_type is held.sub_type and not held.strength.beats(s.strength)
            for s in self._spoken
        )

    async def _admit(
        self, sub_type: SubType, text: str, advice: str, now_t: float, strength: Strength, severity: int = 0
    ) -> Verdict:
        if sub_type is not SubType.SAFETY:
            capped = self._capped(sub_type, now_t, strength)
            if capped:
                return Verdict(False, capped)
        window = self.cfg.safety_repeat_window_s if sub_type is SubType.SAFETY else self.cfg.repeat_window_s
        norm = normalise(advice)
        recent = [s for s in self._spoken if now_t - s.t < window and severity <= s.severity]
        # The same sentence of Error Recovery said again minutes later tells the wearer nothing
        # new: on a day with interruptions it is the same misreading said twice. A reminder of
        # the same skipped step at a later step is another sentence, and keeps `window`.
        long_window = self.cfg.error_repeat_window_s if sub_type is SubType.ERROR_RECOVERY else 0.0
        said = normalise(text)
        for s in self._spoken:
            # The same advice already said is no weaker alert standing in the way: it is this one.
            if s.norm != norm or severity > s.severity:
                continue
            same = max(window, long_window) if s.said == said else window
            if now_t - s.t < same:
                return Verdict(False, f"repeat (same advice as at {s.t:.1f} s, window {same:g} s)")
        vector = await self._vector(advice)
        if vector is not None:
            for s in recent:
                if s.vector is None or strength.beats(s.strength):
                    continue
                cos = float(np.dot(vector, s.vector))
                if cos >= self.cfg.repeat_similarity:
                    return Verdict(
                        False,
                        f"repeat (cosine {cos:.2f} >= {self.cfg.repeat_similarity:g} with advice at "
                        f"{s.t:.1f} s, window {window:g} s)",
                    )
        self._spoken.append(_Spoken(now_t, sub_type, text, norm, said, vector, strength, severity))
        return Verdict(True)

    def _capped(self, sub_type: SubType, now_t: float, strength: Strength) -> str:
        """The cap or cooldown that holds a non-Safety alert back now ("" when none does)."""
        if self.cfg.do_not_disturb:
            return "do_not_disturb"
        cooldown = self.cfg.cooldown_s.get(sub_type.value, 0.0) * COOLDOWN_SHARE[self.cfg.chattiness]
        # Only an alert at least as strong keeps the cooldown on for this one.
        last = next(
            (
                s
                for s in reversed(self._spoken)
                if s.sub_type is sub_type and now_t - s.t < cooldown and not strength.beats(s.strength)
            ),
            None,
        )
        if last is not None:
            since = now_t - last.t
            # Steps of one stream may overlap in time: this one can end before the last alert's.
            when = (
                f"{since:.1f} s since the last"
                if since >= 0
                else f"the last at {last.t:.1f} s, after this step ended"
            )
            return f"cooldown:{sub_type.value} ({when}, needs {cooldown:g} s)"
        if self.cfg.max_per_hour > 0:
            in_hour = [s for s in self._spoken if s.t > now_t - HOUR_S]
            if len(in_hour) >= self.cfg.max_per_hour:
                # A cap is a cap; the reason says when weaker alerts filled it, for the reports.
                weaker = [s for s in in_hour if strength.beats(s.strength)]
                behind = (
                    f"; {BEHIND_WEAKER}: {weaker[-1].strength.text()} at {weaker[-1].t:.1f} s"
                    if weaker
                    else ""
                )
                cap = self.cfg.max_per_hour
                return f"max_per_hour ({len(in_hour)} spoken in the last hour, cap {cap}{behind})"
        return ""
