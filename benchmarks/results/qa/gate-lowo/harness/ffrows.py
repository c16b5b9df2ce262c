import glob
import pickle
from pathlib import Path

from edge_assist.config import load_config
from edge_assist.evaluation.captaincook import DEFAULT_DATASET
from edge_assist.evaluation.qa_tune_freeform import freeform_rows
from edge_assist.inference.loader import load_text_encoder

ALL = ("cosine", "share", "recall_mean", "recall_min", "anchor_mean", "thing_min", "act", "precision")
enc = load_text_encoder(load_config())
files = [Path(f) for f in sorted(glob.glob("/work/wt-qa2/edge_assist/data/questions/freeform-dev*.jsonl"))]
out = {v: freeform_rows(enc, files, DEFAULT_DATASET, v, ALL, 5) for v in ("original", "paraphrased")}
for v, rows in out.items():
    print(v, len(rows), sum(r[2] for r in rows), sum(int(r[4].any()) for r in rows))
pickle.dump(out, open("/tmp/qa21/ffrows.pkl", "wb"))
