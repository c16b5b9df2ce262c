"""The intervention gate: the shipped file, its recorded metrics, bad files, hazards, phrasing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from edge_assist.errors import ModelError
from edge_assist.evaluation.gate_report import SESSION_HISTORY
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.gate import SHIPPED, Gate
from edge_assist.reasoning.gate_features import NAMES, nameable
from edge_assist.reasoning.hazard_phrases import HazardMatcher
from edge_assist.reasoning.phrasing import unfaithful
from tests.fakes import RefusingEncoder

ROOT = Path(__file__).resolve().parents[1]


def test_shipped_gate_loads_with_its_training_record() -> None:
    g = Gate.load()
    er = g.services["ER"]
    # The candidate that generalised best ships (gate_choice.py): every feature, or every
    # feature but the session's history.
    assert er.features == list(NAMES) or er.features == [n for n in NAMES if n not in SESSION_HISTORY]
    assert g.training["chosen"] in ("all features", "without session history")
    assert er.thresholds["quiet"] >= er.thresholds["normal"] >= er.thresholds["chatty"]
    assert g.training["command"].startswith("edge-assist gate train") and len(g.training["data_sha256"]) == 64
    assert "gate, val paraphrased" in g.training["val_metrics"]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "the gate model is missing"),
        ("", "unreadable"),
        ('{"format": "something-else"}', "not an edge-assist gate model"),
        (
            '{"format": "edge-assist-gate/1", "services": {"ER": {"features": ["a"], "mean": [0], '
            '"scale": [1], "weights": [1, 2], "bias": 0}}}',
            "do not match",
        ),
        (
            '{"format": "edge-assist-gate/1", "services": {"ER": {"features": ["a"], "mean": [0], '
            '"scale": [1], "weights": [1], "bias": 0, "thresholds": {"quiet": 0.5}}}}',
            "no 'normal' threshold",
        ),
    ],
)
def test_bad_or_missing_gate_file_is_one_clear_line(tmp_path: Path, content: str | None, needle: str) -> None:
    p = tmp_path / "gate.json"
    if content is not None:
        p.write_text(content, encoding="utf-8")
    with pytest.raises(ModelError) as e:
        Gate.load(p)
    assert needle in str(e.value) and "\n" not in str(e.value) and "gate train" in str(e.value)


def test_bad_gate_file_through_the_cli_names_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from edge_assist.cli import main

    (tmp_path / "g.json").write_text("{", encoding="utf-8")
    assert main(["gate", "--set", f"reasoner.gate_file={tmp_path / 'g.json'}", "show"]) == 2
    assert "edge-assist gate train" in capsys.readouterr().err


@pytest.mark.heavy
@pytest.mark.slow
def test_shipped_gate_reproduces_its_recorded_val_metrics(text_encoder: TextEncoder) -> None:
    from edge_assist.evaluation.gate_data import collect
    from edge_assist.evaluation.gate_training import evaluate
    from edge_assist.evaluation.harness import Dataset

    ds = Dataset.open(ROOT / "edge_assist" / "data" / "captaincook4d")
    g = Gate.load()
    er = g.services["ER"]
    rows = collect(ds, "val", "paraphrased", text_encoder)
    p = er.probabilities(rows.X[:, [NAMES.index(n) for n in er.features]])
    p = np.where(nameable(rows.X), p, 0.0)  # as the decider speaks: something to name
    recs = ds.recordings("val")
    gt, _ = ds.ground_truth("val", recs)
    durations = {ds.session_id(r): ds.duration_s(r) for r in recs}
    recorded = g.training["val_metrics"]["gate, val paraphrased"]
    for name, thr in er.thresholds.items():
        got = evaluate(p, rows, thr, gt, durations, ds.delta_s).to_json()
        assert got["f1"] == pytest.approx(recorded[name]["f1"], abs=0.05), name
        assert got["false_alarms_per_hour"] == pytest.approx(
            recorded[name]["false_alarms_per_hour"], abs=0.01
        )


@pytest.mark.slow
def test_clear_hazards_fire_and_ordinary_actions_do_not(text_encoder: TextEncoder) -> None:
    hm = HazardMatcher.load(text_encoder)
    clear = [
        "My fingers are right in front of the knife blade",
        "The oil in the pan caught fire",
        "I grab the hot pan handle with my bare hand",
        "Water spilled all over the kitchen floor",
        "There is smoke coming out of the pan",
        "I step into the road while a car is coming",
    ]
    ordinary = [
        "I cut the bread with a knife",
        "Heat the oil in a pan on medium heat",
        "Microwave the mug for 30 seconds",
        "Chop the tomato into small pieces",
        "Pour the egg into the pan",
        "I cross the road at the green light",
        "Stirring the contents in the microwave with a spoon",
        "Take the pan off the heat",
    ]
    vecs = text_encoder.encode(clear + ordinary)
    fired = [hm.match(v) for v in vecs]
    assert all(h is not None for h in fired[: len(clear)]), [
        c for c, h in zip(clear, fired, strict=False) if h is None
    ]
    assert all(h is None for h in fired[len(clear) :]), [
        (o, h) for o, h in zip(ordinary, fired[len(clear) :], strict=True) if h
    ]
    assert fired[1] is not None and fired[1].kind == "fire"


def test_hazard_vocabulary_errors_are_one_line(tmp_path: Path) -> None:
    p = tmp_path / "h.toml"
    p.write_text("[[hazard]]\nkind = 3\n", encoding="utf-8")
    from edge_assist.errors import ConfigError

    with pytest.raises(ConfigError, match="needs kind"):
        # Rejected before anything is encoded.
        HazardMatcher.load(RefusingEncoder(), p)  # type: ignore[arg-type]


@pytest.mark.slow
def test_an_unfaithful_rephrasing_is_not_said(text_encoder: TextEncoder) -> None:
    base = "Check this step: it says 30 seconds, not 60 seconds."
    facts = "Finding: deviation: the step says 30 seconds; seen: 60 seconds"
    assert (
        unfaithful("The microwave time should be 30 seconds, not 60 seconds.", base, facts, text_encoder)
        == ""
    )
    assert "number" in unfaithful("Microwave it for 45 seconds instead.", base, facts, text_encoder)
    assert "one plain sentence" in unfaithful(
        "It says 30 seconds. The sentence is wrong. {", base, facts, text_encoder
    )
    assert "not faithful" in unfaithful("Great job, the sandwich looks delicious!", base, facts, text_encoder)
    assert json.loads(SHIPPED.read_text())["format"] == "edge-assist-gate/1"


def test_caption_only_baseline_gate_reads_the_caption_vector_and_nothing_else(tmp_path: Path) -> None:
    from edge_assist.reasoning.gate import ServiceModel
    from edge_assist.reasoning.gate_decider import GateDecider
    from edge_assist.tasks.findings import TrackerState

    dim = 4
    m = ServiceModel(
        [f"e{i}" for i in range(dim)],
        [],
        np.zeros(dim),
        np.ones(dim),
        np.array([4.0, 0, 0, 0]),
        0.0,
        {"quiet": 0.9, "normal": 0.7, "chatty": 0.5},
    )
    path = Gate({"ER": m}, {"baseline": "caption-only"}, inputs="caption_embedding").save(
        tmp_path / "cap.json"
    )
    g = Gate.load(path)
    assert g.inputs == "caption_embedding"
    d = GateDecider(g, None, chattiness="quiet", llm_too=False, unsure_band=0.0)
    state = TrackerState("t", "T", "1", "step", 1.0, 0.5, 0.1, (), ("1",), 3)
    speak = d.decide("s", 0.0, 10.0, state, (), np.array([1.0, 0, 0, 0], dtype=np.float32))
    silent = d.decide("s", 10.0, 20.0, state, (), np.array([-1.0, 0, 0, 0], dtype=np.float32))
    assert speak.action == "speak" and silent.action == "silent"
    bad = json.loads(path.read_text()) | {"inputs": "the weather"}
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    with pytest.raises(ModelError, match="inputs 'the weather' unknown"):
        Gate.load(tmp_path / "bad.json")
