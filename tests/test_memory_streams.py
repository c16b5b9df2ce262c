"""Caption streams for the memory tests: real CaptainCook4D recordings from tests/data/memory.

`stream()` reads one recording as Captions, one per performed step, or cut into fixed
clips (as the segmenter would cut live video) with `clip_s`. `memory_config()` points a
config at a temporary data dir.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from edge_assist.commands.memory import read_caption_file
from edge_assist.config import Config
from edge_assist.events import Caption

DATA = Path(__file__).resolve().parent / "data" / "memory"
LONG = DATA / "captaincook4d_3_5.jsonl"  # 14 steps, 9.6 min: mug pizza
SHORT = DATA / "captaincook4d_1_42.jsonl"  # 12 steps, 6.4 min: microwave egg sandwich


def stream(path: Path = LONG, *, clip_s: float | None = None, session: str | None = None) -> list[Caption]:
    sid, rows = read_caption_file(path, session)
    if clip_s is None:
        return [
            Caption(t=t1, session_id=sid, index=i, t0=t0, t1=t1, text=text)
            for i, (t0, t1, text) in enumerate(rows)
        ]
    end = max(t1 for _, t1, _ in rows)
    out = []
    for i in range(math.ceil(end / clip_s)):
        a, b = i * clip_s, (i + 1) * clip_s
        texts = [text for t0, t1, text in rows if t0 < b and t1 > a]
        if texts:  # a clip with no performed step has nothing to remember
            out.append(
                Caption(t=b, session_id=sid, index=i, t0=a, t1=b, text="; ".join(dict.fromkeys(texts)))
            )
    return out


def memory_config(tmp_path: Path, **overrides: Any) -> Config:
    return Config().replace(**{"general.data_dir": str(tmp_path), **overrides})


def test_streams_are_real_recordings_in_time_order() -> None:
    caps = stream(LONG)
    assert caps[0].session_id == "captaincook4d-3_5" and len(caps) == 14
    assert all(a.t1 <= b.t1 for a, b in zip(caps, caps[1:], strict=False))
    clips = stream(LONG, clip_s=10.0)
    assert all(c.t1 - c.t0 == 10.0 for c in clips)
    assert clips[-1].t1 >= caps[-1].t1 and len({c.index for c in clips}) == len(clips)
    assert "mozzarella" in " ".join(c.text for c in clips)
