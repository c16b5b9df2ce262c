"""Memory at clip level only (no entity graph, no summaries), so the demo's memory is built
without a model call: the settings the question tests share, as config keys and as CLI flags."""

from __future__ import annotations

from pathlib import Path

DEMO = (
    Path(__file__).resolve().parents[1] / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"
)
CLIP_LEVEL: dict[str, object] = {
    "memory.extract_entities": False,
    "memory.profile": "custom",
    "memory.activity_s": 100000,
    "memory.session_s": 100000,
}
CLIP_LEVEL_ARGS = [a for k, v in CLIP_LEVEL.items() for a in ("--set", f"{k}={str(v).lower()}")]
