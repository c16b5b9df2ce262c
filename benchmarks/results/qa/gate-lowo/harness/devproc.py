"""Scratch: the dev questions' gate calls, broken into their readings (feature dicts per reading and
the backing's multiplier), so any gate can be replayed in numpy."""

import glob
import pickle
import sys
from pathlib import Path

import numpy as np

from edge_assist.answers import anchored, meaning
from edge_assist.answers import backing as B
from edge_assist.answers.gate_words import features
from edge_assist.config import load_config
from edge_assist.evaluation.qa_freeform_score import load_questions
from edge_assist.inference.loader import load_text_encoder

ALL = ("cosine", "share", "recall_mean", "recall_min", "anchor_mean", "thing_min", "act", "precision")


class Cached:
    def __init__(self, enc):
        self.enc, self.dim, self.name = enc, enc.dim, enc.name
        self.v, self.w = {}, {}

    def encode(self, texts):
        miss = [t for t in dict.fromkeys(texts) if t not in self.v]
        if miss:
            self.v.update(zip(miss, self.enc.encode(miss), strict=False))
        return np.stack([self.v[t] for t in texts]) if texts else np.zeros((0, self.dim), np.float32)

    def encode_words(self, texts):
        miss = [t for t in dict.fromkeys(texts) if t not in self.w]
        if miss:
            self.w.update(zip(miss, self.enc.encode_words(miss), strict=False))
        return [self.w[t] for t in texts]


def readings(enc, focus, found, act_needed):
    """Per candidate: (feature rows [as asked, restated or None, anchor or None], multiplier)."""
    rd = [meaning.read(focus, m.text) for m in found]
    kind_of = anchored.word_kinds(enc).kind
    anchors = [None] * len(found)
    if act_needed is not None:
        anchors = [anchored.anchor(focus, m.text, act_needed=act_needed, kind_of=kind_of) for m in found]
    extra = list(dict.fromkeys(r for r in [*(r.restated for r in rd), *anchors] if r is not None))
    texts = [focus, *(m.text for m in found), *extra]
    words = enc.encode_words(texts)
    n = len(found)
    said = dict(zip(extra, words[n + 1 :], strict=False))
    pairs = [(r.restated, m.text) for m, r in zip(found, rd, strict=False) if r.restated]
    near = B._cosines(enc, pairs + [(a, m.text) for m, a in zip(found, anchors, strict=False) if a])
    asked_times = B._times(focus)
    out = []
    for m, w, r, a in zip(found, words[1 : n + 1], rd, anchors, strict=False):
        f0 = features(m.score, focus, m.text, words[0], w)
        f1 = f2 = None
        if r.restated is not None:
            f1 = features(
                max(m.score, near.get((r.restated, m.text), m.score)), r.restated, m.text, said[r.restated], w
            )
        if a is not None and not r.other_act:
            f2 = features(max(m.score, near.get((a, m.text), m.score)), a, m.text, said[a], w)
        mult = meaning.PLACE_WEIGHT if r.as_place else 1.0
        if r.other_act or B._another_time(asked_times, m.text):
            mult *= meaning.OTHER_ACT_WEIGHT

        def vec(f):
            return None if f is None else np.asarray([f[k] for k in ALL])

        out.append((vec(f0), vec(f1), vec(f2), mult))
    return out


enc = Cached(load_text_encoder(load_config()))
calls = pickle.load(open(sys.argv[1], "rb"))
qs = {}
for f in sorted(glob.glob("/work/wt-qa2/edge_assist/data/questions/freeform-dev*.jsonl")):
    for q in load_questions(Path(f)):
        qs[q.qid] = (Path(f).stem, q)
res = {}
for qid, rec in calls.items():
    part, q = qs[qid]
    cs = []
    for focus, found, act, oldp in rec["calls"]:
        cs.append(
            {
                "focus": focus,
                "times": [(m.t0, m.t1) for m in found],
                "old": oldp,
                "reads": readings(enc, focus, found, act),
            }
        )
    res[qid] = {
        "part": part,
        "q": q,
        "outcome": rec["outcome"],
        "wrong_no": rec["wrong_no"],
        "calls": cs,
        "answer": rec["answer"],
    }
pickle.dump(res, open(sys.argv[2], "wb"))
print(len(res))
