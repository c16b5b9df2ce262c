"""Fit the hazard detector's logistic weights (edge_assist/data/hazard_model.json) with numpy.

Train on hazard_captions/train.jsonl (hazard = 1; near misses and ordinary lines = 0), with
each train caption's text-encoder neighbours taken among the train captions of other kinds
(see `design`). The L2
strength and the threshold are chosen on val.jsonl: the threshold is the highest probability
that still keeps recall on val hazards at its best value under the near-miss bound (alerts on
at most 5 % of val near misses). fresh.jsonl and test.jsonl are never read here; score them with
benchmarks/hazard_eval.py.

    .venv/bin/python -m benchmarks.hazard_fit [--write]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from edge_assist.config import Config
from edge_assist.inference.loader import load_text_encoder
from edge_assist.reasoning.hazard_model import FEATURES, HazardModel, feature_vector, similarity_features
from edge_assist.reasoning.hazard_reading import Lexicon
from edge_assist.reasoning.hazards import CAPTIONS, EXAMPLES, MODEL_PATH

NEAR_MISS_BOUND = 0.05
L2_GRID = (0.1, 0.3, 1.0)


def rows(split: str) -> list[dict]:
    return [
        json.loads(x) for x in (CAPTIONS / f"{split}.jsonl").read_text(encoding="utf-8").splitlines() if x
    ]


def design(
    lex: Lexicon, rs: list[dict], vecs: np.ndarray, ex: list[dict], ex_vecs: np.ndarray, cross: bool
) -> np.ndarray:
    """Feature rows. `cross`: the rows are the examples themselves (train); each then takes its
    neighbours among the examples of *other* kinds, because train was written in pairs (a hazard
    and its near miss share their objects), and a caption's own pair would make "near a written
    hazard" mean the opposite of what it means for a new caption."""
    is_h = np.array([e["label"] == "hazard" for e in ex])
    kinds = np.array([e["kind"] for e in ex])
    out = []
    for r, v in zip(rs, vecs, strict=True):
        keep = kinds != r["kind"] if cross else np.ones(len(ex), dtype=bool)
        sim = similarity_features(v, ex_vecs[keep & is_h], ex_vecs[keep & ~is_h])
        out.append(feature_vector(lex.read(r["text"]), sim))
    return np.array(out)


def fit_logistic(X: np.ndarray, y: np.ndarray, l2: float, iters: int = 60) -> tuple[np.ndarray, float]:
    """Newton's method on the L2-penalised log loss (the bias is not penalised)."""
    n, d = X.shape
    A = np.hstack([X, np.ones((n, 1))])
    w = np.zeros(d + 1)
    reg = np.full(d + 1, l2)
    reg[-1] = 0.0
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(A @ w, -40, 40)))
        g = A.T @ (p - y) / n + reg * w
        H = (A * (p * (1 - p))[:, None]).T @ A / n + np.diag(reg) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def rates(p: np.ndarray, labels: list[str], thr: float) -> tuple[float, float]:
    lab = np.array(labels)
    fired = p >= thr
    return float(fired[lab == "hazard"].mean()), float(fired[lab == "near_miss"].mean())


def choose_threshold(p: np.ndarray, labels: list[str]) -> float:
    """Best recall with near-miss alerts within the bound; among ties the highest threshold."""
    best, best_thr = -1.0, 0.5
    for thr in sorted(set(np.round(p, 6)) | {0.5}, reverse=True):
        rec, nm = rates(p, labels, thr)
        if nm <= NEAR_MISS_BOUND and rec > best:
            best, best_thr = rec, float(thr)
    return best_thr


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help=f"write {MODEL_PATH}")
    a = ap.parse_args(argv)
    enc = load_text_encoder(Config())
    lex = Lexicon.load()
    tr, va = rows("train"), rows("val")
    vtr = np.asarray(enc.encode([r["text"] for r in tr]), dtype=np.float32)
    vva = np.asarray(enc.encode([r["text"] for r in va]), dtype=np.float32)
    is_h = np.array([r["label"] == "hazard" for r in tr])
    Xtr = design(lex, tr, vtr, tr, vtr, cross=True)
    Xva = design(lex, va, vva, tr, vtr, cross=False)
    mean, scale = Xtr.mean(0), Xtr.std(0)
    scale[scale < 1e-6] = 1.0
    y = is_h.astype(float)
    results = []
    for l2 in L2_GRID:
        w, b = fit_logistic((Xtr - mean) / scale, y, l2)
        m = HazardModel(FEATURES, mean, scale, w, b, 0.5, {})
        pva = np.array([m.probability(x) for x in Xva])
        thr = choose_threshold(pva, [r["label"] for r in va])
        rec, nm = rates(pva, [r["label"] for r in va], thr)
        print(f"l2 {l2:g}: val recall {rec:.3f} near-miss alerts {nm:.3f} at threshold {thr:.3f}")
        results.append((rec - nm, l2, w, b, thr))
    _, l2, w, b, thr = max(results, key=lambda r: (r[0], r[1]))
    for name, wi in sorted(zip(FEATURES, w, strict=True), key=lambda t: -abs(t[1])):
        print(f"  {name:28s} {wi:+.3f}")
    if a.write:
        training = {
            "command": "python -m benchmarks.hazard_fit --write",
            "data": "hazard_captions/train.jsonl (hazard vs near_miss + ordinary)",
            "chosen_on": "hazard_captions/val.jsonl",
            "l2": l2,
            "near_miss_bound": NEAR_MISS_BOUND,
            "examples": EXAMPLES,
        }
        model = HazardModel(FEATURES, mean, scale, w, b, thr, training)
        Path(MODEL_PATH).write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_PATH} (l2 {l2:g}, threshold {thr:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
