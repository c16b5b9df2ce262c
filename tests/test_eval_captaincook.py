"""The CaptainCook4D benchmark builder, on a few real records copied into tests/data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.annotations import read_ground_truth
from edge_assist.evaluation.captaincook import build, load_raw, topological_steps
from edge_assist.evaluation.paraphrase import clean_step, contains_verbatim

DATA = Path(__file__).parent / "data" / "captaincook4d"
SHIPPED = Path(__file__).parents[1] / "edge_assist" / "data" / "captaincook4d"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cc4d")
    build(DATA, out)
    return out


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_clean_step_drops_the_verb_label() -> None:
    assert clean_step("Pour-Pour 1 egg into the ramekin cup") == "Pour 1 egg into the ramekin cup"
    assert (
        clean_step("Microwave -Continue to Microwave for 15-30 more seconds")
        == "Continue to Microwave for 15-30 more seconds"
    )
    assert clean_step("Put some oil into a 6-oz. ramekin cup") == "Put some oil into a 6-oz. ramekin cup"


def test_topological_order_respects_every_edge() -> None:
    graph = json.loads((DATA / "task_graphs" / "microwaveeggsandwich.json").read_text())
    order = topological_steps(graph)
    pos = {clean_step(graph["steps"][str(i)]): n for n, i in enumerate(range(1, 13))}
    where = {s: order.index(s) for s in pos}
    for a, b in graph["edges"]:
        sa, sb = clean_step(graph["steps"][str(a)]), clean_step(graph["steps"][str(b)])
        if sa in where and sb in where:
            assert where[sa] < where[sb]
    assert len(order) == 12


def test_activity_maps_to_its_task_graph() -> None:
    raw = load_raw(DATA)
    assert {r.recipe for r in raw.recordings.values()} == {"microwaveeggsandwich"}


def test_stream_format_and_time_order(built: Path) -> None:
    lines = _lines(built / "val" / "original" / "1_10.jsonl")
    meta = lines[0]["meta"]
    assert set(meta) == {"session_id", "recording", "recipe", "task_context", "source"}
    assert meta["session_id"] == "captaincook4d-1_10" and "Coat a 6-oz. ramekin cup" in meta["task_context"]
    caps = lines[1:]
    assert [c["t0"] for c in caps] == sorted(c["t0"] for c in caps)
    assert len(caps) == 11  # 12 steps, the microwave step was skipped
    assert all(set(c) == {"t0", "t1", "text"} for c in caps)


def test_ground_truth_mapping(built: Path) -> None:
    loaded = read_ground_truth(built / "val" / "gt.jsonl")
    assert not loaded.problems
    by_rec: dict[str, list] = {}
    for g in loaded.gt:
        by_rec.setdefault(g.session_id, []).append(g)
    # 1_10: one Missing Step (microwave), due in the window of the next performed step (stir).
    (missing,) = by_rec["captaincook4d-1_10"]
    assert missing.extra["tags"] == ["Missing Step"] and missing.extra["revealable"]
    assert missing.t0 == pytest.approx(91.475, abs=1e-3) and missing.extra["window"] == "next performed step"
    assert "Microwave the ramekin cup" in missing.description
    # 1_37: 7 steps carry errors; two labels on one step are one event.
    events = by_rec["captaincook4d-1_37"]
    assert len(events) == 7
    assert any(e.extra["tags"] == ["Temperature Error", "Timing Error"] for e in events)
    # "Line the bottom piece" has only an Order Error and no modified text: revealable by order.
    assert all(e.extra["revealable"] for e in events if "Order Error" in e.extra["tags"])


def test_unrevealable_errors_are_marked(built: Path) -> None:
    loaded = read_ground_truth(built / "train" / "gt.jsonl")
    hidden = [g for g in loaded.gt if not g.extra["revealable"]]
    # 1_34: "Cracked egg with shell" is a Technique Error the step text does not show.
    assert any("Cracked egg with shell" in g.description for g in hidden)
    assert all(g.extra["performed_as"] is None or g.extra["performed_as"] == g.extra["step"] for g in hidden)


def test_error_free_recording_has_no_ground_truth(built: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["recordings"]["1_7"]["gt_events"] == 0 and not manifest["recordings"]["1_7"]["is_error"]
    assert manifest["delta_s"] == 25.0
    assert (built / "LICENSE-CaptainCook4D").exists()


def test_paraphrased_stream_never_quotes_the_recipe(built: Path) -> None:
    graph = json.loads((DATA / "task_graphs" / "microwaveeggsandwich.json").read_text())
    steps = [clean_step(s) for s in graph["steps"].values() if s not in ("START", "END")]
    for split in ("train", "val"):
        for path in sorted((built / split / "paraphrased").glob("*.jsonl")):
            lines = _lines(path)
            original = _lines(built / split / "original" / path.name)
            assert [x.get("t0") for x in lines] == [x.get("t0") for x in original]
            for cap in lines[1:]:
                assert not any(contains_verbatim(cap["text"], s) for s in steps), cap["text"]
                assert cap["text"].startswith("I") or ", I" in cap["text"] or "I " in cap["text"]


def test_build_is_deterministic(built: Path, tmp_path: Path) -> None:
    build(DATA, tmp_path)
    for rel in ("val/paraphrased/1_37.jsonl", "val/gt.jsonl", "manifest.json"):
        assert (tmp_path / rel).read_bytes() == (built / rel).read_bytes()


def test_missing_dataset_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(EdgeAssistError, match="missing"):
        build(tmp_path, tmp_path / "out")


def test_shipped_dataset_is_complete_and_clear_of_recipe_text() -> None:
    manifest = json.loads((SHIPPED / "manifest.json").read_text())
    assert len(manifest["splits"]["val"]) == 62 and len(manifest["splits"]["train"]) == 213
    for rid in manifest["splits"]["val"]:
        lines = _lines(SHIPPED / "val" / "paraphrased" / f"{rid}.jsonl")
        steps = [
            s.split(". ", 1)[1]
            for s in lines[0]["meta"]["task_context"].split("Steps in order: ", 1)[1].split("; ")
        ]
        for cap in lines[1:]:
            assert not any(contains_verbatim(cap["text"], s) for s in steps), (rid, cap["text"])
