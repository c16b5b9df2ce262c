"""The real llama.cpp multimodal path (mtmd) with SmolLM2 and a generated LLaVA-style
projector (random weights, output width 576 = SmolLM2's embedding width)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from edge_assist.config import CaptionerConfig, Config
from edge_assist.errors import ModelError
from edge_assist.events import Clip, Keyframe
from edge_assist.inference.base import VLM, GenerationCancelled, StopFlag
from edge_assist.inference.llama_vlm import LlamaVLM, image_data_uri, resize_longest
from edge_assist.inference.loader import load_vlm, model_status
from edge_assist.inference.manifest import get_entry, resolve_file
from edge_assist.inference.tiny_models import write_tiny_mmproj
from edge_assist.perception.vlm_captioner import VLMCaptioner, pick_keyframes

pytestmark = pytest.mark.slow

PATCHES = (32 // 8) ** 2  # image tokens per image of the tiny projector


@pytest.fixture(scope="module")
def smollm_path() -> Path:
    cfg = Config()
    p = resolve_file(cfg, get_entry(cfg, "smollm2-135m-q4"), "model")
    assert p is not None
    return p


@pytest.fixture(scope="module")
def vlm_dir(tiny_vlm_dir: Path) -> Path:
    return tiny_vlm_dir


@pytest.fixture(scope="module")
def vlm(vlm_dir: Path) -> VLM:
    cfg = Config().replace(**{"models.dir": str(vlm_dir), "models.vlm": "tiny-vlm"})
    v = load_vlm(cfg)
    assert v is not None
    return v


def scene(color: tuple[int, int, int], w: int = 640, h: int = 480) -> np.ndarray:
    img = np.full((h, w, 3), 200, np.uint8)
    cv2.rectangle(img, (w // 4, h // 4), (3 * w // 4, 3 * h // 4), color, -1)
    cv2.putText(img, "MUG", (w // 3, h // 2), cv2.FONT_HERSHEY_SIMPLEX, 2, (0, 0, 0), 3)
    return img


def test_describe_one_and_several_images(vlm: VLM) -> None:
    assert isinstance(vlm, VLM) and isinstance(vlm, LlamaVLM)
    one = vlm.describe([scene((0, 0, 255))], "Describe the image.", max_tokens=16)
    assert isinstance(one, str) and one.strip()
    used_one = vlm._llm.context_used()
    two = vlm.describe([scene((0, 0, 255)), scene((255, 0, 0))], "Describe the image.", max_tokens=16)
    assert two.strip()
    # Every image really went through the projector: its tokens are in the context.
    used_two = vlm._llm.context_used()
    assert used_two - used_one >= PATCHES - 16  # answers may differ in length by <= 16 tokens


def test_same_images_same_caption(vlm: VLM) -> None:
    img = scene((0, 255, 0))
    assert vlm.describe([img], "What is this?", max_tokens=12) == vlm.describe(
        [img], "What is this?", max_tokens=12
    )


def test_stop_flag_cancels_vlm(vlm: VLM) -> None:
    stop = StopFlag()
    stop.set()
    with pytest.raises(GenerationCancelled):
        vlm.describe([scene((0, 0, 0))], "Describe.", stop=stop)


def test_no_image_is_model_error(vlm: VLM) -> None:
    with pytest.raises(ModelError, match="at least one image"):
        vlm.describe([], "Describe.")


def test_captioner_uses_config(vlm: VLM) -> None:
    cfg = CaptionerConfig(max_images=2, image_size_px=96, max_tokens=12, prompt="Say what you see.")
    kfs = tuple(Keyframe(stream_t=float(i), image=scene((40 * i, 0, 0)), reason="even") for i in range(5))
    clip = Clip(t=10.0, session_id="s", index=0, t0=0.0, t1=10.0, keyframes=kfs, frame_count=50)
    cap = VLMCaptioner(vlm, cfg)
    assert cap.name == "tiny-vlm"
    images = cap.images_for(clip)
    assert len(images) == 2 and max(images[0].shape[:2]) == 96
    text = cap.caption(clip)
    assert text and "\n" not in text and cap.last_image_count == 2


def test_pick_keyframes_spreads_evenly() -> None:
    kfs = [
        Keyframe(stream_t=float(t), image=np.zeros((4, 4, 3), np.uint8), reason="even")
        for t in (4, 0, 2, 1, 3)
    ]
    assert [k.stream_t for k in pick_keyframes(kfs, 3)] == [0.0, 2.0, 4.0]
    assert [k.stream_t for k in pick_keyframes(kfs, 1)] == [2.0]


def test_image_encoding() -> None:
    img = scene((0, 0, 255), 1000, 500)
    assert resize_longest(img, 100).shape == (50, 100, 3)
    assert resize_longest(img, 5000) is img  # never enlarged
    uri = image_data_uri(img, 100, "png")
    assert uri.startswith("data:image/png;base64,")
    with pytest.raises(ModelError):
        image_data_uri(np.zeros((4, 4, 3), np.float32))


def test_projector_for_another_width_is_model_error(tmp_path: Path, smollm_path: Path) -> None:
    wrong = write_tiny_mmproj(tmp_path / "wrong.gguf", text_embd=320)
    with pytest.raises(ModelError, match="vision projector"):
        LlamaVLM(smollm_path, wrong)


def test_truncated_projector_is_model_error(tmp_path: Path, vlm_dir: Path, smollm_path: Path) -> None:
    bad = tmp_path / "cut.gguf"
    bad.write_bytes((vlm_dir / "tiny-mmproj.gguf").read_bytes()[:4000])
    with pytest.raises(ModelError) as e:
        LlamaVLM(smollm_path, bad)
    assert "\n" not in str(e.value)


def test_doctor_rows(vlm_dir: Path) -> None:
    rows = {r.role: r for r in model_status(Config())}
    assert rows["llm"].found and rows["text-encoder"].found
    assert not rows["vlm"].found and "caption stream" in rows["vlm"].detail
    cfg = Config().replace(**{"models.dir": str(vlm_dir), "models.vlm": "tiny-vlm"})
    assert {r.role: r for r in model_status(cfg)}["vlm"].found
