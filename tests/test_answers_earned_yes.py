"""A Yes, and a time, must be earned as a "No" is: the thing asked about has to be named by the
moment that answers, or somewhere in memory in other words. "Did any tomatoes go in the sauce?" is
not answered Yes by "adds soy sauce to the vegetables" because "sauce" and "add" are close.

The captions are 21 clips of an Ego4D Goal-Step video as the project's builder captions them
(Ego4D Goal-Step, Song et al., NeurIPS 2023, MIT License), from 10:00 on, re-timed from 0.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clip_level import ask_recording as _ask

CAPTIONS = [
    "The person is adding vegetables in the pan, then is washing the wooden spoon.",
    "The person is washing the wooden spoon, then is stirring the sauce.",
    "The person is stirring the sauce.",
    "The person is stirring the sauce, then is stirring the pasta.",
    "The person is stirring the sauce.",
    "The person is stirring the sauce, then is adding green beans to the sauce.",
    "The person is adding green beans to the sauce.",
    "The person is adding green beans to the sauce.",
    "The person is adding green beans to the sauce.",
    "The person is adding green beans to the sauce, then is adding ingredients to the sauce.",
    "The person adds table salt to the vegetables.",
    "The person stirs the vegetables in the pan.",
    "The person stirs the vegetables in the pan.",
    "The person stirs the vegetables in the pan, then adds soy sauce to the vegetables.",
    "The person adds soy sauce to the vegetables, stirs the vegetables in the pan, "
    "then adjusts the heat on the pan.",
    "The person stirs the vegetables in the pan.",
    "The person is washing the knife.",
    "The person is washing the chopping board.",
    "The person is washing the chopping board.",
    "The person is washing the chopping board, then is disposing remnants in the trash.",
    "The person is disposing remnants in the trash.",
]


@pytest.fixture(scope="module")
def stream(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("earned") / "sauce.jsonl"
    meta = {"session_id": "goalstep-e8657b65", "recording": "e8657b65", "credit": "Ego4D Goal-Step, MIT"}
    rows = [{"meta": meta}] + [
        {"t0": 10.0 * i, "t1": 10.0 * i + 10, "text": t} for i, t in enumerate(CAPTIONS)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize(
    ("question", "said"),
    [
        # the tomatoes are named nowhere: the sauce the soy sauce shares a word with is no Yes
        ("did any tomatoes go in the sauce?", "No: "),
        ("when did I add the tomatoes?", "I don't remember"),
        # the thing named by the moment: a Yes as before
        # the first clip that tells it: "..., then adds soy sauce to the vegetables"
        ("did I add soy sauce to the vegetables?", "Yes. At 2:10 you stirred the vegetables in the pan"),
        ("did I salt the veggies?", "Yes. At 1:40 you added table salt to the vegetables"),
    ],
)
def test_a_yes_names_the_thing_asked_about(
    stream: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], question: str, said: str
) -> None:
    answer = _ask(stream, tmp_path, question, capsys)
    assert answer.startswith(said), answer
