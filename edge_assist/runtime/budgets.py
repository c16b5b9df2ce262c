"""Step budgets and latency histograms: how long a step may take, and how long sections took.

Every step (one clip, or one wearer question) gets a `StepBudget`, counted from the end
of the clip; the step's budget travels in a context variable, so the search gate and
the phrasing can ask how much time is left.
"""

from __future__ import annotations

import bisect
import contextvars
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from edge_assist.runtime.percentiles import percentile

CURRENT_STEP: contextvars.ContextVar[StepBudget | None] = contextvars.ContextVar(
    "edge_assist_step", default=None
)
# Histogram bucket bounds for latencies: 10 ms to 2 min, roughly x2 apart.
BUCKETS_S = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 60.0, 120.0)


@dataclass
class StepBudget:
    total_s: float
    started: float  # timer() at the end of the clip
    is_query: bool = False
    plan_note: str = ""
    deferred: bool = False
    # perf_counter live; the virtual clock's now() in a replay (see Scheduler.use_stream_time).
    timer: Callable[[], float] = field(default=time.perf_counter, repr=False, compare=False)
    wall_started: float = field(default_factory=time.perf_counter, repr=False, compare=False)

    def elapsed_s(self) -> float:
        return self.timer() - self.started

    def remaining_s(self) -> float:
        return self.total_s - self.elapsed_s()


class Histogram:
    def __init__(self, bounds: Sequence[float] = BUCKETS_S) -> None:
        self.bounds = tuple(bounds)
        self.counts = [0] * (len(self.bounds) + 1)
        self.values: deque[float] = deque(maxlen=4096)  # recent raw values, for percentiles

    def add(self, seconds: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, seconds)] += 1
        self.values.append(seconds)

    def to_json(self) -> dict[str, Any]:
        v = sorted(self.values)
        n = sum(self.counts)

        def q(p: float) -> float | None:
            return percentile(v, 100 * p, 4)

        return {
            "count": n,
            "p50_s": q(0.5),
            "p95_s": q(0.95),
            "max_s": round(v[-1], 4) if v else None,
            "buckets": {f"<={b:g}s": c for b, c in zip(self.bounds, self.counts, strict=False) if c}
            | ({f">{self.bounds[-1]:g}s": self.counts[-1]} if self.counts[-1] else {}),
        }
