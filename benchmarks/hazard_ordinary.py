"""Sample ordinary captions of unscripted home activity for the hazard detector's training:
the distinct captions of Ego4D Goal-Step **train** clip streams (built by
`edge-assist eval build-goalstep`), a seeded sample, written as `ordinary` lines to
edge_assist/data/hazard_captions/ordinary_goalstep.jsonl. Goal-Step val is never read, so its
alert rate stays a measure.

    python -m benchmarks.hazard_ordinary --data /path/to/goalstep-build [--n 400]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from edge_assist.reasoning.hazards import CAPTIONS

OUT = CAPTIONS / "ordinary_goalstep.jsonl"


def distinct_captions(clips: Path) -> list[str]:
    seen: dict[str, None] = {}
    for path in sorted(clips.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            if line.strip():
                seen.setdefault(str(json.loads(line)["text"]).strip(), None)
    return sorted(seen)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, type=Path, help="a built Goal-Step benchmark directory")
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    clips = a.data / "train" / "clips"
    if not clips.is_dir():
        raise SystemExit(f"{clips} is missing: build it with `edge-assist eval build-goalstep` first")
    texts = distinct_captions(clips)
    picked = sorted(random.Random(a.seed).sample(texts, min(a.n, len(texts))))
    rows = [
        {
            "text": t,
            "label": "ordinary",
            "kind": "none",
            "style": "captioner",
            "setting": "home (Ego4D Goal-Step train)",
        }
        for t in picked
    ]
    OUT.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    print(f"wrote {len(rows)} of {len(texts)} distinct train captions to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
