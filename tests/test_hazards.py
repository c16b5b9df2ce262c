"""The hazard detector: the omelette stream's safety clips and its near misses, a hazard that
gets worse is said again, and its files load or fail in one line."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.errors import ConfigError
from edge_assist.events import Caption, SubType
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.api import StepContext
from edge_assist.reasoning.gate import Gate
from edge_assist.reasoning.gate_decider import GateDecider
from edge_assist.reasoning.hazard_model import MODEL
from edge_assist.reasoning.hazard_reading import LEXICON, Lexicon
from edge_assist.reasoning.hazards import CAPTIONS, HazardDetector
from edge_assist.reasoning.phrasing import Phraser
from edge_assist.reasoning.policy import InterventionPolicy
from edge_assist.runtime.steps.gate import GateStep
from edge_assist.runtime.steps.verdict import StepNotes
from edge_assist.tasks.session import Tracked
from tests.fakes import RefusingEncoder


@pytest.fixture(scope="module")
def detector(text_encoder: TextEncoder) -> HazardDetector:
    return HazardDetector.load(text_encoder)


def omelette() -> tuple[list[dict], dict[str, tuple[float, float]]]:
    lines = (CAPTIONS / "omelette.jsonl").read_text(encoding="utf-8").splitlines()[1:]
    events = json.loads((CAPTIONS / "omelette.expected.json").read_text(encoding="utf-8"))["omelette-demo"]
    return [json.loads(x) for x in lines], {e["id"]: (e["t0"], e["t1"]) for e in events}


@pytest.mark.slow
def test_omelette_safety_clips_alert_and_ordinary_use_does_not(
    detector: HazardDetector, text_encoder: TextEncoder
) -> None:
    clips, events = omelette()
    vecs = text_encoder.encode([c["text"] for c in clips])
    fired = {c["t0"]: detector.detect(c["text"], v) for c, v in zip(clips, vecs, strict=True)}
    knife, walked_out = events["b_knife_by_blade"], events["c_burner_on_high_walked_out"]
    blade = fired[knife[0]]
    assert blade is not None and blade.kind == "sharp" and "blade" in blade.say
    assert fired[walked_out[0]] is not None and fired[walked_out[0]].kind == "unattended_heat"
    safety = [
        (a, b)
        for a, b in events.values()
        if a in (knife[0], walked_out[0], events["d_pan_smoking_getting_worse"][0])
    ]
    for t0, h in fired.items():
        inside = any(a <= t0 < b for a, b in safety)
        assert (h is not None) == inside, (t0, h)
    ordinary = [
        "slices the onion with a sharp knife",
        "I slice the onion with a sharp knife, fingers curled back",
        "The person turns the burner off and slides the omelette onto a plate.",
    ]
    for text, v in zip(ordinary, text_encoder.encode(ordinary), strict=True):
        assert detector.detect(text, v) is None, text


@pytest.mark.slow
def test_dangers_already_happening_alert_and_plain_cooking_does_not(
    detector: HazardDetector, text_encoder: TextEncoder
) -> None:
    clear = [
        "The oil in the pan caught fire",
        "There is smoke coming out of the pan",
        "Water spilled all over the kitchen floor",
        "I step into the road while a car is coming",
        "I grab the hot pan handle with my bare hand",
    ]
    ordinary = [
        "I pour oil into the pan",
        "Heat the oil in a pan on medium heat",
        "I cross the road at the green light",
        "Trim the ends of the tortilla roll with the butter knife, leaving 1/2 inch margin between "
        "the last toothpick and the end of the roll",
    ]
    vecs = text_encoder.encode(clear + ordinary)
    fired = [detector.detect(t, v) for t, v in zip(clear + ordinary, vecs, strict=True)]
    assert all(h is not None for h in fired[: len(clear)]), fired
    assert all(h is None for h in fired[len(clear) :]), fired
    assert fired[0] is not None and fired[0].kind == "fire" and fired[0].say.startswith("Fire risk")


def _step(detector: HazardDetector, encoder: TextEncoder) -> GateStep:
    decider = GateDecider(Gate.load(), detector, chattiness="quiet", llm_too=False, unsure_band=0.0)
    clock = RealClock()
    policy = InterventionPolicy(Config().policy, text_encoder=encoder, clock=clock)
    return GateStep(decider, Phraser(None, encoder, clock, use_llm=False), policy)


@pytest.mark.slow
def test_a_hazard_that_gets_worse_is_said_again(detector: HazardDetector, text_encoder: TextEncoder) -> None:
    step = _step(detector, text_encoder)
    stream = [
        (0.0, "The person walks out of the kitchen; the burner is still on high under the pan."),
        (10.0, "The kitchen is empty; the pan sits over a high flame."),  # the same: held back
        (20.0, "Smoke rises from the pan and no one is in the kitchen."),  # worse: smoke
        (30.0, "The pan is smoking heavily, thick smoke billows and no one is at the stove."),  # worse again
    ]

    async def run() -> list[tuple[bool, str, str]]:
        out = []
        for i, (t0, text) in enumerate(stream):
            vec = np.asarray(text_encoder.encode([text])[0], dtype=np.float32)
            cap = Caption(t=t0 + 10, session_id="s", index=i, t0=t0, t1=t0 + 10, text=text)
            verdict = await step.decide(StepContext("s", cap), Tracked(None, vec, (), 0.0), StepNotes())
            assert verdict is not None and verdict.sub_type is SubType.SAFETY, text
            out.append((verdict.speak, verdict.suppressed_by, verdict.text))
        return out

    said = asyncio.run(run())
    assert [a for a, _, _ in said] == [True, False, True, True], said
    assert said[1][1].startswith("repeat")
    assert "worse" in said[3][2] and "worse" not in said[2][2]


def test_the_detector_files_load() -> None:
    lex = Lexicon.load()
    r = lex.read("I grab the knife by the blade")
    assert "blade" in r.sources and "contact" in r.exposures
    assert "hazard" in lex.say and json.loads(MODEL.read_text(encoding="utf-8"))["threshold"] > 0


def test_a_guard_said_not_to_be_there_guards_nothing() -> None:
    lex = Lexicon.load()
    assert "guarded" in lex.read("stepladder fully open and locked").guards
    assert not lex.read("stepladder half open, not locked, person on the third step").guards
    assert not lex.read("I'm pruning without gloves on").guards


def test_a_guard_said_absent_or_taken_away_is_an_exposure() -> None:
    lex = Lexicon.load()
    for text, guard, exposure in (
        ("he is not wearing gloves while he pours the drain cleaner", "guarded", "unprotected"),
        ("the router's guard removed, she pushes the board through", "guarded", "unprotected"),
        ("nobody is watching the toddler at the paddling pool", "present", "unattended"),
        ("the hob has not been turned off and everyone is asleep", "stopped", "active"),
    ):
        r = lex.read(text)
        assert exposure in r.exposures and guard not in r.guards, (text, r)
    assert "guarded" in lex.read("he pours the drain cleaner with gloves on").guards


def test_an_exposure_said_not_to_happen_does_not_count() -> None:
    lex = Lexicon.load()
    assert "unattended" in lex.read("she walks away from the frying pan").exposures
    assert "unattended" not in lex.read("she never walks away from the frying pan").exposures


def test_a_spoken_shortcut_is_read_like_a_written_one() -> None:
    r = Lexicon.load().read("gonna just clear the jammed shredder with my fingers while it's still running")
    assert "machine" in r.sources and {"active", "body", "hurry"} <= r.exposures, r


def test_a_captioners_framing_is_not_read_as_the_scene() -> None:
    lex = Lexicon.load()
    framed = lex.read("The frame shows a person who appears to be stacking planks in a shed.")
    assert framed == lex.read("A person stacking planks in a shed.")
    assert "pinch_point" not in framed.sources


def test_a_relation_next_to_its_source_is_read_apart_from_one_across_the_scene() -> None:
    lex = Lexicon.load()
    assert lex.read("fingers right at the spinning blade").near
    far = lex.read(
        "A knife sits on the board by the window at the far end of the long kitchen counter, and"
        " across the room a man puts his hand on the cover of a book."
    )
    assert not far.near


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("hazard_lexicon.toml", "[source.blade\n", "not a valid hazard lexicon"),
        ("hazard_lexicon.toml", '[source.blade]\nkind = "sharp"\n', "not a valid hazard lexicon"),
        ("hazard_model.json", "{", "not a valid hazard model"),
        ("hazard_model.json", '{"format": "edge-assist-hazard-model/1", "features": []}', "not a valid"),
    ],
)
def test_a_corrupt_detector_file_is_a_one_line_error(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    lexicon, model = tmp_path / "hazard_lexicon.toml", tmp_path / "hazard_model.json"
    shutil.copy(LEXICON, lexicon)
    shutil.copy(MODEL, model)
    (tmp_path / name).write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=message) as e:
        # Rejected before anything is encoded.
        HazardDetector.load(RefusingEncoder(), lexicon=lexicon, model=model)  # type: ignore[arg-type]
    assert "\n" not in str(e.value)


@pytest.mark.slow
def test_the_example_vectors_come_from_disk_at_the_next_start(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    from edge_assist.tasks.vector_file import FILE_NAME, VectorFile

    identity = text_encoder.identity  # type: ignore[attr-defined]
    first = HazardDetector.load(text_encoder, vector_file=VectorFile(tmp_path / FILE_NAME, identity))
    again_file = VectorFile(tmp_path / FILE_NAME, identity)
    again = HazardDetector.load(RefusingEncoder(), vector_file=again_file)  # type: ignore[arg-type]
    assert again_file.hits == 1 and again_file.misses == 0
    text = "I grab the knife by the blade"
    v = text_encoder.encode([text])[0]
    assert again.score(text, v) == first.score(text, v)
