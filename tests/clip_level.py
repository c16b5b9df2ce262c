"""Memory at clip level only (no entity graph, no summaries), so the demo's memory is built
without a model call: the settings the question tests share, as config keys and as CLI flags."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def ask_recording(
    stream: Path, data_dir: Path, question: str, capsys: pytest.CaptureFixture[str], *more: str
) -> str:
    """The answer `edge-assist ask --recording` gives over `stream`, memory at clip level."""
    from edge_assist.cli import main

    capsys.readouterr()
    args = ["ask", question, "--recording", str(stream), "--json", "--set", f"general.data_dir={data_dir}"]
    assert main([*args, *CLIP_LEVEL_ARGS, *more]) == 0
    return str(json.loads(capsys.readouterr().out)["answer"])
