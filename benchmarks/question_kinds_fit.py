"""Fit the question-kind model (`edge_assist/tasks/question_kinds.py`) with numpy: a softmax
over the text encoder's vector of a question and its form marks, trained on

- `kinds-writerA.jsonl`, `-D`, `-E` and `-F`: procedure, follow-up and memory questions four
  writers worded freely (D weighted to memory questions that look like the others, F written
  as conversations);
- `kinds-seed.jsonl`: the follow-up forms the fixed reader knows, and the tracker's intent and
  task phrasings;
- the memory questions of the free-form dev files (their held-back files are never read).

The L2 weight, how much more a memory question weighs, and the bar a kind other than memory
must reach are chosen writer-held-out: each writer's questions are read by a model fitted
without them, as a new wearer's will be. The choice reads the most procedure and follow-up
questions right while memory questions stay memory at least `--keep-memory` of the time.
`kinds-writerB.jsonl` and `kinds-writerC.jsonl` (two more writers) are never read here:
`benchmarks/question_kinds.py` scores them.

    .venv/bin/python -m benchmarks.question_kinds_fit            # report the choice
    .venv/bin/python -m benchmarks.question_kinds_fit --write    # and write the model
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

import numpy as np

from edge_assist.answers.procedure import TASK_PHRASES
from edge_assist.config import load_config
from edge_assist.inference.loader import load_text_encoder
from edge_assist.tasks.question_kinds import FORMAT, KINDS, MEMORY, MODEL, features
from edge_assist.tasks.session import INTENTS
from edge_assist.text.spoken_questions import plain

QUESTIONS = Path(__file__).resolve().parents[1] / "edge_assist" / "data" / "questions"
MEMORY_KINDS = frozenset({"yesno", "when", "count", "amount", "duration", "order", "never"})
L2S = (0.0, 0.0001, 0.001)
WRITERS = ("kinds-writerA.jsonl", "kinds-writerD.jsonl", "kinds-writerE.jsonl", "kinds-writerF.jsonl")
MEMORY_WEIGHTS = (1.0, 2.0, 4.0)
BARS = tuple(round(x, 2) for x in np.arange(0.3, 0.81, 0.05))


def pool() -> list[tuple[str, str, bool, str]]:
    """(question, kind, in a conversation, the writer's file or "") for every training question."""
    out: list[tuple[str, str, bool, str]] = []
    for name in (*WRITERS, "kinds-seed.jsonl"):
        for line in (QUESTIONS / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                out.append(
                    (q["question"], q["intent"], bool(q.get("previous")), name if name in WRITERS else "")
                )
    for kind, phrases in INTENTS.items():
        out += [(p, kind, False, "") for p in phrases]
    out += [(p, "task", False, "") for p in TASK_PHRASES]
    for f in sorted(QUESTIONS.glob("freeform-dev*.jsonl")):
        seen: set[str] = set()
        for line in f.read_text(encoding="utf-8").splitlines():
            q = json.loads(line) if line.strip() else None
            if q is None:
                continue
            conv = q.get("conversation") or ""
            if q["kind"] in MEMORY_KINDS:
                out.append((q["question"], MEMORY, bool(conv) and conv in seen, ""))
            if conv:
                seen.add(conv)
    return out


def fit(
    x: np.ndarray, y: np.ndarray, l2: float, memory_weight: float = 1.0, steps: int = 1500
) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression, each kind weighed equally (balanced) but memory `memory_weight` times
    more (a memory question read as another kind gets a wrong answer), by Adam on the full batch."""
    n, d = x.shape
    k = len(KINDS)
    counts = np.bincount(y, minlength=k).astype(np.float64)
    per_kind = n / (k * np.maximum(counts, 1))
    per_kind[KINDS.index(MEMORY)] *= memory_weight
    sample_w = per_kind[y]
    onehot = np.eye(k)[y]
    w, b = np.zeros((d, k)), np.zeros(k)
    mw, vw, mb, vb = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
    for t in range(1, steps + 1):
        z = x @ w + b
        z = np.exp(z - z.max(axis=1, keepdims=True))
        p = z / z.sum(axis=1, keepdims=True)
        g = (p - onehot) * sample_w[:, None] / sample_w.sum()
        gw, gb = x.T @ g + l2 * w, g.sum(axis=0)
        mw, vw = b1 * mw + (1 - b1) * gw, b2 * vw + (1 - b2) * gw**2
        mb, vb = b1 * mb + (1 - b1) * gb, b2 * vb + (1 - b2) * gb**2
        w -= lr * (mw / (1 - b1**t)) / (np.sqrt(vw / (1 - b2**t)) + eps)
        b -= lr * (mb / (1 - b1**t)) / (np.sqrt(vb / (1 - b2**t)) + eps)
    return w.astype(np.float32), b.astype(np.float32)


def decide(p: np.ndarray, in_conv: np.ndarray, bar: float) -> np.ndarray:
    """The kind read for each row, as `QuestionKinds.read` reads it."""
    p = p.copy()
    follow = [KINDS.index(k) for k in KINDS if k not in (MEMORY, "next", "missed", "progress", "task")]
    p[np.ix_(~in_conv, follow)] = 0.0
    mem = KINDS.index(MEMORY)
    other = p.copy()
    other[:, mem] = -1.0
    best = other.argmax(axis=1)
    top = other[np.arange(len(p)), best]
    return np.where((top >= bar) & (top >= p[:, mem]), best, mem)


def writer_held_out(
    x: np.ndarray, y: np.ndarray, writer: np.ndarray, l2: float, memory_weight: float
) -> np.ndarray:
    """Each writer's questions read by a model fitted without them (the other writer, the seeds
    and the free-form memory questions): how a new writer's wording will be read."""
    p = np.full((len(y), len(KINDS)), np.nan)
    for w in WRITERS:
        held = writer == w
        fw, fb = fit(x[~held], y[~held], l2, memory_weight)
        z = x[held] @ fw + fb
        z = np.exp(z - z.max(axis=1, keepdims=True))
        p[held] = z / z.sum(axis=1, keepdims=True)
    return p


def write(
    wb: tuple[np.ndarray, np.ndarray], bar: float, l2: float, mw: float, right: float, kept: float, n: int
) -> None:
    w, b = wb
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    model = {
        "format": FORMAT,
        "kinds": list(KINDS),
        "min_p": bar,
        "l2": l2,
        "memory_weight": mw,
        "writer_held_out": {"others_right": round(right, 4), "memory_kept": round(kept, 4)},
        "trained_on": n,
        "fitted_at_commit": commit.stdout.strip(),
        "command": "python -m benchmarks.question_kinds_fit --write",
        "bias": [round(float(v), 5) for v in b],
        "weights": [[round(float(v), 5) for v in r] for r in w],
    }
    MODEL.write_text(json.dumps(model) + "\n", encoding="utf-8")
    print(f"wrote {MODEL}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--keep-memory", type=float, default=0.95)
    a = ap.parse_args()
    rows = pool()
    enc = load_text_encoder(load_config(None))
    texts = [" ".join(plain(q).strip().lower().split()) for q, *_ in rows]
    vecs = np.asarray(enc.encode(texts), dtype=np.float32)
    x = np.stack([features(v, t, r[2]) for v, t, r in zip(vecs, texts, rows, strict=True)])
    y = np.array([KINDS.index(r[1]) for r in rows])
    conv = np.array([r[2] for r in rows])
    writer = np.array([r[3] for r in rows])
    mem = KINDS.index(MEMORY)
    print(f"{len(rows)} questions: " + ", ".join(f"{k} {int((y == i).sum())}" for i, k in enumerate(KINDS)))
    wrote = writer != ""
    best: tuple[float, float, float, float, float] | None = None
    for l2 in L2S:
        for mw in MEMORY_WEIGHTS:
            p = writer_held_out(x, y, writer, l2, mw)
            for bar in BARS:
                got = decide(p[wrote], conv[wrote], bar)
                yw = y[wrote]
                kept = float((got[yw == mem] == mem).mean())
                right = float((got[yw != mem] == yw[yw != mem]).mean())
                print(
                    f"l2 {l2:<6} memory x{mw:g} bar {bar:.2f}: writer held out: memory kept "
                    f"{100 * kept:5.1f} %, others right {100 * right:5.1f} %"
                )
                if kept >= a.keep_memory and (best is None or right > best[0]):
                    best = (right, kept, l2, mw, bar)
    if best is None:
        raise SystemExit(f"no setting keeps memory questions {a.keep_memory:.0%} of the time")
    right, kept, l2, mw, bar = best
    print(
        f"chosen: l2 {l2}, memory x{mw:g}, bar {bar}: writer held out, others right "
        f"{100 * right:.1f} %, memory kept {100 * kept:.1f} %"
    )
    if a.write:
        write(fit(x, y, l2, mw), bar, l2, mw, right, kept, len(rows))


if __name__ == "__main__":
    main()
