"""Fit the answer gate (edge_assist/data/answer_gate.json) on train questions; choose its
threshold on val.

    python -m edge_assist.evaluation.qa_tune --train train --val val --out edge_assist/data/answer_gate.json

The questions are those of `eval qa` (qa_questions.generate, seed 0). For speed this does
not replay the assistant: per question it takes the captions memory holds at the ask time
(the stream prefix `eval qa` ingests), ranks them by the text-encoder cosine to the
question's focus as memory.search_text does, and scores the top `CANDIDATES` with
answer_support.features; the answer the answerer would compose from each candidate is
scored by eval qa's own rule (qa_bench.score). Each recording's captions are encoded once.

A candidate is a positive when it is the moment the question is about (the step asked
about; for "what did I do right after X", X). Train pools both caption variants (annotated
and paraphrased wording), so the gate does not learn one wording. The threshold is the one
that maximises the worse of the two val targets' ratios (answerable correct / 0.8,
unanswerable abstentions / 0.9) over both variants; the decision reported per question is
the one the answerer makes: the best-ranked moment, answered when its probability reaches
the threshold.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pickle
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from edge_assist.answers.gate_words import features
from edge_assist.answers.support import FEATURES, WORD_FEATURES, AnswerGate, WordEncoder
from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.gate_training import fit_logistic
from edge_assist.evaluation.qa_bench import score
from edge_assist.evaluation.qa_questions import Question, Stream, generate, load_streams
from edge_assist.evaluation.qa_restyle import restyle
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.answer_text import compose, content_words, question_focus, question_kind
from edge_assist.text.spoken_questions import plain


class WordTextEncoder(TextEncoder, WordEncoder, Protocol):
    """A sentence encoder that also gives each word's contextual vector."""


CANDIDATES = 5  # answering.OFFERED / retrieval.top_k: what the answerer scores
VARIANTS = ("original", "paraphrased")
TARGETS = {"answerable": 0.8, "abstain": 0.9}
ALL_FEATURES = FEATURES + WORD_FEATURES  # what the candidates are scored with; a gate reads some
STYLES = ("asked", "restyled")
FLOOR_POINTS = 1.0


@dataclass
class Row:
    """One question: the features and labels of its candidate moments."""

    qid: str
    template: str
    why: str
    answer: bool  # the right outcome is an answer (answerable and not "did I <skipped step>")
    feats: np.ndarray  # (n_candidates, len(FEATURES))
    target: np.ndarray  # (n_candidates,) bool: the moment the question is about
    right: np.ndarray  # (n_candidates,) bool: answering from it is scored right by eval qa


def target_index(q: Question, texts: list[str], caps: list[tuple[float, float, str]]) -> int | None:
    if not q.answerable or q.template == "did-no":
        return None
    if q.window is not None:
        return next((i for i, c in enumerate(caps) if (c[0], c[1]) == q.window), None)
    want = q.other if q.template == "after" else q.reference
    return next((i for i, t in enumerate(texts) if t == want), None)


def rows_for(
    enc: WordTextEncoder,
    split: str,
    variant: str,
    dataset: Path,
    feature_names: tuple[str, ...] = FEATURES,
    restyled: bool = False,
) -> list[Row]:
    """`restyled`: each question said as people speak (evaluation/qa_restyle.py), then plain as
    `ask` says it; the moment it is about and the scoring stay the template's."""
    annotated = load_streams(dataset, split, "original")
    memory = {s.recording: s for s in load_streams(dataset, split, variant)}
    questions = generate(annotated, seed=0)
    by_rec: dict[str, list[Question]] = {}
    for q in questions:
        by_rec.setdefault(q.recording, []).append(q)
    out: list[Row] = []
    for ann in annotated:
        mem: Stream = memory[ann.recording]
        texts = [c[2] for c in mem.captions]
        vecs = enc.encode(texts) if texts else np.zeros((0, enc.dim), np.float32)
        words = enc.encode_words(texts)
        qs = by_rec.get(ann.recording, [])
        foci = [question_focus(plain(restyle(q.text, q.qid)) if restyled else q.text) for q in qs]
        fvecs = enc.encode(foci) if foci else np.zeros((0, enc.dim), np.float32)
        fwords = enc.encode_words(foci)
        for q, focus, fv, fw in zip(qs, foci, fvecs, fwords, strict=True):
            held = 0
            while held < len(mem.captions) and mem.captions[held][1] <= q.ask_t:
                held += 1
            target = target_index(q, [c[2] for c in ann.captions], ann.captions)
            cos = vecs[:held] @ fv
            top = np.argsort(-cos)[:CANDIDATES]
            f = [features(float(cos[i]), focus, texts[i], fw, words[i]) for i in top]
            out.append(
                Row(
                    q.qid,
                    q.template,
                    q.why,
                    q.answerable and q.template != "did-no",
                    np.asarray([[d[n] for n in feature_names] for d in f], dtype=np.float64).reshape(
                        -1, len(feature_names)
                    ),
                    np.asarray([int(i) == target for i in top], dtype=bool),
                    np.asarray(scored_right(enc, q, mem.captions, [int(i) for i in top], held), dtype=bool),
                )
            )
    return out


def scored_right(
    enc: TextEncoder, q: Question, caps: list[tuple[float, float, str]], cands: list[int], held: int
) -> list[bool]:
    """Per candidate moment: whether eval qa scores right the answer the grounded answerer
    composes from it (as answering.GroundedAnswerer does: the neighbour for "after", the
    option the evidence names for a multiple-choice question), so the tuning sees the
    benchmark's own verdict. One encoder call per question."""
    if not q.answerable:
        return [False] * len(cands)
    kind = question_kind(q.text)
    told: list[int | None] = []
    for i in cands:
        j = i + (1 if kind == "after" else -1 if kind == "before" else 0)
        told.append(j if 0 <= j < held else None)
    composed = [compose(kind, caps[j][2], caps[j][0]) if j is not None else "" for j in told]
    texts = [q.reference, *q.choices, *composed]
    vecs = enc.encode(texts)
    ref, opts, comp = vecs[0], vecs[1 : 1 + len(q.choices)], vecs[1 + len(q.choices) :]
    out = []
    for m, sentence, v in zip(told, composed, comp, strict=True):
        if m is None:
            out.append(False)
            continue
        choice = None
        if q.choices:
            evidence = content_words(caps[m][2])
            named = [k for k, c in enumerate(q.choices) if (w := content_words(c)) and w <= evidence]
            pool = named if named else list(range(len(q.choices)))
            choice = (
                q.choices[named[0]] if len(named) == 1 else q.choices[pool[int(np.argmax(opts[pool] @ v))]]
            )
        out.append(score(q, sentence, choice, float(v @ ref)))
    return out


def decide(rows: list[Row], rank: Callable[[np.ndarray], np.ndarray]) -> list[tuple[float, bool]]:
    """Per question: (best candidate's probability, whether answering from it is right)."""
    out = []
    for r in rows:
        if len(r.feats) == 0:
            out.append((-np.inf, False))
            continue
        s = rank(r.feats)
        b = int(np.argmax(s))
        out.append((float(s[b]), bool(r.right[b])))
    return out


def outcome(rows: list[Row], decided: list[tuple[float, bool]], thr: float) -> dict[str, Any]:
    """The answerer's outcome at `thr`: answerable correct (answered, and eval qa scores the
    answer right) and correct abstentions (unanswerable and did-no), per template."""
    per: dict[str, list[bool]] = {}
    ans, neg = [], []
    for r, (s, hit) in zip(rows, decided, strict=True):
        answered = s >= thr
        if r.answer:
            ok = answered and hit
            ans.append(ok)
        else:
            ok = not answered
            if r.template != "did-no":
                neg.append(ok)
            else:
                ans.append(ok)  # did-no counts among the answerable questions, as in eval qa
        key = r.template if r.template != "unanswerable" else f"unanswerable/{r.why}"
        per.setdefault(key, []).append(ok)
    pct = lambda xs: round(100.0 * sum(xs) / len(xs), 1) if xs else None  # noqa: E731
    return {
        "answerable": pct(ans),
        "abstain": pct(neg),
        "per_template": {k: pct(v) for k, v in sorted(per.items())},
    }


def worst_ratio(results: list[dict[str, Any]]) -> float:
    return min(
        min(r["answerable"] / 100 / TARGETS["answerable"], r["abstain"] / 100 / TARGETS["abstain"])
        for r in results
    )


def stack(rows: list[Row]) -> tuple[np.ndarray, np.ndarray]:
    X = np.concatenate([r.feats for r in rows if len(r.feats)])
    y = np.concatenate([r.target for r in rows if len(r.feats)]).astype(np.float64)
    return X, y


def _parser() -> argparse.ArgumentParser:
    from edge_assist.evaluation.captaincook import DEFAULT_DATASET

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default=str(DEFAULT_DATASET))
    ap.add_argument("--train", default="train")
    ap.add_argument("--val", default="val")
    ap.add_argument("--features", default=",".join(FEATURES))
    ap.add_argument("--out", default="", help="write the gate here (default: only report)")
    ap.add_argument("--restyle", action="store_true", help="train on each question also said as people speak")
    ap.add_argument(
        "--freeform", action="append", default=[], help="a tuning free-form file (freeform-dev*.jsonl)"
    )
    ap.add_argument("--freeform-weight", type=float, default=3.0, help="weight of a free-form candidate row")
    ap.add_argument(
        "--floor",
        default="",
        help="a gate file, or its val figures (answerable,abstain original, then paraphrased): choose the "
        "threshold that answers most free-form questions right while val stays within FLOOR_POINTS of them "
        "(default: the best worst-ratio to the targets)",
    )
    ap.add_argument(
        "--cache",
        default="",
        help="pickle of the scored candidates: read when it exists, else written "
        "(scoring every question takes ~15 min on 2 busy cores, more with --restyle; fitting takes seconds)",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    names = tuple(args.features.split(","))
    cols = [ALL_FEATURES.index(n) for n in names]
    dataset = Path(args.dataset)
    styles = STYLES if args.restyle else STYLES[:1]
    keys = [(s, v, st) for s in (args.train, args.val) for v in VARIANTS for st in styles]
    data = _scored_candidates(dataset, keys, Path(args.cache) if args.cache else None)
    X, y = stack([r for v in VARIANTS for st in styles for r in data[(args.train, v, st)]])
    w = np.ones(len(y))
    files = [Path(f) for f in args.freeform]
    free = _freeform(dataset, files)
    if free:
        w = np.concatenate([w, np.full(sum(len(f[4]) for f in free), args.freeform_weight)])
        X = np.concatenate([X, *(f[3] for f in free if len(f[4]))])
        y = np.concatenate([y, *(f[4].astype(np.float64) for f in free if len(f[4]))])
    model = fit_logistic(X[:, cols], y, names, sample_weight=w)
    score = lambda F: model.probabilities(F[:, cols])  # noqa: E731
    decided = {k: decide(rows, score) for k, rows in data.items()}
    val: list[tuple[str, ...]] = [(args.val, v, STYLES[0]) for v in VARIANTS]
    grid = np.unique(np.round(np.concatenate([[s for s, _ in d] for d in decided.values()]), 4))
    grid = grid[np.isfinite(grid)]
    floors = _floors(args.floor, data, val)
    best = max(
        grid, key=lambda t: _choice(t, [outcome(data[k], decided[k], t) for k in val], floors, free, score)
    )
    report = {_name(k): outcome(data[k], decided[k], float(best)) for k in data}
    if free:
        report["freeform"] = {"right": _free_right(free, score, float(best)), "questions": len(free)}
    weights = dict(zip(names, np.round(model.weights, 3).tolist(), strict=True))
    print(json.dumps({"weights": weights, "threshold": float(best), "outcomes": report}, indent=1))
    if args.out:
        training = {
            "command": "python -m edge_assist.evaluation.qa_tune " + " ".join(argv or sys.argv[1:]),
            "train": f"{args.train} questions, both variants{', restyled too' if args.restyle else ''}"
            + (f", {len(free)} free-form rows of {', '.join(p.stem for p in files)}" * bool(free))
            + f": {len(y)} candidates, {int(y.sum())} positive",
            "threshold_from": (
                f"most free-form questions right, {args.val} within {FLOOR_POINTS} points of {args.floor}"
                if floors
                else f"{args.val}: the best worst-ratio to the targets over both variants"
            ),
            "data_sha256": _data_sha256(dataset, (args.train, args.val)),
            "outcomes": report,
        }
        AnswerGate(model, float(best), training).save(args.out)
        print(f"wrote {args.out}")
    return 0


FreeRow = tuple[str, str, bool, np.ndarray, np.ndarray]


def _name(key: tuple[str, ...]) -> str:
    """ "val/original", "train/paraphrased/restyled"."""
    return "/".join(key if key[2] != STYLES[0] else key[:2])


def _freeform(dataset: Path, files: list[Path]) -> list[FreeRow]:
    if not files:
        return []
    from edge_assist.config import load_config
    from edge_assist.evaluation.qa_tune_freeform import freeform_rows
    from edge_assist.inference.loader import load_text_encoder

    enc = load_text_encoder(load_config())
    return [r for v in VARIANTS for r in freeform_rows(enc, files, dataset, v, ALL_FEATURES, CANDIDATES)]


def _free_right(free: list[FreeRow], score: Callable[[np.ndarray], np.ndarray], thr: float) -> int:
    """Free-form questions the best moment decides right at `thr`: answered from the moment asked
    about, or not answered when none is."""
    n = 0
    for _, _, answered, F, target in free:
        p = score(F) if len(F) else np.zeros(0)
        b = int(np.argmax(p)) if len(p) else -1
        said = b >= 0 and p[b] >= thr
        n += int(said and bool(target[b])) if answered else int(not said)
    return n


def _floors(path: str, data: dict[tuple[str, ...], list[Row]], val: list[tuple[str, ...]]) -> list[float]:
    """The val figures (answerable, abstain per variant) of the gate at `path`, less FLOOR_POINTS."""
    if not path:
        return []
    if re.fullmatch(r"[\d.]+(?:,[\d.]+){3}", path):  # the figures themselves
        return [float(x) - FLOOR_POINTS for x in path.split(",")]
    gate = AnswerGate.load(path)
    cols = [ALL_FEATURES.index(n) for n in gate.model.features]
    out = []
    for k in val:
        r = outcome(data[k], decide(data[k], lambda F: gate.model.probabilities(F[:, cols])), gate.threshold)
        out += [r["answerable"] - FLOOR_POINTS, r["abstain"] - FLOOR_POINTS]
    return out


def _choice(
    t: float, results: list[dict[str, Any]], floors: list[float], free: list[FreeRow], score: Callable
) -> tuple[bool, int, float]:
    """What a threshold is chosen by: val at its floors, then free-form questions right, then the
    worse ratio to the targets."""
    figures = [x for r in results for x in (r["answerable"], r["abstain"])]
    kept = all(a >= b for a, b in zip(figures, floors, strict=True)) if floors else True
    right = _free_right(free, score, float(t)) if floors else 0
    return kept, right, worst_ratio(results)


def _scored_candidates(
    dataset: Path, keys: list[tuple[str, str, str]], cache: Path | None
) -> dict[tuple[str, ...], list[Row]]:
    """Every question's scored candidates per (split, variant, style), from the cache when it holds them."""
    from edge_assist.config import load_config
    from edge_assist.inference.loader import load_text_encoder

    data: dict[tuple[str, ...], list[Row]] = {}
    if cache is not None and cache.exists():
        with cache.open("rb") as fh:
            saved = pickle.load(fh)  # noqa: S301 (our own file, written below)
        if saved.get("features") == ALL_FEATURES and saved.get("candidates") == CANDIDATES:
            data = dict(saved["rows"])
    missing = [k for k in keys if k not in data]
    if missing:
        enc = load_text_encoder(load_config())
        if not isinstance(enc, WordEncoder):
            raise EdgeAssistError(f"{enc.name} gives no word vectors; the answer gate's features need them")
        for k in missing:
            data[k] = rows_for(enc, k[0], k[1], dataset, ALL_FEATURES, restyled=k[2] == STYLES[1])
        if cache is not None:
            with cache.open("wb") as fh:
                pickle.dump({"features": ALL_FEATURES, "candidates": CANDIDATES, "rows": data}, fh)
    return {k: data[k] for k in keys}


def _data_sha256(dataset: Path, splits: tuple[str, ...]) -> str:
    sha = hashlib.sha256()
    for s in splits:
        for v in VARIANTS:
            for p in sorted((dataset / s / v).glob("*.jsonl")):
                sha.update(p.read_bytes())
    return sha.hexdigest()


if __name__ == "__main__":
    raise SystemExit(main())
