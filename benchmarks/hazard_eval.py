"""Score the hazard detector on the written hazard captions: recall on hazards and the share of
near misses (and ordinary lines) that would get a Safety alert, overall, per kind and per
style; the phrase-list matcher it replaced beside it; CPU time per caption. Results go to
benchmarks/results/hazards/<split>.json and .md.

    .venv/bin/python -m benchmarks.hazard_eval train val fresh omelette
    .venv/bin/python -m benchmarks.hazard_eval test   # the written-once test half: once per design

`omelette` scores the demo stream's clips: the three safety events (by their windows) are
hazards, every other clip is ordinary.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.config import Config
from edge_assist.inference.loader import load_text_encoder
from edge_assist.reasoning.hazard_phrases import HazardMatcher
from edge_assist.reasoning.hazards import CAPTIONS, HazardDetector

OUT = Path(__file__).resolve().parent / "results" / "hazards"


def omelette_rows() -> list[dict]:
    lines = (CAPTIONS / "omelette.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    events = json.loads((CAPTIONS / "omelette.expected.json").read_text(encoding="utf-8"))["omelette-demo"]
    safety = [(e["t0"], e["t1"], e["hazard_kind"]) for e in events if e["sub_type"] == "SA"]
    out = []
    for c in map(json.loads, lines):
        kind = next((k for a, b, k in safety if a <= c["t0"] < b), "none")
        label = "hazard" if kind != "none" else "ordinary"
        out.append({"text": c["text"], "label": label, "kind": kind, "style": "captioner", "t0": c["t0"]})
    return out


def split_rows(split: str) -> list[dict]:
    if split == "omelette":
        return omelette_rows()
    return [
        json.loads(x) for x in (CAPTIONS / f"{split}.jsonl").read_text(encoding="utf-8").splitlines() if x
    ]


def tally(rows: list[dict], fired: list[bool], key: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for r, f in zip(rows, fired, strict=True):
        groups[r.get(key, "?")][r["label"]].append(f)
    return {g: {lab: f"{sum(v)}/{len(v)}" for lab, v in sorted(d.items())} for g, d in sorted(groups.items())}


def score(rows: list[dict], fired: list[bool]) -> dict[str, Any]:
    by: dict[str, list[bool]] = defaultdict(list)
    for r, f in zip(rows, fired, strict=True):
        by[r["label"]].append(f)
    out: dict[str, Any] = {}
    for lab, v in sorted(by.items()):
        out[lab] = {"alerts": int(sum(v)), "n": len(v), "rate": round(sum(v) / len(v), 3)}
    out["per_kind"] = tally(rows, fired, "kind")
    out["per_style"] = tally(rows, fired, "style")
    return out


def run(split: str, det: HazardDetector, matcher: HazardMatcher, enc: Any) -> dict[str, Any]:
    rows = split_rows(split)
    texts = [r["text"] for r in rows]
    t_cpu = time.process_time()
    vecs = np.asarray(enc.encode(texts), dtype=np.float32)
    enc_cpu = time.process_time() - t_cpu
    t_cpu = time.process_time()
    hz = [det.detect(t, v) for t, v in zip(texts, vecs, strict=True)]
    det_cpu = time.process_time() - t_cpu
    fired = [h is not None for h in hz]
    base = [matcher.match(v) is not None for v in vecs]
    res = {
        "split": split,
        "threshold": det.threshold,
        "detector": score(rows, fired),
        "phrase_list": score(rows, base),
        "cpu_ms_per_caption": {
            "encode": round(1000 * enc_cpu / len(rows), 2),
            "detector": round(1000 * det_cpu / len(rows), 2),
        },
        "load": os.getloadavg()[0],
        "alerts": [
            {"text": r["text"], "label": r["label"], **h.to_json()}
            for r, h in zip(rows, hz, strict=True)
            if h
        ],
        "missed": [r["text"] for r, f in zip(rows, fired, strict=True) if r["label"] == "hazard" and not f],
    }
    return res


def markdown(res: dict[str, Any]) -> str:
    d, b = res["detector"], res["phrase_list"]
    lines = [f"# Hazard detector on `{res['split']}` (threshold {res['threshold']:.3f})", ""]
    lines += ["| | detector | phrase list |", "|---|---|---|"]
    for lab in ("hazard", "near_miss", "ordinary"):
        if lab in d:
            lines.append(
                f"| alerts on {lab} | {d[lab]['alerts']}/{d[lab]['n']} | {b[lab]['alerts']}/{b[lab]['n']} |"
            )
    cpu = res["cpu_ms_per_caption"]
    lines += [
        "",
        f"CPU per caption: encode {cpu['encode']} ms, detector {cpu['detector']} ms (load {res['load']:.1f})",
    ]
    for key in ("per_style", "per_kind"):
        lines += [
            "",
            f"## {key.replace('_', ' ')} (detector alerts / lines)",
            "",
            "| | " + " | ".join(("hazard", "near_miss", "ordinary")) + " |",
            "|---|---|---|---|",
        ]
        for g, v in d[key].items():
            lines.append(
                f"| {g} | " + " | ".join(v.get(lab, "") for lab in ("hazard", "near_miss", "ordinary")) + " |"
            )
    lines += ["", "## Alerts", ""] + [
        f"- [{a['label']}] {a['kind']} P {a['score']}: {a['text']}" for a in res["alerts"]
    ]
    lines += ["", "## Missed hazards", ""] + [f"- {t}" for t in res["missed"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("splits", nargs="+")
    a = ap.parse_args(argv)
    enc = load_text_encoder(Config())
    det, matcher = HazardDetector.load(enc), HazardMatcher.load(enc)
    OUT.mkdir(parents=True, exist_ok=True)
    for split in a.splits:
        res = run(split, det, matcher, enc)
        (OUT / f"{split}.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
        (OUT / f"{split}.md").write_text(markdown(res), encoding="utf-8")
        d = res["detector"]
        print(
            split, {k: d[k] for k in ("hazard", "near_miss", "ordinary") if k in d}, res["cpu_ms_per_caption"]
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
