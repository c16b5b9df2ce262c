"""Training the index's lists (how many, on how big a sample, spherical k-means), and the
one-thread matrix-vector product that searches use too.

No store access: training runs outside any lock, in its own thread (`store_indexing`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

KMEANS_ITERS = 8
MIN_LISTS, MAX_LISTS = 16, 4096
# Training rows sampled per list.
SAMPLE_PER_LIST = 24


def rows_dot(mat: np.ndarray, v: np.ndarray) -> np.ndarray:
    """mat @ v in this thread. BLAS splits a matrix-vector product over its threads; on a loaded
    2-core machine waiting for the other thread made a 0.03 ms product take 4-20 ms at p95
    (measured: 2048 x 384 centroids, p95 wall 20 ms with `@`, 0.26 ms with einsum)."""
    return np.einsum("ij,j->i", mat, v)


def lists_for(n: int, list_size: int) -> int:
    """A power of two near n / list_size, so the scan per probe stays about list_size vectors."""
    want = max(1.0, n / max(1, list_size))
    return int(min(MAX_LISTS, max(MIN_LISTS, 2 ** round(math.log2(want)))))


class TrainingStopped(Exception):
    """k-means was asked to stop (the store is closing)."""


# Rows whose similarities to every centroid are computed at once. A whole sample at a year's
# scale (49k rows x 2,048 lists) was a 400 MB matrix for a moment; 4,096 rows is 32 MB.
ASSIGN_ROWS = 4096


def _nearest(x: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's nearest centroid and its similarity, block by block."""
    a = np.empty(len(x), np.int64)
    best = np.empty(len(x), np.float32)
    for i in range(0, len(x), ASSIGN_ROWS):
        sims = x[i : i + ASSIGN_ROWS] @ c.T
        a[i : i + len(sims)] = np.argmax(sims, axis=1)
        best[i : i + len(sims)] = sims[np.arange(len(sims)), a[i : i + len(sims)]]
    return a, best


def kmeans(
    x: np.ndarray,
    n_lists: int,
    *,
    iters: int = KMEANS_ITERS,
    seed: int = 0,
    stop: Callable[[], bool] | None = None,
) -> np.ndarray:
    """Spherical k-means (cosine): unit centroids. An emptied list is re-seeded from the worst-fit rows."""
    rng = np.random.default_rng(seed)
    x = np.asarray(x, np.float32)
    n_lists = min(n_lists, len(x))
    c = x[rng.choice(len(x), n_lists, replace=False)].copy()
    for _ in range(iters):
        if stop is not None and stop():
            raise TrainingStopped
        a, best = _nearest(x, c)
        order = np.argsort(a, kind="stable")
        counts = np.bincount(a, minlength=n_lists)
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        sums = np.add.reduceat(x[order], starts[counts > 0], axis=0)
        new = np.zeros_like(c)
        new[counts > 0] = sums
        empty = np.flatnonzero(counts == 0)
        if len(empty):
            worst = np.argsort(best)[: len(empty)]
            new[empty] = x[worst]
        c = new / np.maximum(np.linalg.norm(new, axis=1, keepdims=True), 1e-12)
    return c.astype(np.float32)
