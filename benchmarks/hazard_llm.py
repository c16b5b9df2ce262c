"""A small language model's zero-shot judgement of a hazard caption, as one number per caption:
the log-odds of "yes" over "no" as the next token after a fixed question. No generation: one
prompt evaluation per caption, with the fixed part of the prompt before the caption evaluated
once and kept in the KV cache.

Measured, not shipped: AUROC of the score alone (hazard against near misses, and against ordinary
lines) per caption file, and its latency. `benchmarks/hazard_writers.py --variant llm_*` adds it
to the logistic model. Scores are cached per model and prompt under /tmp/hazllm, so reruns are
fast. test*.jsonl and fresh.jsonl are never read.

    .venv/bin/python -m benchmarks.hazard_llm --model smollm2 --prompt warn [--files train ...]
    .venv/bin/python -m benchmarks.hazard_llm --model gemma3 --prompt warn --timing 40

SmolLM2-135M-Instruct is asked through its chat template. The Gemma 3 270M file at GEMMA is the
pretrained model, not the instruct one (its GGUF has no chat template and it does not follow one:
asked a question in Gemma's turn format it repeats the question), so it is asked as plain text.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.hazard_fit import rows

CACHE = Path("/tmp/hazllm")
GEMMA = Path("/work/g3/gemma-3-270m-q4_k_m.gguf")
FILES = ("train", "train2", "train3", "train4", "val", "dev", "dev2", "ordinary_cc4d", "ordinary_goalstep")
TRAIN = ("train", "train2", "train3", "train4")

# The question after the caption, and what the score reads.
QUESTIONS = {
    "warn": "Should someone warn this person right now that they could get hurt?",
    "harm": (
        "Could this lead to an injury, a fire or a poisoning within minutes unless someone steps in now?"
    ),
    "speak": (
        "A sensible friend is standing next to this person. Would the friend say 'stop!' or"
        " 'watch out!' right now?"
    ),
}
SYSTEM = "You read a one-sentence description of what a person is doing and answer yes or no."
CHOSEN = {"smollm2": "harm", "gemma3": "harm"}  # best pooled train AUROC hazard/near miss of the three
YES = ("Yes", " Yes", "yes", " yes", "YES")
NO = ("No", " No", "no", " no", "NO")


@dataclass(frozen=True)
class Prompt:
    prefix: str  # evaluated once and kept
    suffix: str  # with {caption}


def prompt(model: str, name: str) -> Prompt:
    q = QUESTIONS[name]
    if model == "smollm2":
        return Prompt(
            f"<|im_start|>system\n{SYSTEM}<|im_end|>\n<|im_start|>user\nDescription:",
            " {caption}\n" + q + " Answer yes or no.<|im_end|>\n<|im_start|>assistant\n",
        )
    # A pretrained model continues text: a question-and-answer layout it has seen.
    return Prompt(f"{SYSTEM}\n\nDescription:", " {caption}\nQuestion: " + q + "\nAnswer (yes or no):")


def model_path(model: str) -> Path:
    if model == "gemma3":
        return GEMMA
    from edge_assist.config import Config
    from edge_assist.inference.manifest import get_entry, resolve_file

    cfg = Config()
    p = resolve_file(cfg, get_entry(cfg, "smollm2-135m-q4", "llm"), "model")
    assert p is not None
    return p


class Judge:
    """One model and one prompt: `score(caption)` is log P(yes) - log P(no) for the next token."""

    def __init__(self, model: str, name: str, threads: int = 1, cache_prefix: bool = True) -> None:
        from llama_cpp import Llama

        self.llm = Llama(
            model_path=str(model_path(model)),
            n_ctx=512,
            n_batch=512,
            n_threads=threads,
            n_threads_batch=threads,
            verbose=False,
        )
        self.prompt, self.cache_prefix = prompt(model, name), cache_prefix
        self.bos = model == "gemma3"  # SmolLM2's template starts with its own special token
        self.pre = self._tok(self.prompt.prefix, self.bos)
        self.yes, self.no = self._first_tokens(YES), self._first_tokens(NO)
        self.llm.reset()
        self.llm.eval(self.pre)

    def _tok(self, text: str, bos: bool) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=bos, special=True)

    def _first_tokens(self, words: tuple[str, ...]) -> list[int]:
        # Only words that are one token: a word split in pieces would be read by its first piece.
        return sorted({t[0] for w in words if len(t := self._tok(w, False)) == 1})

    def score(self, caption: str) -> float:
        suffix = self._tok(self.prompt.suffix.format(caption=caption.strip()), False)
        if self.cache_prefix:
            self.llm.n_tokens = len(self.pre)  # eval() drops the KV cache past here
            self.llm.eval(suffix)
        else:
            self.llm.reset()
            self.llm.eval(self.pre + suffix)
        logits = np.ctypeslib.as_array(self.llm._ctx.get_logits_ith(-1), shape=(self.llm.n_vocab(),))
        z = logits.astype(np.float64)
        return float(_lse(z[self.yes]) - _lse(z[self.no]))


def _lse(x: np.ndarray) -> float:
    m = float(x.max())
    return m + float(np.log(np.exp(x - m).sum()))


def cache_file(model: str, name: str) -> Path:
    return CACHE / f"{model}-{name}.json"


def scores(model: str, name: str, texts: list[str], threads: int = 1) -> dict[str, float]:
    """Scores of `texts`, computing (and caching) only those not cached yet."""
    path = cache_file(model, name)
    done: dict[str, float] = json.loads(path.read_text()) if path.exists() else {}
    todo = sorted({t for t in texts if t not in done})
    if todo:
        judge = Judge(model, name, threads)
        for i, t in enumerate(todo):
            done[t] = judge.score(t)
            if i % 100 == 99 or i == len(todo) - 1:
                CACHE.mkdir(exist_ok=True)
                path.write_text(json.dumps(done))
    return {t: done[t] for t in texts}


def auroc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(a positive scores above a negative), ties counted half."""
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    d = pos[:, None] - neg[None, :]
    return float((d > 0).mean() + 0.5 * (d == 0).mean())


def table(model: str, name: str, files: tuple[str, ...], threads: int) -> str:
    rs = {f: rows(f) for f in files}
    s = scores(model, name, [r["text"] for f in files for r in rs[f]], threads)
    out, pooled = [], {"hazard": [], "near_miss": [], "ordinary": []}
    ordinary = np.array([s[r["text"]] for f in files if f.startswith("ordinary") for r in rs[f]])
    for f in files:
        by = {k: np.array([s[r["text"]] for r in rs[f] if r["label"] == k]) for k in pooled}
        if f in TRAIN:
            for k in pooled:
                pooled[k].extend(by[k])
        if f.startswith("ordinary"):
            out.append(f"  {f:17s} mean {by['ordinary'].mean():+.2f}")
            continue
        own_ord = auroc(by["hazard"], by["ordinary"])
        vs_cc = auroc(by["hazard"], ordinary) if len(ordinary) else float("nan")
        out.append(
            f"  {f:17s} AUROC hazard/near miss {auroc(by['hazard'], by['near_miss']):.3f}"
            f"  hazard/own ordinary {own_ord:.3f}  hazard/cc4d+goalstep {vs_cc:.3f}"
            f"  mean H {by['hazard'].mean():+.2f} NM {by['near_miss'].mean():+.2f}"
        )
    if pooled["hazard"]:
        p = {k: np.array(v) for k, v in pooled.items()}
        out.insert(0, f"  train*  pooled    AUROC hazard/near miss {auroc(p['hazard'], p['near_miss']):.3f}")
    return f"{model} / {name}: {QUESTIONS[name]}\n" + "\n".join(out)


def timing(model: str, name: str, n: int, threads: int) -> str:
    """Milliseconds per caption with and without the cached prefix, on the first n val captions."""
    texts = [r["text"] for r in rows("val")[:n]]
    out = []
    for cached in (True, False):
        judge = Judge(model, name, threads, cache_prefix=cached)
        judge.score(texts[0])  # warm up
        t0 = time.perf_counter()
        for t in texts:
            judge.score(t)
        ms = 1000 * (time.perf_counter() - t0) / len(texts)
        n_suffix = np.mean([len(judge._tok(judge.prompt.suffix.format(caption=t), False)) for t in texts])
        out.append(
            f"  {'cached prefix' if cached else 'whole prompt '} {ms:6.1f} ms/caption"
            f" ({len(judge.pre)} prefix + {n_suffix:.0f} caption-and-question tokens)"
        )
        del judge
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load = os.getloadavg()
    head = f"{model} / {name}: {threads} thread(s), {n} val captions, load {load[0]:.2f} {load[1]:.2f}"
    return head + "\n" + "\n".join(out) + f"\n  peak RSS {rss:.0f} MB (process, with numpy and llama.cpp)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=("smollm2", "gemma3"), default="smollm2")
    ap.add_argument("--prompt", choices=sorted(QUESTIONS), nargs="+", default=["warn"])
    ap.add_argument("--files", nargs="+", choices=FILES, default=list(FILES))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--timing", type=int, default=0, help="time this many val captions instead")
    a = ap.parse_args(argv)
    for name in a.prompt:
        if a.timing:
            print(timing(a.model, name, a.timing, a.threads))
        else:
            print(table(a.model, name, tuple(a.files), a.threads))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
