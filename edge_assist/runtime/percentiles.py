"""The one way a percentile is computed, so the figures of runs, benchmarks and reports compare.

numpy's `linear` interpolation (numpy's default; Hyndman and Fan's type 7, R's default): the
q-th percentile of n sorted samples lies at position q/100 * (n - 1), between the two samples
around it. p50 is then the median `statistics.median` gives. A figure moves smoothly as
samples come and go, where picking one sample (`sorted(xs)[int(q * n)]`) jumps to the
neighbour: with 20 samples that p95 is the largest, with 21 the second largest.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np

METHOD: Literal["linear"] = "linear"


def percentile(xs: Iterable[float], q: float, digits: int | None = None) -> float | None:
    """The q-th percentile (0-100) of xs, rounded to `digits` if given; None for no samples."""
    a = np.fromiter(xs, dtype=np.float64)
    if a.size == 0:
        return None
    v = float(np.percentile(a, q, method=METHOD))
    return v if digits is None else round(v, digits)


def p50_p95(xs: Iterable[float], digits: int | None = None, scale: float = 1.0) -> dict[str, float | None]:
    """{"p50", "p95"} of xs times `scale` (1000 for seconds to milliseconds)."""
    a = [scale * x for x in xs]
    return {"p50": percentile(a, 50, digits), "p95": percentile(a, 95, digits)}
