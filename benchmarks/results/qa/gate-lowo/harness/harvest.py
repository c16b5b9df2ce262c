"""Scratch: run the free-form dev files and keep every answer-gate call (backing) per question."""

import pickle
import sys

from edge_assist.answers import backing as B
from edge_assist.evaluation import qa_freeform as F

orig_backing, orig_score = B.backing, F.score
pending, calls = [], {}


def backing(gate, encoder, focus, found, *, act_needed=True):
    out = orig_backing(gate, encoder, focus, found, act_needed=act_needed)
    pending.append((focus, list(found), act_needed, [out[m] for m in found]))
    return out


def score(q, said, ask_t):
    v = orig_score(q, said, ask_t)
    calls[q.qid] = {
        "calls": list(pending),
        "answer": said,
        "outcome": v.outcome,
        "wrong_no": v.wrong_no,
        "kind": q.kind,
        "question": q.question,
        "ask_t": ask_t,
    }
    pending.clear()
    return v


B.backing, F.score = backing, score
from edge_assist.cli import main  # noqa: E402 (after the patches above)

out = sys.argv[1]
files = sys.argv[2:]
args = ["eval", "qa"]
for f in files:
    args += ["--questions", f]
args += ["--variant", "paraphrased", "--out", out + "/run"]
for s in [
    "memory.extract_entities=false",
    "memory.profile=custom",
    "memory.activity_s=100000",
    "memory.session_s=100000",
]:
    args += ["--set", s]
rc = main(args)
with open(out + "/calls.pkl", "wb") as fh:
    pickle.dump(calls, fh)
print("calls for", len(calls), "questions")
