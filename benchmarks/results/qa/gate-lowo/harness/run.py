import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lowo as L


def decided(key, prob, tag=""):
    out = []
    for r in L.T[key]:
        X = r[tag + "X"]
        if len(X) == 0:
            out.append((-1.0, False, r))
            continue
        p = prob(X)
        b = int(np.argmax(p))
        out.append((p[b], bool(r[tag + "right"][b]), r))
    return out


def outc(dec, thr):
    ans, neg = [], []
    for s, hit, r in dec:
        a = s >= thr
        if r["answer"]:
            ans.append(a and hit)
        elif r["template"] == "did-no":
            ans.append(not a)
        else:
            neg.append(not a)
    return (round(100 * np.mean(ans), 1), round(100 * np.mean(neg), 1))


def free_right(prob, parts, t):
    n = 0
    for v in ("original", "paraphrased"):
        for part, _qid, answered, F, target in L.FF[v]:
            if part not in parts:
                continue
            p = prob(F) if len(F) else np.zeros(0)
            b = int(np.argmax(p)) if len(p) else -1
            said = b >= 0 and p[b] >= t
            n += int(said and bool(target[b])) if answered else int(not said)
    return n


SELECT = "free"


def summary_right(res):
    return {p: (v[0], v[2]) for p, v in sorted(L.summary(res).items())}


def pick(prob, probs, parts):
    """The threshold qa_tune --floor chooses: val within a point of the shipped gate's, then the
    most free-form questions right on `parts`, then the worse ratio to the targets."""
    dv = {k: decided(("val", k), prob) for k in ("original", "paraphrased")}
    best = None
    for t in np.unique(np.round(np.linspace(0.02, 0.96, 189), 4)):
        vo, vp = outc(dv["original"], t), outc(dv["paraphrased"], t)
        ok = all(a >= b - 1.0 for a, b in zip(vo + vp, BASE, strict=False))
        right = (
            free_right(prob, set(parts), t)
            if SELECT == "free"
            else sum(r[0] for r in L.dev_sim(probs, t, set(parts)).values())
        )
        key = (ok, right, min(vo[0] / 80, vo[1] / 90, vp[0] / 80, vp[1] / 90))
        if best is None or key > best[0]:
            best = (key, t, vo, vp)
    return best


def evaluate(name, feats, restyled, dev_w, folds=True, l2=None):
    rows = {}
    held_total = 0
    for f in L.PARTS if folds else []:
        others = [p for p in L.PARTS if p != f]
        m, prob = L.fit(feats, others, restyled, dev_w, l2)
        probs = L.dev_probs(prob)
        best = pick(prob, probs, others)
        t = best[1]
        held = L.dev_sim(probs, t, {f})
        n_right = sum(r[0] for r in held.values())
        n_ch = sum(r[1] for r in held.values())
        n_unk = sum(r[2] for r in held.values())
        rows[f] = (n_right, len(held), n_ch, n_unk, round(float(t), 3), best[0][0])
        held_total += n_right
    # final fit on all dev files
    m, prob = L.fit(feats, L.PARTS, restyled, dev_w, l2)
    probs = L.dev_probs(prob)
    best = pick(prob, probs, L.PARTS)
    t = best[1]
    dr = {k: decided(("val", k), prob, "r") for k in ("original", "paraphrased")}
    restyled_val = (outc(dr["original"], t), outc(dr["paraphrased"], t))
    print(
        json.dumps(
            {
                "name": name,
                "feats": feats,
                "restyled": restyled,
                "dev_w": dev_w,
                "lowo_right": held_total,
                "folds": rows,
                "final_thr": round(float(t), 4),
                "final_ok": best[0][0],
                "final_sel_right": best[0][1],
                "final_dev_sim": summary_right(L.dev_sim(probs, t, set(L.PARTS))),
                "val": [best[2], best[3]],
                "val_restyled": restyled_val,
                "weights": dict(zip(feats, np.round(m.weights, 2).tolist(), strict=False)),
            },
            default=lambda x: x.item() if hasattr(x, "item") else str(x),
        ),
        flush=True,
    )
    return m, t


# shipped gate, as is
g = L.load_gate()


def ship_prob(Z):
    return g.model.probabilities(Z[:, [L.ALL.index(n) for n in g.model.features]])


dv = {k: decided(("val", k), ship_prob) for k in ("original", "paraphrased")}
dr = {k: decided(("val", k), ship_prob, "r") for k in ("original", "paraphrased")}
BASE = outc(dv["original"], g.threshold) + outc(dv["paraphrased"], g.threshold)
probs = L.dev_probs(ship_prob)
# sanity: replay equals the recorded backing
diff = max(
    (
        abs(a - b)
        for qid, d in L.D.items()
        for c, p in zip(d["calls"], probs[qid], strict=False)
        for a, b in zip(c["old"], p, strict=False)
    ),
    default=0,
)
sim = L.dev_sim(probs, g.threshold, set(L.PARTS))
print(
    json.dumps(
        {
            "shipped_val": BASE,
            "shipped_val_restyled": [outc(dr["original"], g.threshold), outc(dr["paraphrased"], g.threshold)],
            "replay_maxdiff": diff,
            "changed": sum(r[1] for r in sim.values()),
            "dev_right": {
                p: sum(1 for q, d in L.D.items() if d["part"] == p and d["outcome"] == "right")
                for p in L.PARTS
            },
            "dev_n": {p: sum(1 for q, d in L.D.items() if d["part"] == p) for p in L.PARTS},
        }
    ),
    flush=True,
)
F4 = ["cosine", "share", "recall_mean", "recall_min"]
configs = [
    ("4 refit, templates only", F4, False, 0.0),
    ("4 + dev", F4, False, 3.0),
    ("4 + dev + restyle", F4, True, 3.0),
    ("anchor6 + dev", ["cosine", "share", "recall_mean", "anchor_mean", "thing_min", "act"], False, 3.0),
    (
        "anchor6 + dev + restyle",
        ["cosine", "share", "recall_mean", "anchor_mean", "thing_min", "act"],
        True,
        3.0,
    ),
    ("anchor5p + dev + restyle", ["cosine", "anchor_mean", "thing_min", "act", "precision"], True, 3.0),
    ("all8 + dev + restyle", list(L.ALL), True, 3.0),
    ("anchor5 + dev + restyle", ["cosine", "share", "anchor_mean", "thing_min", "act"], True, 3.0),
    ("anchor4 min + dev + restyle", ["cosine", "share", "anchor_mean", "recall_min"], True, 3.0),
    ("r+a + dev + restyle", ["cosine", "share", "recall_mean", "anchor_mean"], True, 3.0),
    (
        "anchor6 + dev10 + restyle",
        ["cosine", "share", "recall_mean", "anchor_mean", "thing_min", "act"],
        True,
        10.0,
    ),
    (
        "anchor6 restyle no dev",
        ["cosine", "share", "recall_mean", "anchor_mean", "thing_min", "act"],
        True,
        0.0,
    ),
    ("anchor5 restyle no dev", ["cosine", "share", "anchor_mean", "thing_min", "act"], True, 0.0),
    (
        "anchor7 + dev + restyle",
        ["cosine", "share", "recall_mean", "recall_min", "anchor_mean", "thing_min", "act"],
        True,
        3.0,
    ),
]
sel = sys.argv[1:] and [configs[int(i)] for i in sys.argv[1:]] or configs
for c in sel:
    evaluate(*c)
