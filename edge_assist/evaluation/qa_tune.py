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
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from edge_assist.answers.support import FEATURES, AnswerGate, WordEncoder, features
from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.gate_training import fit_logistic
from edge_assist.evaluation.qa_bench import score
from edge_assist.evaluation.qa_questions import Question, Stream, generate, load_streams
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.answer_text import compose, content_words, question_focus, question_kind


class WordTextEncoder(TextEncoder, WordEncoder, Protocol):
    """A sentence encoder that also gives each word's contextual vector."""


CANDIDATES = 5  # answering.OFFERED / retrieval.top_k: what the answerer scores
VARIANTS = ("original", "paraphrased")
TARGETS = {"answerable": 0.8, "abstain": 0.9}


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
    enc: WordTextEncoder, split: str, variant: str, dataset: Path, feature_names: tuple[str, ...] = FEATURES
) -> list[Row]:
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
        foci = [question_focus(q.text) for q in qs]
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


def main(argv: list[str] | None = None) -> int:
    from edge_assist.evaluation.captaincook import DEFAULT_DATASET

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", default=str(DEFAULT_DATASET))
    ap.add_argument("--train", default="train")
    ap.add_argument("--val", default="val")
    ap.add_argument("--features", default=",".join(FEATURES))
    ap.add_argument("--out", default="", help="write the gate here (default: only report)")
    ap.add_argument(
        "--cache",
        default="",
        help="pickle of the scored candidates: read when it exists, else written "
        "(scoring every question takes ~15 min on 2 busy cores; fitting takes seconds)",
    )
    args = ap.parse_args(argv)
    names = tuple(args.features.split(","))
    dataset = Path(args.dataset)
    keys = [(s, v) for s in (args.train, args.val) for v in VARIANTS]
    data = _scored_candidates(dataset, keys, names, Path(args.cache) if args.cache else None)
    X, y = stack([r for v in VARIANTS for r in data[(args.train, v)]])
    model = fit_logistic(X, y, names)
    score = model.probabilities
    decided = {k: decide(rows, score) for k, rows in data.items()}
    grid = np.unique(np.round(np.concatenate([[s for s, _ in d] for d in decided.values()]), 4))
    grid = grid[np.isfinite(grid)]
    best = max(
        grid,
        key=lambda t: worst_ratio(
            [outcome(data[(args.val, v)], decided[(args.val, v)], t) for v in VARIANTS]
        ),
    )
    report = {f"{s}/{v}": outcome(data[(s, v)], decided[(s, v)], float(best)) for s, v in data}
    weights = dict(zip(names, np.round(model.weights, 3).tolist(), strict=True))
    print(json.dumps({"weights": weights, "threshold": float(best), "outcomes": report}, indent=1))
    if args.out:
        training = {
            "command": "python -m edge_assist.evaluation.qa_tune " + " ".join(argv or sys.argv[1:]),
            "train": f"{args.train} questions, both variants: {len(y)} candidates, {int(y.sum())} positive",
            "threshold_from": f"{args.val}: the best worst-ratio to the targets over both variants",
            "data_sha256": _data_sha256(dataset, (args.train, args.val)),
            "outcomes": report,
        }
        AnswerGate(model, float(best), training).save(args.out)
        print(f"wrote {args.out}")
    return 0


def _scored_candidates(
    dataset: Path, keys: list[tuple[str, str]], names: tuple[str, ...], cache: Path | None
) -> dict[tuple[str, str], list[Row]]:
    """Every question's scored candidates per (split, variant), from the cache when it matches."""
    from edge_assist.config import load_config
    from edge_assist.inference.loader import load_text_encoder

    data: dict[tuple[str, str], list[Row]] = {}
    if cache is not None and cache.exists():
        with cache.open("rb") as fh:
            saved = pickle.load(fh)  # noqa: S301 (our own file, written below)
        if saved.get("features") == names and saved.get("candidates") == CANDIDATES:
            data = {k: saved["rows"][k] for k in keys if k in saved["rows"]}
    if len(data) < len(keys):
        enc = load_text_encoder(load_config())
        if not isinstance(enc, WordEncoder):
            raise EdgeAssistError(f"{enc.name} gives no word vectors; the answer gate's features need them")
        data = {k: rows_for(enc, k[0], k[1], dataset, names) for k in keys}
        if cache is not None:
            with cache.open("wb") as fh:
                pickle.dump({"features": names, "candidates": CANDIDATES, "rows": data}, fh)
    return data


def _data_sha256(dataset: Path, splits: tuple[str, ...]) -> str:
    sha = hashlib.sha256()
    for s in splits:
        for v in VARIANTS:
            for p in sorted((dataset / s / v).glob("*.jsonl")):
                sha.update(p.read_bytes())
    return sha.hexdigest()


if __name__ == "__main__":
    raise SystemExit(main())
