"""The intervention policy: when a wanted response may actually be spoken.

Explicit, configurable rules (config [policy]) applied after the reasoner has decided:
per-sub-type cooldowns, a global cap per hour, do-not-disturb, and no repeat of the same
advice within a window (same normalised text, or text-encoder cosine above a threshold).
Safety bypasses cooldowns, the cap and do-not-disturb (it still is not repeated within
its own short window, unless it got worse: a higher `severity` than the alert it would
repeat); answers to the wearer's questions bypass everything. Every
suppression returns the rule and numbers that caused it, for Decision.suppressed_by.

Time is stream time (the caption's t1), never the wall clock, so a replay at any speed
and a live run make the same choices.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from dataclasses import dataclass

import numpy as np

from edge_assist.clock import Clock
from edge_assist.config import PolicyConfig
from edge_assist.events import SubType
from edge_assist.inference.base import TextEncoder

HOUR_S = 3600.0


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str = ""  # the rule that suppressed, with its numbers; "" when allowed


@dataclass(frozen=True)
class _Spoken:
    t: float
    sub_type: SubType
    text: str
    norm: str
    vector: np.ndarray | None
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
        # Check-then-remember must be atomic: two steps in flight at once (a question
        # overtaking a caption) could otherwise both pass the same cooldown.
        self._lock = asyncio.Lock()

    def _window_s(self) -> float:
        return max(self.cfg.repeat_window_s, self.cfg.safety_repeat_window_s, HOUR_S)

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
    ) -> Verdict:
        """Decide whether this response may be spoken now; remember it when it is. `about`, when
        given, is what the advice is about (e.g. one missing step however the sentence names
        the step in progress): repeats are judged on it instead of the text. `severity`: advice
        more severe than a recent one is not its repeat (a hazard that got worse)."""
        if trigger == "query":
            return Verdict(True)  # the wearer asked: always answer
        async with self._lock:
            return await self._admit(session_id, sub_type, about or text, now_t, severity)

    async def _admit(
        self, session_id: str, sub_type: SubType, text: str, now_t: float, severity: int = 0
    ) -> Verdict:
        if session_id != self._session:
            # Stream time restarts with a session; its history does not carry over.
            self._session = session_id
            self._spoken.clear()
        while self._spoken and self._spoken[0].t < now_t - self._window_s():
            self._spoken.popleft()

        safety = sub_type is SubType.SAFETY
        if not safety:
            if self.cfg.do_not_disturb:
                return Verdict(False, "do_not_disturb")
            cooldown = self.cfg.cooldown_s.get(sub_type.value, 0.0)
            last = next((s for s in reversed(self._spoken) if s.sub_type is sub_type), None)
            if last is not None and now_t - last.t < cooldown:
                return Verdict(
                    False,
                    f"cooldown:{sub_type.value} ({now_t - last.t:.1f} s since the last, needs {cooldown:g} "
                    f"s)",
                )
            if self.cfg.max_per_hour > 0:
                in_hour = sum(1 for s in self._spoken if s.t > now_t - HOUR_S)
                if in_hour >= self.cfg.max_per_hour:
                    return Verdict(
                        False,
                        f"max_per_hour ({in_hour} spoken in the last hour, cap {self.cfg.max_per_hour})",
                    )

        window = self.cfg.safety_repeat_window_s if safety else self.cfg.repeat_window_s
        norm = normalise(text)
        recent = [s for s in self._spoken if now_t - s.t < window and severity <= s.severity]
        vector: np.ndarray | None = None
        for s in recent:
            if s.norm == norm:
                return Verdict(False, f"repeat (same advice as at {s.t:.1f} s, window {window:g} s)")
        if recent:
            vector = await self._vector(text)
            if vector is not None:
                for s in recent:
                    if s.vector is None:
                        continue
                    cos = float(np.dot(vector, s.vector))
                    if cos >= self.cfg.repeat_similarity:
                        return Verdict(
                            False,
                            f"repeat (cosine {cos:.2f} >= {self.cfg.repeat_similarity:g} with advice at "
                            f"{s.t:.1f} s, "
                            f"window {window:g} s)",
                        )
        if vector is None:
            vector = await self._vector(text)
        self._spoken.append(_Spoken(now_t, sub_type, text, norm, vector, severity))
        return Verdict(True)
