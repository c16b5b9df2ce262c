"""Safety alerts on CaptainCook4D recordings without any annotated error: every one is a false
alarm (cooking without a mistake, recorded in a lab kitchen). Alerts per hour of recording,
next to the phrase-list matcher it replaced; results in benchmarks/results/hazards/streams.json.

    .venv/bin/python -m benchmarks.hazard_streams [--split val] [--variant paraphrased]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from edge_assist.config import Config
from edge_assist.inference.loader import load_text_encoder
from edge_assist.reasoning.hazard_phrases import HazardMatcher
from edge_assist.reasoning.hazards import HazardDetector

ROOT = Path(__file__).resolve().parents[1] / "edge_assist" / "data" / "captaincook4d"
OUT = Path(__file__).resolve().parent / "results" / "hazards"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="val")
    ap.add_argument("--variant", default="paraphrased")
    a = ap.parse_args(argv)
    gt = [json.loads(x) for x in (ROOT / a.split / "gt.jsonl").read_text(encoding="utf-8").splitlines() if x]
    busy = {g["session_id"] for g in gt}
    enc = load_text_encoder(Config())
    det, matcher = HazardDetector.load(enc), HazardMatcher.load(enc)
    seconds, n, alerts, old, recs = 0.0, 0, [], 0, 0
    cpu = 0.0
    for path in sorted((ROOT / a.split / a.variant).glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        meta = json.loads(lines[0])["meta"]
        if meta["session_id"] in busy:
            continue
        caps = [json.loads(x) for x in lines[1:] if x.strip()]
        recs += 1
        seconds += max(c["t1"] for c in caps) - min(c["t0"] for c in caps)
        vecs = np.asarray(enc.encode([c["text"] for c in caps]), dtype=np.float32)
        t = time.process_time()
        for c, v in zip(caps, vecs, strict=True):
            h = det.detect(c["text"], v)
            if h is not None:
                alerts.append(
                    {"recording": meta["recording"], "t0": c["t0"], "text": c["text"], **h.to_json()}
                )
        cpu += time.process_time() - t
        old += sum(matcher.match(v) is not None for v in vecs)
        n += len(caps)
    hours = seconds / 3600
    res = {
        "split": a.split,
        "variant": a.variant,
        "recordings_without_errors": recs,
        "captions": n,
        "hours": round(hours, 2),
        "detector": {"alerts": len(alerts), "per_hour": round(len(alerts) / hours, 2) if hours else None},
        "phrase_list": {"alerts": old, "per_hour": round(old / hours, 2) if hours else None},
        "detector_cpu_ms_per_caption": round(1000 * cpu / max(n, 1), 2),
        "load": os.getloadavg()[0],
        "alerts": alerts,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"streams_{a.split}_{a.variant}.json").write_text(
        json.dumps(res, indent=1) + "\n", encoding="utf-8"
    )
    print({k: v for k, v in res.items() if k != "alerts"})
    for x in alerts:
        print(f"  {x['recording']} {x['t0']:.0f}s {x['kind']} P {x['score']}: {x['text']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
