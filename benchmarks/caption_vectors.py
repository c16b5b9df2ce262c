"""Real caption vectors for the memory-at-scale benchmarks, and an honest way to grow them.

The bundled CaptainCook4D caption streams (`edge_assist/data/captaincook4d`, original and
paraphrased wording, train and val) hold about 4,000 distinct captions. They are embedded
with the configured text encoder (MiniLM-L6 int8 by default), the same vectors the store
keeps. A year of memory holds about 1M clip vectors, so the real set is grown to N rows:

- half are a real caption vector plus small Gaussian noise (cosine ~0.93 to its source):
  the same activity described again on another day;
- half are a mixture of two real caption vectors (random weight 0.2-0.8) plus the same
  noise: a clip that shows parts of two steps.

Every row is renormalised. Queries are NOT drawn from the stored rows: they are the
recipes' step texts (another wording than the captions), the paraphrased captions of the
val split when the base is train-only, and short questions built from the step texts, all
embedded by the same encoder. Recall is then measured against exact search over the grown
set, so the figures hold for this distribution, which is denser (near-duplicates) than
uniform random vectors and clustered like real captions.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "edge_assist" / "data" / "captaincook4d"
NOISE = 0.015  # per-dimension sigma on unit 384-d vectors: cosine to the source ~0.93


def caption_texts(splits: tuple[str, ...] = ("train", "val")) -> list[str]:
    out: dict[str, None] = {}
    for split in splits:
        for f in sorted((DATA / split).glob("*/*.jsonl")):
            for line in f.read_text(encoding="utf-8").splitlines():
                obj = json.loads(line)
                if "text" in obj:
                    out.setdefault(" ".join(str(obj["text"]).split()), None)
    return list(out)


def query_texts() -> list[str]:
    """Recipe step texts (from each stream's task context) and questions made from them."""
    steps: dict[str, None] = {}
    for f in sorted(DATA.glob("*/original/*.jsonl")):
        first = json.loads(f.read_text(encoding="utf-8").splitlines()[0])
        ctx = str(first.get("meta", {}).get("task_context", ""))
        if "Steps in order:" in ctx:
            for part in ctx.split("Steps in order:", 1)[1].split(";"):
                s = part.strip().split(". ", 1)[-1].strip().rstrip(".")
                if s:
                    steps.setdefault(s, None)
    qs = list(steps)
    qs += [f"when did I {s[0].lower()}{s[1:]}?" for s in list(steps)[::3]]
    return qs


def embed(texts: list[str], batch: int = 64) -> np.ndarray:
    from edge_assist.config import load_config
    from edge_assist.inference.loader import load_text_encoder

    enc = load_text_encoder(load_config(None))
    parts = [np.asarray(enc.encode(texts[i : i + batch]), np.float32) for i in range(0, len(texts), batch)]
    v = np.concatenate(parts)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def grow(base: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    """N unit rows from the real ones: noisy copies and noisy two-caption mixtures (see module doc)."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, base.shape[1]), np.float32)
    step = 100_000
    for i in range(0, n, step):
        m = min(step, n - i)
        a = base[rng.integers(0, len(base), m)]
        b = base[rng.integers(0, len(base), m)]
        w = rng.uniform(0.2, 0.8, (m, 1)).astype(np.float32)
        mix = rng.random(m) < 0.5
        x = np.where(mix[:, None], w * a + (1 - w) * b, a)
        x = x + NOISE * rng.standard_normal(x.shape).astype(np.float32)
        out[i : i + m] = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def load(cache: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(caption vectors, query vectors), embedded now or read from `cache` (.npz) if given and present."""
    if cache is not None and cache.exists():
        z = np.load(cache)
        return z["base"], z["queries"]
    base, queries = embed(caption_texts()), embed(query_texts())
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, base=base, queries=queries)
    return base, queries
