"""The default decider end to end: a real recording replayed through the whole pipeline with
the shipped gate. It speaks where the tracker found something wrong, stays silent elsewhere,
and every decision shows the gate's probability against its threshold in the trace."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.cli import main

pytestmark = pytest.mark.slow  # the memory writer loads the LLM

ROOT = Path(__file__).resolve().parents[1]
# CaptainCook4D 3_14 (microwave mug pizza): a valid reordering early on, then the mixing step
# skipped (Missing Step, due at 281.3 s); no other annotated error.
STREAM = ROOT / "edge_assist" / "data" / "captaincook4d" / "train" / "original" / "3_14.jsonl"


@pytest.mark.heavy
def test_gate_speaks_at_the_missing_step_and_not_at_the_valid_reordering(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert (
        main(
            [
                "replay",
                str(STREAM),
                "--no-progress",
                "--set",
                f"general.data_dir={data}",
                "--set",
                "reasoner.phrasing=template",
                "--set",
                "policy.chattiness=chatty",
            ]
        )
        == 0
    )
    traces = [json.loads(x) for x in (data / "traces.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(traces) == 13
    for t in traces:
        g = t["gate"]
        wanted = t["decision"]["decision"] == "speak" or bool(t["decision"]["suppressed_by"])
        assert wanted == (g["ER"] >= g["threshold"]), t["decision"]
        assert t["decision"]["reason"].startswith("gate: P(ER helps)")
        assert "pass1" not in t  # the gate decided: no LLM call for the decision
    spoken = [t for t in traces if t["decision"]["decision"] == "speak"]
    # Said once: at the step after which it is missing (281.3 s) or, as the gate chosen to
    # keep its false-alarm budgets on clip and list streams too does, at the next (334.3 s).
    assert len(spoken) == 1 and spoken[0]["decision"]["t0"] in (281.266, 334.275)
    assert "Mix the contents of the mug" in spoken[0]["decision"]["text"]
    # Later steps still lack it; the same advice again is held back by the policy, never repeated.
    held = [t for t in traces if t["decision"]["suppressed_by"]]
    assert all(t["decision"]["suppressed_by"].startswith(("repeat", "cooldown")) for t in held)
    # The first seven steps (soda and powder swapped, as the graph allows) are silent.
    assert all(t["decision"]["decision"] == "silent" for t in traces[:7])
