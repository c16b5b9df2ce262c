"""The visual archive: keyframe JPEGs and their vectors from a real ONNX image encoder.

The encoder is the tiny CLIP-style ONNX pair the inference package generates with
onnx.helper, run by onnxruntime: real inference, untrained weights, which is enough to
check storage, causal search, retention and deletion.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from edge_assist.config import Config
from edge_assist.errors import ModelError
from edge_assist.events import Caption, Keyframe
from edge_assist.inference.base import ImageEncoder, TextEncoder
from edge_assist.inference.loader import load_image_encoder
from edge_assist.inference.manifest import get_entry, resolve_file
from edge_assist.inference.tiny_models import write_manifest, write_tiny_clip
from edge_assist.memory.memory import Memory
from tests.fakes import ManualWall
from tests.test_memory_streams import SHORT, memory_config, stream

pytestmark = pytest.mark.slow


def _clip_models(d: Path, dim: int) -> Config:
    image, text = write_tiny_clip(d, dim=dim)
    cfg = Config()
    tok = resolve_file(cfg, get_entry(cfg, "minilm-l6-int8"), "tokenizer")
    write_manifest(
        d,
        {
            f"tiny-clip-{dim}": {
                "role": "image-encoder",
                "image_size_px": 32,
                "files": {"image": image, "text": text, "tokenizer": tok},
            }
        },
    )
    return cfg.replace(**{"models.dir": str(d), "models.image_encoder": f"tiny-clip-{dim}"})


@pytest.fixture(scope="module")
def image_encoder(tmp_path_factory: pytest.TempPathFactory) -> ImageEncoder:
    enc = load_image_encoder(_clip_models(tmp_path_factory.mktemp("clip32"), 32))
    assert enc is not None
    return enc


def _scene(seed: int) -> np.ndarray:
    """A drawn kitchen-ish scene: each seed a different layout of shapes and colours."""
    rng = np.random.default_rng(seed)
    img = np.full((96, 128, 3), rng.integers(0, 255, 3), np.uint8)
    for _ in range(6):
        c = tuple(int(x) for x in rng.integers(0, 255, 3))
        p = tuple(int(x) for x in rng.integers(0, 96, 2))
        cv2.circle(img, p, int(rng.integers(6, 30)), c, -1)
        cv2.rectangle(
            img,
            tuple(int(x) for x in rng.integers(0, 128, 2)),
            tuple(int(x) for x in rng.integers(0, 128, 2)),
            c,
            3,
        )
    return img


def _with_keyframes(c: Caption) -> Caption:
    kfs = tuple(
        Keyframe(stream_t=c.t0 + k * (c.t1 - c.t0) / 2, image=_scene(c.index * 10 + k), reason="even")
        for k in range(2)
    )
    return Caption(
        t=c.t, session_id=c.session_id, index=c.index, t0=c.t0, t1=c.t1, text=c.text, keyframes=kfs
    )


def test_keyframes_archived_searched_causally_and_forgotten(
    tmp_path: Path, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> None:
    caps = [_with_keyframes(c) for c in stream(SHORT)[:6]]
    cfg = memory_config(tmp_path, **{"memory.extract_entities": False})
    wall = ManualWall()
    with Memory.open(cfg, None, text_encoder, image_encoder, wall=wall) as mem:
        for c in caps[:3]:
            mem.store_caption(c)
        cutoff = wall.cutoff()
        for c in caps[3:]:
            mem.store_caption(c)
        st = mem.stats()
        assert st["keyframes"]["count"] == 12 and st["keyframes"]["files"] == 12
        assert st["meta"]["image_encoder"] == "tiny-clip-32" and st["meta"]["image_dim"] == "32"
        # The stored JPEG comes back close to the frame it was made from.
        [img, _] = mem.keyframe_images(caps[4].session_id, 4)
        assert img.shape == (96, 128, 3)
        assert np.abs(img.astype(int) - caps[4].keyframes[0].image.astype(int)).mean() < 12
        q = image_encoder.encode_images([caps[4].keyframes[1].image])[0]
        top = mem.search_keyframes(q, k=3, before_t=1e9)[0]
        assert (top.clip_index, top.score) == (4, pytest.approx(1.0, abs=1e-4))
        assert top.path.endswith("_1.jpg") and Path(top.path).exists()
        early = mem.search_keyframes(q, k=20, before_t=caps[3].t1)
        assert early and all(h.clip_index <= 3 for h in early)
        res = mem.forget_before(cutoff)
        assert res == {"clips": 3, "keyframe_files": 6}
        assert {h.clip_index for h in mem.search_keyframes(q, k=20, before_t=1e9)} == {3, 4, 5}
        assert len(list(mem.paths.keyframes.rglob("*.jpg"))) == 6


def test_no_retention_keeps_vectors_not_files_and_other_encoder_is_refused(
    tmp_path: Path, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> None:
    cfg = memory_config(tmp_path, **{"memory.extract_entities": False, "memory.keyframe_retention_days": 0})
    c = _with_keyframes(stream(SHORT)[0])
    with Memory.open(cfg, None, text_encoder, image_encoder) as mem:
        mem.store_caption(c)
        assert mem.keyframe_images(c.session_id, 0) == []
        hit = mem.search_keyframes(image_encoder.encode_images([c.keyframes[0].image])[0], k=1, before_t=1e9)
        assert hit[0].clip_index == 0 and hit[0].path == ""
    other = load_image_encoder(_clip_models(tmp_path / "clip16", 16))
    assert other is not None
    with pytest.raises(ModelError, match="tiny-clip-32 \\(32-d\\).*tiny-clip-16 \\(16-d\\)"):
        Memory.open(cfg, None, text_encoder, other)
