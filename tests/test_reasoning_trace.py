"""Decision traces: the JSONL format, damaged files, and `edge-assist trace` filters."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_assist.cli import main as cli_main
from edge_assist.errors import EdgeAssistError
from edge_assist.events import Decision, SubType
from edge_assist.outputs.trace_format import read_traces, render, write_trace


def decision(i: int, *, speak: bool = False, suppressed: str = "") -> Decision:
    trace = {
        "session_id": "s",
        "clip_index": i,
        "caption": f"caption {i}",
        "pass1": {"raw": {"reply": "search"}, "seconds": 0.5, "attempts": 1},
        "search": {
            "query": "egg",
            "why": "check",
            "plan": {"paths": ["temporal", "graph"], "top_k": 5, "reconstruction": True},
            "outcome": "retrieved",
        },
        "retrieval": {
            "paths": {
                "temporal": {
                    "start_s": 0.001,
                    "end_s": 0.05,
                    "clips": [{"clip_index": 0, "score": 0.8, "via": "clip"}],
                },
                "graph": {"start_s": 0.002, "end_s": 0.03, "clips": [], "names": ["egg"]},
            },
            "skipped": {"visual": "no image encoder configured (models.image_encoder)"},
            "reconstruction": {"graph": {"by": "llm", "seconds": 0.4, "text": "(clips 0:01-0:31) an egg"}},
            "context": "From memory:\n[clip 0:01-0:31] Pour 1 egg",
        },
        "pass2": {"raw": {"reply": "respond"}, "seconds": 0.6, "attempts": 1},
        "policy": {"allowed": not suppressed, "reason": suppressed},
    }
    return Decision(
        t=float(i),
        session_id="s",
        clip_index=i,
        stream_t0=10.0 * i,
        stream_t1=10.0 * i + 10,
        speak=speak,
        sub_type=SubType.NEXT_STEP_GUIDANCE if speak or suppressed else None,
        text="Now stir." if speak or suppressed else "",
        suppressed_by=suppressed,
        timings_s={"pass1": 0.5, "retrieval": 0.05, "pass2": 0.6},
        trace=trace,
    )


def test_write_read_render(tmp_path: Path) -> None:
    f = tmp_path / "sub" / "traces.jsonl"
    write_trace(f, decision(0))
    write_trace(f, decision(1, speak=True))
    recs = list(read_traces(f))
    assert [r["decision"]["clip_index"] for r in recs] == [0, 1]
    assert recs[1]["decision"]["sub_type"] == "NSG" and recs[1]["retrieval"]["paths"]["graph"]["names"] == [
        "egg"
    ]
    text = render(recs[1], verbose=True)
    for needle in (
        "SPEAK NSG",
        "temporal",
        "0.001-  0.050",
        "visual   skipped",
        "reconstruction graph",
        "says: Now stir.",
        "names: egg",
        "[clip 0:01-0:31] Pour 1 egg",
    ):
        assert needle in text, needle


def test_a_cut_last_line_is_skipped_a_damaged_middle_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "traces.jsonl"
    write_trace(f, decision(0))
    with open(f, "a", encoding="utf-8") as fh:
        fh.write('{"decision": {"clip_ind')
    assert len(list(read_traces(f))) == 1
    with open(f, "a", encoding="utf-8") as fh:
        fh.write("\n")
    write_trace(f, decision(2))
    with pytest.raises(EdgeAssistError, match="line 2 is not JSON"):
        list(read_traces(f))
    with pytest.raises(EdgeAssistError, match="no trace file"):
        list(read_traces(tmp_path / "none.jsonl"))


def test_trace_command_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "traces.jsonl"
    for i in range(5):
        write_trace(
            f,
            decision(
                i,
                speak=i == 3,
                suppressed="cooldown:NSG (5.0 s since the last, needs 30 s)" if i == 4 else "",
            ),
        )
    assert cli_main(["trace", "--file", str(f), "--last", "2"]) == 0
    out = capsys.readouterr().out
    assert "clip 3 [" in out and "clip 4 [" in out and "clip 2 [" not in out
    assert "policy: suppressed by cooldown:NSG" in out
    assert cli_main(["trace", "--file", str(f), "--speak", "--last", "0"]) == 0
    out = capsys.readouterr().out
    assert [ln.split()[1] for ln in out.splitlines() if ln.startswith("clip ")] == ["3", "4"]
    assert cli_main(["trace", "--file", str(f), "--clip", "9"]) == 0
    assert "no matching traces" in capsys.readouterr().out
    # Default location: traces.jsonl in the data dir; none there is a one-line error.
    assert cli_main(["trace", "--set", f"general.data_dir={tmp_path / 'empty'}"]) == 2
    assert "no trace file" in capsys.readouterr().err
