"""Word-level soft lexicon for the writer-held-out check (`hazard_writers.py`, variants `wordsoft*`).

Each word of a caption (its contextual MiniLM vector, `OnnxTextEncoder.encode_words` on the
normalised caption) is scored by linear ridge probes, one per lexicon concept (role:name) and
one for "none", whose silver labels are the lexicon's own matches: a word inside a matched term's
span has that concept, a word no term matches is "none". A word the lexicon did not match whose
probe score for a concept is at least `tau` is read as that concept at its place
(`Lexicon.read(extra=...)`), so negation, nearness and absent guards still apply to it.

Probes are fitted from per-file Gram matrices, so a probe without any set of files costs one
385x385 solve; they are memoised by the files left out. A caption's soft reading is always from
a probe fitted without its own file and without every file its fit leaves out.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from edge_assist.reasoning.hazard_model import COMBOS
from edge_assist.reasoning.hazard_reading import ROLES, Lexicon, normalise

CACHE = Path("/tmp/hazwords")


def _tokens(t: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for w in t.split():
        a = t.index(w, pos)
        out.append((a, a + len(w)))
        pos = a + len(w)
    return out


def token_vectors(t: str, words: list[str], vecs: np.ndarray) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Whitespace tokens of `t` and one unit vector each: the mean of the encoder's words (which
    split at apostrophes and hyphens) that fall inside it."""
    toks = _tokens(t)
    out = np.zeros((len(toks), vecs.shape[1] if len(vecs) else 384), np.float32)
    pos, k = 0, 0
    spans = []
    for w in words:
        a = t.find(w, pos)
        if a < 0:
            spans.append((-1, -1))
            continue
        spans.append((a, a + len(w)))
        pos = a + len(w)
    for j, (a, b) in enumerate(toks):
        inside = [i for i, (c, d) in enumerate(spans) if c >= a and d <= b]
        if inside:
            v = vecs[inside].mean(0)
            out[j] = v / max(float(np.linalg.norm(v)), 1e-12)
        k += 1
    return toks, out


def encode(enc, texts: list[str]) -> list[tuple[list[str], np.ndarray]]:
    key = hashlib.sha1("\n".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"words_{key}.npz"
    if path.exists():
        z = np.load(path, allow_pickle=True)
        return list(zip(z["words"], z["vecs"], strict=True))
    out = enc.encode_words(texts)
    CACHE.mkdir(exist_ok=True)
    w = np.empty(len(out), dtype=object)
    v = np.empty(len(out), dtype=object)
    for i, (a, b) in enumerate(out):
        w[i], v[i] = a, b
    np.savez(path, words=w, vecs=v)
    return out


class WordSoft:
    """Per-word vectors, silver labels and memoised probes over a pool of captions."""

    def __init__(self, lex: Lexicon, texts: list[str], files: np.ndarray, kinds: np.ndarray, enc) -> None:
        self.lex = lex
        self.names = [f"{r}:{n}" for r in ROLES for n in lex.concepts.get(r, {})]
        col = {c: i for i, c in enumerate(self.names)}
        self.none = len(self.names)
        self.ts = [normalise(x) for x in texts]
        self.found = [lex.matches(t) for t in self.ts]
        words = encode(enc, [t or " " for t in self.ts])
        self.toks, self.vecs, self.matched, Y = [], [], [], []
        for t, f, (w, v) in zip(self.ts, self.found, words, strict=True):
            toks, tv = token_vectors(t, list(w), np.asarray(v))
            y = np.zeros((len(toks), self.none + 1), np.float32)
            m = np.zeros(len(toks), bool)
            for role, items in f.items():
                for n, a, b in items:
                    for j, (c, d) in enumerate(toks):
                        if c < b and a < d:
                            y[j, col[f"{role}:{n}"]] = 1.0
                            m[j] = True
            y[~m, self.none] = 1.0
            self.toks.append(toks)
            self.vecs.append(tv)
            self.matched.append(m)
            Y.append(y)
        self.files = np.asarray(files).astype(str)
        # Gram matrices per file and kind, so that a probe can leave out a file or a kind
        self.groups = np.char.add(np.char.add(self.files, "|"), np.asarray(kinds).astype(str))
        self.gram: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for f in np.unique(self.groups):
            idx = np.where(self.groups == f)[0]
            X = np.vstack([self.vecs[i] for i in idx]).astype(np.float64)
            X = np.hstack([X, np.ones((len(X), 1))])
            T = np.vstack([Y[i] for i in idx]).astype(np.float64)
            self.gram[str(f)] = (X.T @ X, X.T @ T)
        self._probes: dict[tuple, np.ndarray] = {}
        self._of_files: dict[frozenset, frozenset[str]] = {}
        self._combos: dict[tuple, np.ndarray] = {}

    def probe(self, left_out: frozenset[str], l2: float) -> np.ndarray:
        key = (left_out, l2)
        if key not in self._probes:
            G = sum(g for f, (g, _) in self.gram.items() if f not in left_out)
            B = sum(b for f, (_, b) in self.gram.items() if f not in left_out)
            reg = np.full(G.shape[0], l2)
            reg[-1] = 0.0
            self._probes[key] = np.linalg.solve(G + np.diag(reg), B)
        return self._probes[key]

    def extra(self, i: int, W: np.ndarray, tau: float) -> dict[str, list[tuple[str, int, int]]]:
        """The soft matches of caption i: unmatched words whose probe score for a concept is >= tau."""
        out: dict[str, list[tuple[str, int, int]]] = {r: [] for r in ROLES}
        if not len(self.toks[i]):
            return out
        V = self.vecs[i]
        S = np.hstack([V, np.ones((len(V), 1))]) @ W
        for j in np.where(~self.matched[i])[0]:
            for c in np.where(S[j, : self.none] >= tau)[0]:
                role, name = self.names[c].split(":")
                out[role].append((name, *self.toks[i][j]))
        return out

    def of_files(self, files) -> frozenset[str]:
        key = frozenset(str(f) for f in files)
        if key not in self._of_files:
            self._of_files[key] = frozenset(g for g in self.gram if g.split("|")[0] in key)
        return self._of_files[key]

    def of_kinds(self, kinds) -> frozenset[str]:
        return frozenset(g for g in self.gram if g.split("|")[1] in set(kinds))

    def combos_of(self, i: int, left_out: frozenset[str], l2: float, tau: float) -> np.ndarray:
        """Combos of caption i read with a probe fitted without the groups `left_out` and
        without its own file."""
        key = (i, left_out | self.of_files({self.files[i]}), l2, tau)
        if key not in self._combos:
            ex = self.extra(i, self.probe(key[1], l2), tau)
            if not any(ex.values()):
                return self.plain(i)
            r = self.lex._reading(self.ts[i], {k: self.found[i][k] + ex[k] for k in ROLES})
            self._combos[key] = np.array([f(r) for f in COMBOS.values()])
        return self._combos[key]

    def plain(self, i: int) -> np.ndarray:
        key = (i,)
        if key not in self._combos:
            r = self.lex._reading(self.ts[i], self.found[i])
            self._combos[key] = np.array([f(r) for f in COMBOS.values()])
        return self._combos[key]

    def combos(self, rows: np.ndarray, left_out: frozenset[str], l2: float, tau: float) -> np.ndarray:
        return np.array([self.combos_of(int(i), left_out, l2, tau) for i in rows])


def fit_protocol(mode: str, tau: float, word_l2: float) -> None:
    """`hazard_fit`'s protocol (fit on EXAMPLES, threshold on kind-held-out CV pooled with val,
    L2 from its grid) with the word-level soft lexicon; mode "" is the shipped features."""
    from benchmarks import hazard_fit as hf
    from edge_assist.config import Config
    from edge_assist.inference.loader import load_text_encoder
    from edge_assist.reasoning.hazard_model import similarity_features
    from edge_assist.reasoning.hazards import EXAMPLES

    enc, lex = load_text_encoder(Config()), Lexicon.load()
    tr = [{**r, "file": Path(e).stem} for e in EXAMPLES for r in hf.rows(Path(e).stem)]
    checked = {s: [{**r, "file": s} for r in hf.rows(s)] for s in ("val", "dev", "dev2")}
    everything = tr + [r for s in checked.values() for r in s]
    vecs = np.asarray(enc.encode([r["text"] for r in everything]), dtype=np.float32)
    ws = WordSoft(
        lex,
        [r["text"] for r in everything],
        np.array([r["file"] for r in everything]),
        np.array([r["kind"] for r in everything]),
        enc,
    )
    outside = ws.of_files(checked)
    n = len(tr)

    def design(idx, ex, left_out, cross):
        kinds = np.array([everything[e]["kind"] for e in ex])
        files = np.array([everything[e]["file"] for e in ex])
        is_h = np.array([everything[e]["label"] == "hazard" for e in ex])
        out = []
        for i in idx:
            r = everything[i]
            keep = ~((kinds == r["kind"]) & (files == r["file"])) if cross else np.ones(len(ex), bool)
            sim = similarity_features(vecs[i], vecs[ex][keep & is_h], vecs[ex][keep & ~is_h])
            c = ws.combos_of(i, left_out, word_l2, tau) if mode else ws.plain(i)
            out.append(np.concatenate([c, sim] if mode != "both" else [ws.plain(i), sim, c]))
        return np.array(out)

    y = np.array([r["label"] == "hazard" for r in everything], dtype=float)
    all_tr = np.arange(n)
    Xtr = design(all_tr, all_tr, outside, True)
    ranges, pos = {}, n
    for s, rs in checked.items():
        ranges[s] = np.arange(pos, pos + len(rs))
        pos += len(rs)
    X = {s: design(idx, all_tr, outside, False) for s, idx in ranges.items()}
    pooled = [r["label"] for r in tr + checked["val"]]
    for l2 in hf.L2_GRID:
        m, cv = fit_ms(Xtr, y[:n], l2), kind_cv(design, tr, y, ws, outside, l2)
        p = {s: hf.predict(m, X[s]) for s in X}
        thr = hf.choose_threshold(np.concatenate([cv, p["val"]]), pooled)
        print(f"mode {mode or 'shipped'} tau {tau:g} word l2 {word_l2:g} | l2 {l2:g}, threshold {thr:.3f}")
        print(count("  CV", cv, tr, thr))
        for s in X:
            print(count(f"  {s}", p[s], checked[s], thr))


def kind_cv(design, tr: list[dict], y: np.ndarray, ws: WordSoft, outside: frozenset[str], l2: float):
    """Out-of-fold probabilities with whole kinds held out, the word probes too fitted without
    the fold's kinds."""
    from benchmarks import hazard_fit as hf

    folds, cv = hf.kind_folds(tr), np.zeros(len(tr))
    for f in range(hf.FOLDS):
        a, b = np.where(folds != f)[0], np.where(folds == f)[0]
        lo = outside | ws.of_kinds({tr[i]["kind"] for i in b} - {"none"})
        mf = fit_ms(design(a, a, lo, True), y[a], l2)
        cv[b] = hf.predict(mf, design(b, a, lo, False))
    return cv


def fit_ms(X: np.ndarray, y: np.ndarray, l2: float):
    from benchmarks.hazard_fit import fit_logistic
    from edge_assist.reasoning.hazard_model import HazardModel

    mean, scale = X.mean(0), X.std(0)
    scale[scale < 1e-6] = 1.0
    w, b = fit_logistic((X - mean) / scale, y, l2)
    feats = tuple(str(i) for i in range(X.shape[1]))
    return HazardModel(feats, mean, scale, w, b, 0.5, {})


def count(name: str, p: np.ndarray, rs: list[dict], thr: float) -> str:
    lab = np.array([r["label"] for r in rs])
    f = p >= thr
    return (
        name
        + " "
        + "  ".join(
            f"{k} {int(f[lab == k].sum())}/{int((lab == k).sum())}"
            for k in ("hazard", "near_miss", "ordinary")
        )
    )


if __name__ == "__main__":
    import sys

    fit_protocol(sys.argv[1] if len(sys.argv) > 1 else "", *(float(x) for x in sys.argv[2:4] or (0.5, 10.0)))
