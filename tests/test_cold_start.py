"""A fast start: step and hazard vectors kept on disk (tasks/vector_file.py), the LLM loaded on
first use, and a first decision that needs neither llama.cpp nor OpenCV."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.errors import ModelError
from edge_assist.inference.base import TextEncoder
from edge_assist.inference.loader import lazy_llm
from edge_assist.reasoning.hazard_phrases import HazardMatcher
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.session import TaskSession
from edge_assist.tasks.vector_file import FILE_NAME, VectorFile

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "edge_assist" / "data" / "demo" / "1_34_microwaveeggsandwich.jsonl"
TASK = """[task]
name = "shelf"
title = "Build the shelf"

[[step]]
id = "a"
text = "Lay out the panels and the screws"

[[step]]
id = "b"
text = "Screw the side panels to the base"
after = ["a"]
"""


class Counted:
    """The real encoder, counting the texts it is asked to encode."""

    def __init__(self, encoder: TextEncoder, identity: str = "") -> None:
        self.encoder = encoder
        self.name, self.dim = encoder.name, encoder.dim
        self.identity = identity or encoder.identity  # type: ignore[attr-defined]
        self.texts: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += list(texts)
        return self.encoder.encode(texts)


def _warm(
    library: TaskLibrary, encoder: TextEncoder, path: Path, task: str, identity: str = ""
) -> tuple[TaskSession, Counted]:
    """A start: a new session and vector file, the named task's steps made ready."""
    counted = Counted(encoder, identity)
    session = TaskSession(library, counted, RealClock(), vector_path=path)
    session.warm(task)
    return session, counted


def _user_library(d: Path, text: str = TASK) -> TaskLibrary:
    d.mkdir(parents=True, exist_ok=True)
    (d / "shelf.toml").write_text(text, encoding="utf-8")
    return TaskLibrary.load([d])


@pytest.mark.slow
def test_step_vectors_come_from_disk_at_the_next_start(tmp_path: Path, text_encoder: TextEncoder) -> None:
    lib = TaskLibrary.load()
    path = tmp_path / FILE_NAME
    first, c1 = _warm(lib, text_encoder, path, "microwaveeggsandwich")
    steps = [s.text for s in lib.get("microwaveeggsandwich").steps]  # type: ignore[union-attr]
    assert sorted(c1.texts) == sorted(set(steps)) and path.is_file()
    again, c2 = _warm(lib, text_encoder, path, "microwaveeggsandwich")
    assert c2.texts == []  # a hit: no encoder call before the first caption
    assert np.array_equal(again.vectors.get(steps), first.vectors.get(steps))
    assert np.array_equal(again.vectors.get(steps), text_encoder.encode(steps))


@pytest.mark.slow
def test_a_changed_task_file_is_a_miss(tmp_path: Path, text_encoder: TextEncoder) -> None:
    path = tmp_path / FILE_NAME
    _warm(_user_library(tmp_path / "tasks"), text_encoder, path, "shelf")
    changed = _user_library(tmp_path / "tasks", TASK.replace("the side panels", "both sides"))
    session, counted = _warm(changed, text_encoder, path, "shelf")
    assert "Screw both sides to the base" in counted.texts
    assert session.vector_file is not None and session.vector_file.misses == 1
    # The same texts from a file that changed elsewhere are still encoded: the key is the file.
    commented = _user_library(
        tmp_path / "tasks", "# a note\n" + TASK.replace("the side panels", "both sides")
    )
    _, counted = _warm(commented, text_encoder, path, "shelf")
    assert len(counted.texts) == 2
    _, counted = _warm(commented, text_encoder, path, "shelf")
    assert counted.texts == []


@pytest.mark.slow
def test_another_encoder_is_a_miss(tmp_path: Path, text_encoder: TextEncoder) -> None:
    lib = _user_library(tmp_path / "tasks")
    path = tmp_path / FILE_NAME
    _warm(lib, text_encoder, path, "shelf")
    _, counted = _warm(lib, text_encoder, path, "shelf", identity="another model|384")
    assert len(counted.texts) == 2
    # The identity names the model file: a copy elsewhere is another model to the cache.
    from edge_assist.inference.text_encoder import encoder_identity

    model = tmp_path / "model.onnx"
    model.write_bytes(b"not read")
    tok = tmp_path / "tokenizer.json"
    tok.write_bytes(b"{}")
    assert encoder_identity("minilm", model, tok) != text_encoder.identity  # type: ignore[attr-defined]
    assert encoder_identity("minilm", model, tok, max_length=128) != encoder_identity("minilm", model, tok)


@pytest.mark.slow
@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b"garbage",
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b[:-7] + bytes([b[-7] ^ 0x40]) + b[-6:],  # one flipped bit in a vector
        lambda b: b.replace(b'"dim": 384', b'"dim": 385'),
        lambda b: b"",
    ],
    ids=["garbage", "truncated", "flipped-bit", "wrong-shape", "empty"],
)
def test_a_corrupt_file_is_rebuilt_never_trusted(
    tmp_path: Path,
    text_encoder: TextEncoder,
    damage: Callable[[bytes], bytes],
    caplog: pytest.LogCaptureFixture,
) -> None:
    lib = _user_library(tmp_path / "tasks")
    path = tmp_path / FILE_NAME
    first, _ = _warm(lib, text_encoder, path, "shelf")
    path.write_bytes(damage(path.read_bytes()))
    with caplog.at_level(logging.WARNING):
        session, counted = _warm(lib, text_encoder, path, "shelf")
    assert len(counted.texts) == 2
    assert "rebuilt" in caplog.text
    steps = [s.text for s in lib.get("shelf").steps]  # type: ignore[union-attr]
    assert np.array_equal(session.vectors.get(steps), first.vectors.get(steps))
    _, counted = _warm(lib, text_encoder, path, "shelf")
    assert counted.texts == []  # rewritten whole


@pytest.mark.slow
def test_a_cache_that_cannot_be_written_costs_time_not_the_start(
    tmp_path: Path, text_encoder: TextEncoder, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    with caplog.at_level(logging.WARNING):
        session, counted = _warm(
            _user_library(tmp_path / "tasks"), text_encoder, blocked / FILE_NAME, "shelf"
        )
    assert len(counted.texts) == 2 and "cannot be written" in caplog.text
    assert session.vectors.get(["Screw the side panels to the base"]).shape == (1, text_encoder.dim)


@pytest.mark.slow
def test_hazard_vectors_come_from_disk(tmp_path: Path, text_encoder: TextEncoder) -> None:
    kept = VectorFile(tmp_path / FILE_NAME, text_encoder.identity)  # type: ignore[attr-defined]
    first = HazardMatcher.load(text_encoder, vector_file=kept)
    again_file = VectorFile(tmp_path / FILE_NAME, text_encoder.identity)  # type: ignore[attr-defined]
    again = HazardMatcher.load(text_encoder, vector_file=again_file)
    assert again_file.hits == 2 and again_file.misses == 0
    plain = HazardMatcher.load(text_encoder)
    v = text_encoder.encode(["my fingers are right in front of the blade"])[0]
    assert again.cosine(v) == first.cosine(v) == plain.cosine(v)


def test_a_missing_or_broken_llm_is_still_reported_at_start(tmp_path: Path) -> None:
    d = tmp_path / "models"
    d.mkdir()
    (d / "manifest.toml").write_text(
        '[model.tiny-llm]\nrole = "llm"\nlicence = "test"\n'
        '[[model.tiny-llm.files]]\nkind = "model"\nname = "tiny.gguf"\npath = "tiny.gguf"\n'
    )
    cfg = Config().replace(**{"models.dir": str(d), "models.llm": "tiny-llm"})
    with pytest.raises(ModelError, match="not found"):
        lazy_llm(cfg)
    (d / "tiny.gguf").write_bytes(b"GGU")
    with pytest.raises(ModelError, match="not a GGUF file"):
        lazy_llm(cfg)


@pytest.mark.slow
def test_a_lazy_llm_answers_as_the_loaded_one(llm: object) -> None:
    lazy = lazy_llm(Config())
    assert not lazy.loaded and lazy.name == llm.name  # type: ignore[attr-defined]
    msgs = [{"role": "user", "content": "Say hello."}]
    assert lazy.chat(msgs, max_tokens=8) == llm.chat(msgs, max_tokens=8)  # type: ignore[attr-defined]
    assert lazy.loaded and lazy.model() is llm  # type: ignore[attr-defined]


_CHILD = """
import json, sys
from edge_assist.cli import main
code = main(["replay", sys.argv[1], "--no-progress", "--set", "general.data_dir=" + sys.argv[2]])
print(json.dumps({"exit": code, "loaded": sorted(m for m in ("llama_cpp", "cv2") if m in sys.modules)}))
"""


@pytest.mark.slow
def test_a_one_caption_start_decides_without_the_llm_or_opencv(tmp_path: Path) -> None:
    stream = tmp_path / "one.jsonl"
    stream.write_text("".join(DEMO.read_text(encoding="utf-8").splitlines(keepends=True)[:2]))
    for run in ("cold", "warm"):
        data = tmp_path / run
        if run == "warm":
            data.mkdir()
            (data / FILE_NAME).write_bytes((tmp_path / "cold" / FILE_NAME).read_bytes())
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, str(stream), str(data)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout
        child = json.loads(out.strip().splitlines()[-1])
        assert child == {"exit": 0, "loaded": []}
        decisions = [json.loads(x) for x in (data / "decisions.jsonl").read_text().splitlines()]
        # The gate decides (no model call): the first caption already shows the skipped spray.
        [first] = [d for d in decisions if d["type"] == "decision"]
        assert first["reason"].startswith("gate:") and "cooking spray" in first["text"]
        assert (data / FILE_NAME).is_file()
    cold, warm = (
        [json.loads(x) for x in (tmp_path / r / "decisions.jsonl").read_text().splitlines()][0]
        for r in ("cold", "warm")
    )
    assert {k: v for k, v in cold.items() if k not in ("latency_s", "timings_s")} == {
        k: v for k, v in warm.items() if k not in ("latency_s", "timings_s")
    }


def test_eval_command_names_the_dataset_the_evaluation_uses() -> None:
    from edge_assist.commands import eval as eval_cmd
    from edge_assist.evaluation.captaincook import DEFAULT_DATASET

    assert eval_cmd.DEFAULT_DATASET == DEFAULT_DATASET
