"""`memory forget` forgets in the logs too: the rewrite rule on crafted lines, and the whole
data folder grepped after a real run."""

from __future__ import annotations

import json
import math
import time
from datetime import datetime
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.errors import StoreError
from edge_assist.outputs.forget_logs import Forgotten, scrub_jsonl
from edge_assist.outputs.jsonl_file import JsonlFile
from tests.fakes import ManualWall

GONE = "I hide the spare house key under the blue flowerpot"
KEPT = "I chop two onions on the wooden board"


def _line(rec: dict) -> str:
    return json.dumps(rec, ensure_ascii=False) + "\n"


def test_scrub_drops_what_tells_the_forgotten_and_keeps_the_rest_byte_for_byte(tmp_path: Path) -> None:
    f = tmp_path / "traces.jsonl"
    kept = [
        _line({"decision": {"session_id": "b", "clip_index": 0}, "caption": KEPT}),
        _line({"type": "stats", "t": 3.0, "captions": 2}),
        _line(
            {"session_id": "b", "clip_index": 1, "reason": "the key is in the drawer"}
        ),  # other words, no citation
        '{"decision": {"session_id": "b", "clip_ind',  # a line cut by a kill, quoting nothing forgotten
    ]
    gone = [
        _line({"session_id": "a", "clip_index": 0, "text": ""}),  # a forgotten clip's own step
        _line(
            {"session_id": "b", "clip_index": 2, "retrieval": {"clips": [["a", 1, 10.0, 20.0]]}}
        ),  # cites one
        _line({"session_id": "b", "clip_index": 3, "context": f"(clips 0:10-0:20) {GONE}."}),  # quotes one
        _line({"session_id": "b", "clip_index": 4, "prompt": ["Caption:  " + GONE.replace(" ", "  ")]}),
    ]
    raw = "".join([kept[0], gone[0], kept[1], gone[1], gone[2], kept[2], gone[3], kept[3]])
    f.write_text(raw)
    forgotten = Forgotten(frozenset({("a", 0), ("a", 1)}), (GONE, "stir"))
    assert scrub_jsonl(f, forgotten) == (4, 4)
    assert f.read_text() == "".join(kept)
    assert not list(tmp_path.glob("*.forget-tmp"))
    assert scrub_jsonl(f, forgotten) == (4, 0)  # idempotent


def test_short_forgotten_texts_match_whole_strings_only(tmp_path: Path) -> None:
    f = tmp_path / "decisions.jsonl"
    f.write_text(_line({"text": "stir"}) + _line({"text": "stirring the stirrups"}))
    assert scrub_jsonl(f, Forgotten(frozenset(), ("stir",))) == (1, 1)
    assert "stirrups" in f.read_text()


def test_scrub_refuses_while_a_running_edge_assist_appends(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    writer = JsonlFile(path, "decision log", "output.decision_log")
    writer.append({"session_id": "a", "clip_index": 0})
    try:
        with pytest.raises(StoreError, match="running edge-assist.*nothing was deleted"):
            scrub_jsonl(path, Forgotten(frozenset({("a", 0)})))
    finally:
        writer.close()
    assert scrub_jsonl(path, Forgotten(frozenset({("a", 0)}))) == (0, 1)


def _stream(path: Path, session: str, captions: list[str]) -> Path:
    lines = [json.dumps({"meta": {"session_id": session}})]
    lines += [json.dumps({"t0": 10 * i, "t1": 10 * (i + 1), "text": c}) for i, c in enumerate(captions)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _grep(root: Path, text: str) -> list[str]:
    needle = text.encode()
    return [
        str(p.relative_to(root)) for p in sorted(root.rglob("*")) if p.is_file() and needle in p.read_bytes()
    ]


@pytest.mark.heavy
@pytest.mark.slow  # two real replays with the offline models, then a question across sessions
@pytest.mark.timeout(600)
def test_forget_leaves_no_trace_of_a_forgotten_caption_anywhere_in_the_data_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    s = ["--set", f"general.data_dir={data}", "--set", "output.speech=off"]
    yesterday = [GONE, "I water the tomato seedlings on the balcony"]
    today = [KEPT, "I fry the sliced onions in olive oil"]
    assert (
        main(["replay", str(_stream(tmp_path / "a.jsonl", "yesterday", yesterday)), "--no-progress", *s]) == 0
    )
    # forget takes a date to the second: cut at the next whole second, record the rest after it.
    # The replay stamps memory with the real wall clock, so this waits for that second to pass.
    cutoff = float(math.ceil(time.time()))
    time.sleep(cutoff - time.time() + 0.2)
    # A question today about yesterday: its trace retrieves yesterday's captions.
    b = _stream(tmp_path / "b.jsonl", "today", today)
    assert (
        main(["replay", str(b), "--no-progress", "--ask", "15:where did I hide the spare house key?", *s])
        == 0
    )
    capsys.readouterr()
    assert _grep(data, GONE), "the run did not record the caption at all: nothing to test"
    # The wearer's "thanks" / "not now" labels (outputs/feedback.py) name the alert they answered.
    labels = [
        {
            "type": "feedback",
            "signal": "thanks",
            "label": 1,
            "t": 12.0,
            "decision": {
                "session_id": sid,
                "clip_index": 0,
                "t0": 0.0,
                "t1": 10.0,
                "sub_type": "ER",
                "text": f"alert {n}",
                "probability": 0.9,
            },
            "features": [0.1, 0.2],
        }
        for n, sid in enumerate(("yesterday", "today"))
    ]
    (data / "feedback.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels))
    when = datetime.fromtimestamp(cutoff).isoformat(timespec="seconds")
    assert main(["memory", "forget", "--before", when, "--yes", *s]) == 0
    out = capsys.readouterr().out
    assert "forgot 2 clips" in out and "label lines that told of them" in out
    for text in yesterday:
        assert _grep(data, text) == [], f"{text!r} is still on disk"
    for text in today:
        assert "default.sqlite" in _grep(data, text)
    kept = [json.loads(x) for x in (data / "decisions.jsonl").read_text().splitlines()]
    assert any(r.get("session_id") == "today" for r in kept)
    assert not any(r.get("session_id") == "yesterday" for r in kept)
    feedback = [json.loads(x) for x in (data / "feedback.jsonl").read_text().splitlines()]
    assert [r["decision"]["session_id"] for r in feedback] == ["today"]
    assert main(["memory", "stats", "--json", *s]) == 0
    assert json.loads(capsys.readouterr().out)["items"]["clip"] == 2


@pytest.mark.slow  # the real text encoder
def test_forget_leaves_no_forgotten_entity_name_in_the_graph_file(
    tmp_path: Path, text_encoder: object
) -> None:
    from edge_assist.config import Config
    from edge_assist.events import Caption
    from edge_assist.memory.entities import Extraction
    from edge_assist.memory.memory import Memory

    cfg = Config().replace(**{"general.data_dir": str(tmp_path), "memory.extract_entities": False})
    said = {
        "a": (GONE, Extraction((("blue flowerpot", "blue flowerpot", "container"),), ())),
        "b": (KEPT, Extraction((("wooden board", "wooden board", "tool"),), ())),
    }
    wall = ManualWall()
    with Memory.open(cfg, None, text_encoder, wall=wall) as mem:  # type: ignore[arg-type]
        for sid, (text, ex) in said.items():
            mem.store_caption(Caption(t=10.0, session_id=sid, index=0, t0=0.0, t1=10.0, text=text))
            mem.store.set_entities(sid, 0, ex.to_json())  # as the writer saves an LLM extraction
            mem.store.reset_graph_flags()  # no LLM here: mark the saved extraction as due for the graph
            mem.update_graph()
            if sid == "a":
                cutoff = wall.cutoff()
        assert [n for _, n, _ in mem.graph.entities()] == ["blue flowerpot", "wooden board"]
        assert mem.forget_before(cutoff)["clips"] == 1
        assert [n for _, n, _ in mem.graph.entities()] == ["wooden board"]
    assert _grep(tmp_path, "blue flowerpot") == [] and _grep(tmp_path, GONE) == []
    assert _grep(tmp_path, "wooden board")
