"""A learned pair-level relation for the writer-held-out check (`hazard_writers.py`, variants `pair*`).

The lexicon reads concepts; whether two of them stand in a hazardous relation it reads only
through its relation terms ("touching", "left on") and their nearness. Here every pair of a
source match and another read concept (an exposure, or a source of another name: "sparks" and
"sawdust" are both sources) in a caption gets a vector from the encoder's contextual word
vectors (`OnnxTextEncoder.encode_words` on the normalised caption): the mean of each span's
words, the mean of the words between them, the two spans' elementwise product (scaled to the
others' size) and their distance and order. A ridge probe says whether the pair is hazardous.

Weak labels: every pair in a hazard caption is hazardous, every pair in a near miss or an
ordinary caption is not, each pair weighed 1/(pairs in its caption) so that a caption counts
once. A hazard caption's non-hazardous pairs are noise that the max over a caption tolerates
(the caption's score is its best pair's). Probes are fitted from per-file Gram matrices, and a
caption's score always comes from a probe fitted without its own file and without every file
its fit leaves out, as the word-level soft lexicon's are (`hazard_wordsoft.py`).

The caption's best pair score is a feature beside the shipped ones (`pair`), or with that score
times "no guard read" too (`pair_unguarded`), or read as a relation (`pair_read`): a pair
scoring >= tau adds a `contact` exposure at its target span, so negation, nearness and guards
apply to it as to a lexicon term; `pair_both` does both. `temp` > 0 adds one multiple-instance
round (see `_refit`).
"""

from __future__ import annotations

import numpy as np

from benchmarks.hazard_wordsoft import encode, token_vectors
from edge_assist.reasoning.hazard_model import COMBOS
from edge_assist.reasoning.hazard_reading import ROLES, Lexicon, normalise

PAIRED = ("source", "exposure")


def _covered(toks: list[tuple[int, int]], a: int, b: int) -> tuple[int, ...]:
    return tuple(j for j, (c, d) in enumerate(toks) if c < b and a < d)


def pair_vector(V: np.ndarray, A: tuple[int, ...], B: tuple[int, ...]) -> np.ndarray:
    """The relation vector of spans A (the source) and B (the other concept) of one caption."""
    dim = V.shape[1]
    a, b = V[list(A)].mean(0), V[list(B)].mean(0)
    lo, hi = (max(A) + 1, min(B)) if max(A) < min(B) else (max(B) + 1, min(A))
    mid = V[lo:hi].mean(0) if hi > lo else np.zeros(dim, V.dtype)
    gap = max(hi - lo, 0)
    return np.concatenate([a, b, mid, a * b * np.sqrt(dim), [min(gap, 20) / 10.0, float(max(A) < min(B))]])


class Pairs:
    """The pairs of every caption of a pool, their vectors and memoised probes."""

    def __init__(
        self,
        lex: Lexicon,
        texts: list[str],
        files: np.ndarray,
        labels: np.ndarray,
        enc,
        weigh: bool = True,
        temp: float = 0.0,
    ) -> None:
        self.temp = temp
        self.lex = lex
        self.ts = [normalise(x) for x in texts]
        self.found = [lex.matches(t) for t in self.ts]
        words = encode(enc, [t or " " for t in self.ts])
        self.files = np.asarray(files).astype(str)
        # per caption: (source span index in its matches, target (role, name, start, end)) per pair
        self.pairs: list[list[tuple[int, int, str, int, int]]] = []
        self.owner: list[int] = []
        X = []
        for i, (t, f, (w, v)) in enumerate(zip(self.ts, self.found, words, strict=True)):
            toks, V = token_vectors(t, list(w), np.asarray(v))
            seen, mine = set(), []
            for n, a, b in f["source"]:
                A = _covered(toks, a, b)
                for role in PAIRED:
                    for m, c, d in f[role]:
                        B = _covered(toks, c, d)
                        if m == n or not A or not B or set(A) & set(B) or (A, B) in seen:
                            continue
                        seen.add((A, B))
                        mine.append((a, b, m, c, d))
                        X.append(pair_vector(V, A, B))
                        self.owner.append(i)
            self.pairs.append(mine)
        self.X = np.asarray(X, dtype=np.float64)
        self.owner = np.asarray(self.owner, dtype=int)
        n_pairs = np.bincount(self.owner, minlength=len(texts))
        wt = 1.0 / n_pairs[self.owner] if weigh else np.ones(len(self.owner))
        y = (np.asarray(labels)[self.owner] == "hazard").astype(np.float64)
        self.A = np.hstack([self.X, np.ones((len(self.X), 1))])
        self.gram: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.pf = self.files[self.owner]
        self.pos = y > 0
        for f in np.unique(self.files):
            k = self.pf == f
            Aw = self.A[k] * wt[k, None]
            self.gram[str(f)] = (Aw.T @ self.A[k], Aw.T @ y[k])
            if temp:  # the negatives alone, the hazard captions' pairs are weighed per probe
                k &= ~self.pos
                Aw = self.A[k] * wt[k, None]
                self.gram["neg|" + str(f)] = (Aw.T @ self.A[k], Aw.T @ y[k])
        self.start = np.concatenate([[0], np.cumsum(n_pairs)])
        self._probes: dict[tuple, np.ndarray] = {}
        self._scores: dict[tuple, np.ndarray] = {}

    def probe(self, left_out: frozenset[str], l2: float) -> np.ndarray:
        key = (left_out, l2)
        if key not in self._probes:
            kept = [f for f in np.unique(self.files) if f not in left_out]
            G = sum(self.gram[f][0] for f in kept)
            B = sum(self.gram[f][1] for f in kept)
            reg = np.diag(np.r_[np.full(G.shape[0] - 1, l2), 0.0])
            W = np.linalg.solve(G + reg, B)
            if self.temp:
                W = self._refit(kept, W, reg)
            self._probes[key] = W
        return self._probes[key]

    def _refit(self, kept: list[str], W: np.ndarray, reg: np.ndarray) -> np.ndarray:
        """One multiple-instance round: a hazard caption's weight spread over its pairs by the
        first probe's scores (softmax at `temp`) instead of evenly, so that its likeliest
        hazardous pair carries the label and the others little."""
        k = np.isin(self.pf, kept) & self.pos
        s = self.A[k] @ W
        own = self.owner[k]
        e = np.exp((s - s.max()) / self.temp)
        w = e / np.bincount(own, weights=e, minlength=own.max() + 1)[own]
        Aw = self.A[k] * w[:, None]
        G = sum(self.gram["neg|" + f][0] for f in kept) + Aw.T @ self.A[k]
        B = sum(self.gram["neg|" + f][1] for f in kept) + Aw.sum(0)
        return np.linalg.solve(G + reg, B)

    def pair_scores(self, i: int, left_out: frozenset[str], l2: float) -> np.ndarray:
        """Caption i's pair scores, from a probe fitted without `left_out` and its own file."""
        key = (i, left_out | {self.files[i]}, l2)
        if key not in self._scores:
            s, e = self.start[i], self.start[i + 1]
            W = self.probe(key[1], l2)
            self._scores[key] = self.X[s:e] @ W[:-1] + W[-1]
        return self._scores[key]

    def features(self, rows: np.ndarray, left_out: frozenset[str], l2: float, unguarded: bool) -> np.ndarray:
        """Per caption: its best pair's score (0 without a pair), and that times "no guard read"."""
        out = []
        for i in rows:
            s = self.pair_scores(int(i), left_out, l2)
            best = float(s.max()) if len(s) else 0.0
            cols = [best]
            if unguarded:
                cols.append(best * float(not self.lex._reading(self.ts[i], self.found[i]).guards))
            out.append(cols)
        return np.asarray(out)

    def read_combos(self, rows: np.ndarray, left_out: frozenset[str], l2: float, tau: float) -> np.ndarray:
        """Per caption: the compositional features of its reading with each pair scoring >= tau
        read as a `contact` relation at its target's span."""
        out = []
        for i in rows:
            i = int(i)
            s = self.pair_scores(i, left_out, l2)
            pairs = zip(self.pairs[i], s, strict=True)
            extra = [("contact", c, d) for (_, _, _, c, d), x in pairs if x >= tau]
            found = {k: self.found[i][k] + (extra if k == "exposure" else []) for k in ROLES}
            r = self.lex._reading(self.ts[i], found)
            out.append([f(r) for f in COMBOS.values()])
        return np.asarray(out, dtype=np.float64)

    def of_files(self, files) -> frozenset[str]:
        return frozenset(str(f) for f in files)
