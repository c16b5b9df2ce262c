"""A linear probe on the MiniLM sentence vector, measured on the writer-held-out check: a
regularised logistic regression from the 384-d caption vector (or the vector of the caption with
the captioner's framing dropped, or of its 8-word windows) to the hazard label, used alone and as
one more feature of the shipped model (its log-odds, out of file on the model's training rows).

Scored exactly as `benchmarks/hazard_writers.py` scores its variants (each written file by a fit
on the others, at a threshold chosen on the other files' out-of-file near misses at 5 %), and
as `benchmarks/hazard_fit.py` reports val, dev and dev2 (a fit on the train files, the threshold
chosen on kind-held-out CV of train pooled with val). Every probe score a fit trains on comes from
a probe fitted without that row's file and without the held-out file, so the stacked model learns
how far the probe carries to a hand it has not seen. Vectors are cached under /tmp/hazprobe.

    .venv/bin/python -m benchmarks.hazard_probe [--variant shipped alone stacked ...] [--probe-l2 0.1]
        [--auroc] [--cost] [--no-fit-protocol]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.hazard_eval import omelette_rows
from benchmarks.hazard_fit import choose_threshold, fit_logistic, kind_folds, rows
from benchmarks.hazard_writers import ORDINARY, WRITTEN, Pool, concept_targets, report, similarity, target_row
from edge_assist.config import Config
from edge_assist.inference.loader import load_text_encoder
from edge_assist.reasoning.hazard_model import COMBOS
from edge_assist.reasoning.hazard_reading import Lexicon, normalise
from edge_assist.reasoning.hazards import EXAMPLES

CACHE = Path("/tmp/hazprobe")
WIDTH, STRIDE = 8, 2  # the windows: 8 words, every second word
TRAIN_FILES = tuple(Path(e).stem for e in EXAMPLES)


def cached_encode(texts: list[str]) -> np.ndarray:
    """Unit MiniLM vectors of `texts`, from /tmp/hazprobe when encoded before."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / "vectors.npz"
    known: dict[str, np.ndarray] = {}
    if path.exists():
        z = np.load(path, allow_pickle=False)
        known = dict(zip(z["texts"].tolist(), z["vecs"], strict=True))
    missing = sorted({t for t in texts if t not in known})
    if missing:
        enc = load_text_encoder(Config())
        for t, v in zip(missing, np.asarray(enc.encode(missing), dtype=np.float32), strict=True):
            known[t] = v
        np.savez(path, texts=np.array(list(known)), vecs=np.stack(list(known.values())))
    return np.stack([known[t] for t in texts])


def windows(text: str) -> list[str]:
    """The caption's 8-word windows (the whole caption when it is shorter)."""
    w = text.split()
    if len(w) <= WIDTH:
        return [text]
    starts = list(range(0, len(w) - WIDTH + 1, STRIDE))
    if starts[-1] != len(w) - WIDTH:
        starts.append(len(w) - WIDTH)
    return [" ".join(w[s : s + WIDTH]) for s in starts]


@dataclass
class Vectors:
    raw: np.ndarray
    strip: np.ndarray  # the caption with framing and hedges dropped, as the lexicon reads it
    win: np.ndarray  # every window of every caption
    win_row: np.ndarray  # the caption each window belongs to
    win_max: np.ndarray  # per caption, the element-wise max over its windows, renormalised


def load() -> tuple[Pool, Vectors]:
    """The writer-held-out pool, with the omelette demo's captions appended as file "omelette"
    (never fitted on)."""
    lex = Lexicon.load()
    rs = [{**r, "file": f} for f in WRITTEN + ORDINARY for r in rows(f)]
    rs += [{**r, "file": "omelette"} for r in omelette_rows()]
    texts = [r["text"] for r in rs]
    wins = [windows(t) for t in texts]
    flat = [w for ws in wins for w in ws]
    strip = [normalise(t) or t for t in texts]
    allv = cached_encode(texts + strip + flat)
    n = len(texts)
    raw, sv, wv = allv[:n], allv[n : 2 * n], allv[2 * n :]
    win_row = np.repeat(np.arange(n), [len(w) for w in wins])
    wmax = np.full((n, raw.shape[1]), -np.inf, dtype=np.float32)
    np.maximum.at(wmax, win_row, wv)
    wmax /= np.linalg.norm(wmax, axis=1, keepdims=True)
    readings = [lex.read(t) for t in texts]
    targets = concept_targets(lex)
    pool = Pool(
        rs,
        np.array([r["file"] for r in rs]),
        np.array([r["kind"] for r in rs]),
        np.array([r["label"] == "hazard" for r in rs], dtype=float),
        np.array([r["label"] for r in rs]),
        raw,
        np.array([[f(x) for f in COMBOS.values()] for x in readings]),
        np.array([target_row(x, r["label"], targets) for x, r in zip(readings, rs, strict=True)]),
        targets,
    )
    return pool, Vectors(raw, sv, wv, win_row, wmax)


@dataclass(frozen=True)
class Variant:
    name: str
    inputs: str = ""  # "" no probe; raw, strip, raw+strip, raw+winmax: the probe's input vectors
    windows: bool = False  # score the probe on each window too and keep the caption's highest
    pairs: bool = False  # fit the probe on written hazards against their near misses only
    stacked: bool = True  # the probe's log-odds as one more feature of the shipped model


class Prober:
    """Probe fits, memoised by the rows they are fitted on (every fit here is on whole files or
    folds, so the same fit recurs across held-out files and variants)."""

    def __init__(self, pool: Pool, vec: Vectors, l2: float) -> None:
        self.pool, self.vec, self.l2 = pool, vec, l2
        self.memo: dict[tuple, tuple[np.ndarray, np.ndarray, np.ndarray, float]] = {}
        self.fits = 0

    def X(self, inputs: str) -> np.ndarray:
        return np.hstack([getattr(self.vec, k.replace("winmax", "win_max")) for k in inputs.split("+")])

    def fit(self, v: Variant, fit_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        key = (v.inputs, v.pairs, hashlib.sha1(np.sort(fit_rows).tobytes()).hexdigest())
        if key not in self.memo:
            r = fit_rows
            if v.pairs:
                r = r[np.isin(self.pool.label[r], ("hazard", "near_miss"))]
            X = self.X(v.inputs)[r].astype(np.float64)
            mean, scale = X.mean(0), X.std(0) + 1e-6
            w, b = fit_logistic((X - mean) / scale, self.pool.y[r], self.l2, iters=30)
            self.memo[key] = (mean, scale, w, b)
            self.fits += 1
        return self.memo[key]

    def score(self, v: Variant, fit_rows: np.ndarray, rows_: np.ndarray) -> np.ndarray:
        """Log-odds of rows `rows_` from the probe fitted on `fit_rows`."""
        mean, scale, w, b = self.fit(v, fit_rows)
        z = ((self.X(v.inputs)[rows_] - mean) / scale) @ w + b
        if v.windows:
            # The probe is fitted on whole captions; a window that reads as a hazard counts.
            d = self.vec.raw.shape[1]
            wm, ws = mean[:d], scale[:d]
            sel = np.isin(self.vec.win_row, rows_)
            zw = ((self.vec.win[sel] - wm) / ws) @ w[:d] + b
            best = np.full(len(self.pool.rows), -np.inf)
            np.maximum.at(best, self.vec.win_row[sel], zw)
            z = np.maximum(z, best[rows_])
        return z

    def out_of_file(self, v: Variant, tr: np.ndarray) -> np.ndarray:
        """Probe log-odds of each training row from a probe fitted on the others without its file."""
        out = np.zeros(len(tr))
        for f in np.unique(self.pool.file[tr]):
            inside = self.pool.file[tr] == f
            out[inside] = self.score(v, tr[~inside], tr[inside])
        return out


def fit_and_score(pr: Prober, tr: np.ndarray, te: np.ndarray, v: Variant, l2: float) -> np.ndarray:
    """Probabilities for rows `te` from a fit on rows `tr` (the shipped fit, with the probe)."""
    pool = pr.pool
    if v.inputs and not v.stacked:
        return 1.0 / (1.0 + np.exp(-np.clip(pr.score(v, tr, te), -40, 40)))
    Xtr = np.hstack([pool.combos[tr], similarity(pool, tr, tr, cross=True)])
    Xte = np.hstack([pool.combos[te], similarity(pool, te, tr, cross=False)])
    if v.inputs:
        Xtr = np.hstack([Xtr, pr.out_of_file(v, tr)[:, None]])
        Xte = np.hstack([Xte, pr.score(v, tr, te)[:, None]])
    mean, scale = Xtr.mean(0), Xtr.std(0)
    scale[scale < 1e-6] = 1.0
    w, b = fit_logistic((Xtr - mean) / scale, pool.y[tr], l2)
    return 1.0 / (1.0 + np.exp(-np.clip(((Xte - mean) / scale) @ w + b, -40, 40)))


def held_out(pr: Prober, v: Variant, l2: float) -> dict[str, tuple[np.ndarray, float]]:
    """As hazard_writers.held_out: each written file from a fit without it, at a threshold chosen
    on the other written files' out-of-file probabilities (each from a fit without it and the
    held-out file)."""
    pool = pr.pool
    everything = np.where(np.isin(pool.file, WRITTEN + ORDINARY))[0]
    out = {}
    for f in WRITTEN:
        te, rest = np.where(pool.file == f)[0], everything[pool.file[everything] != f]
        inner_p, inner_lab = [], []
        for g in WRITTEN:
            if g != f:
                gi = np.where(pool.file == g)[0]
                inner_p.append(fit_and_score(pr, rest[pool.file[rest] != g], gi, v, l2))
                inner_lab += list(pool.label[gi])
        out[f] = (fit_and_score(pr, rest, te, v, l2), choose_threshold(np.concatenate(inner_p), inner_lab))
    return out


def counts(pool: Pool, idx: np.ndarray, p: np.ndarray, thr: float) -> str:
    lab, fired = pool.label[idx], p >= thr
    return "  ".join(
        f"{k} {int(fired[lab == k].sum())}/{int((lab == k).sum())}"
        for k in ("hazard", "near_miss", "ordinary")
        if (lab == k).any()
    )


def fit_protocol(pr: Prober, v: Variant, l2: float) -> str:
    """As hazard_fit reports it: kind-held-out CV of the train files, val, dev, dev2 and the
    omelette demo from a fit on the train files, the threshold on CV + val at 5 % of near misses;
    beside them each ordinary file scored by a fit without it."""
    pool = pr.pool
    tr = np.where(np.isin(pool.file, TRAIN_FILES))[0]
    folds = kind_folds([pool.rows[i] for i in tr])
    cv = np.zeros(len(tr))
    for k in range(folds.max() + 1):
        cv[folds == k] = fit_and_score(pr, tr[folds != k], tr[folds == k], v, l2)
    checks = {s: np.where(pool.file == s)[0] for s in ("val", "dev", "dev2", "omelette")}
    p = {s: fit_and_score(pr, tr, i, v, l2) for s, i in checks.items()}
    thr = choose_threshold(
        np.concatenate([cv, p["val"]]), list(pool.label[tr]) + list(pool.label[checks["val"]])
    )
    lines = [f"  threshold {thr:.3f}", f"  train, kinds held out  {counts(pool, tr, cv, thr)}"]
    lines += [f"  {s:8s} {counts(pool, i, p[s], thr)}" for s, i in checks.items()]
    ins = fit_and_score(pr, tr, tr, v, l2)
    for o in ORDINARY:
        oi = np.where(pool.file == o)[0]
        po = fit_and_score(pr, tr[pool.file[tr] != o], oi, v, l2)
        lines.append(
            f"  {o} alerts: fitted on {int((ins[pool.file[tr] == o] >= thr).sum())}/{len(oi)},"
            f" held out {int((po >= thr).sum())}/{len(oi)}"
        )
    return "\n".join(lines)


def auroc(pos: np.ndarray, neg: np.ndarray) -> float:
    """The chance that a positive outscores a negative (ties count half)."""
    d = pos[:, None] - neg[None, :]
    return float((d > 0).mean() + 0.5 * (d == 0).mean())


def separation(pr: Prober, v: Variant) -> str:
    """Per written file, how well the probe fitted on every other file tells its hazards from its
    near misses (AUROC), and from its near misses and ordinary lines together."""
    pool = pr.pool
    everything = np.where(np.isin(pool.file, WRITTEN + ORDINARY))[0]
    out = []
    for f in WRITTEN:
        te = np.where(pool.file == f)[0]
        z, lab = pr.score(v, everything[pool.file[everything] != f], te), pool.label[te]
        out.append(
            f"{f} {auroc(z[lab == 'hazard'], z[lab == 'near_miss']):.2f}"
            f" / {auroc(z[lab == 'hazard'], z[lab != 'hazard']):.2f}"
        )
    return "  AUROC hazard vs near miss / vs the rest, file held out: " + ", ".join(out)


def cost(pr: Prober, v: Variant, n: int = 200) -> str:
    """CPU per caption at run time for what the probe adds: the encoder calls beyond the caption's
    own vector (framing-stripped caption, windows), one caption at a time, and the probe's product."""
    pool, enc = pr.pool, load_text_encoder(Config())
    texts = [r["text"] for r in pool.rows if r["file"] == "val"][:n]
    mean, scale, w, b = pr.fit(v, np.where(np.isin(pool.file, TRAIN_FILES))[0])
    t = time.process_time()
    for x in texts:
        if "strip" in v.inputs:
            enc.encode([normalise(x) or x])
        if v.windows or "winmax" in v.inputs:
            ws = windows(x)
            if len(ws) > 1:
                enc.encode(ws)
    extra = (time.process_time() - t) / len(texts) * 1e3
    X = pr.X(v.inputs)[: len(texts)]
    t = time.process_time()
    for x in X:
        float(np.einsum("i,i->", (x - mean) / scale, w) + b)
    dot = (time.process_time() - t) / len(texts) * 1e3
    return f"  CPU per caption: extra encoding {extra:.2f} ms, probe {dot:.3f} ms ({len(texts)} val captions)"


VARIANTS = {
    "shipped": Variant("the shipped features (reading and similarity)"),
    "alone": Variant("probe on the caption vector, alone", "raw", stacked=False),
    "alone_pairs": Variant("probe (hazards vs near misses only), alone", "raw", pairs=True, stacked=False),
    "stacked": Variant("+ probe on the caption vector", "raw"),
    "stacked_pairs": Variant("+ probe fitted on hazards vs near misses only", "raw", pairs=True),
    "stacked_strip": Variant("+ probe on the framing-stripped caption vector", "strip"),
    "stacked_both": Variant("+ probe on caption and framing-stripped vectors", "raw+strip"),
    "stacked_winmax": Variant("+ probe, best of the caption and its 8-word windows", "raw", windows=True),
    "stacked_winpool": Variant("+ probe on caption and window-max-pooled vectors", "raw+winmax"),
    "alone_winmax": Variant("probe, best of caption and windows, alone", "raw", windows=True, stacked=False),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--l2", type=float, default=0.3, help="the shipped model's L2")
    ap.add_argument("--probe-l2", type=float, default=0.1, help="the probe's L2 (standardised inputs)")
    ap.add_argument("--variant", choices=sorted(VARIANTS), nargs="+", default=["shipped", "stacked"])
    ap.add_argument("--no-fit-protocol", action="store_true")
    ap.add_argument("--auroc", action="store_true", help="the probe's separation per held-out file")
    ap.add_argument("--cost", action="store_true", help="CPU per caption of what the probe adds")
    a = ap.parse_args(argv)
    pool, vec = load()
    pr = Prober(pool, vec, a.probe_l2)
    for name in a.variant:
        v = VARIANTS[name]
        t = time.process_time()
        text, r, n = report(pool, held_out(pr, v, a.l2))
        extra = f", probe l2 {a.probe_l2:g}" if v.inputs else ""
        print(f"{name}: {v.name} (l2 {a.l2:g}{extra}; {time.process_time() - t:.0f} s CPU)\n{text}")
        if v.inputs and a.auroc:
            print(separation(pr, v))
        if v.inputs and a.cost:
            print(cost(pr, v))
        if not a.no_fit_protocol:
            print(fit_protocol(pr, v, a.l2))
        print(
            json.dumps({"variant": name, "pooled_recall": round(r, 4), "near_miss": round(n, 4)}), flush=True
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
