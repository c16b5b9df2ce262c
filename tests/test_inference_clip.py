"""The CLIP-style ONNX pair through onnxruntime, with a tiny pair built by onnx.helper."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from edge_assist.config import Config
from edge_assist.errors import ModelError
from edge_assist.inference.base import ImageEncoder
from edge_assist.inference.clip_encoder import OnnxClipEncoder, clip_preprocess
from edge_assist.inference.loader import load_image_encoder, model_status
from edge_assist.inference.manifest import get_entry, resolve_file
from edge_assist.inference.tiny_models import write_manifest, write_tiny_clip


@pytest.fixture(scope="module")
def clip_cfg(tmp_path_factory: pytest.TempPathFactory) -> Config:
    d = tmp_path_factory.mktemp("clip")
    image, text = write_tiny_clip(d, dim=32)
    cfg = Config()
    tok = resolve_file(cfg, get_entry(cfg, "minilm-l6-int8"), "tokenizer")
    write_manifest(
        d,
        {
            "tiny-clip": {
                "role": "image-encoder",
                "image_size_px": 32,
                "files": {"image": image, "text": text, "tokenizer": tok},
            }
        },
    )
    return cfg.replace(**{"models.dir": str(d), "models.image_encoder": "tiny-clip"})


def test_vectors_share_one_dimension_and_are_normalised(clip_cfg: Config) -> None:
    enc = load_image_encoder(clip_cfg)
    assert isinstance(enc, ImageEncoder) and enc.dim == 32
    rng = np.random.default_rng(1)
    imgs = [rng.integers(0, 255, (h, w, 3), dtype=np.uint8) for h, w in ((480, 640), (100, 50), (32, 32))]
    iv = enc.encode_images(imgs)
    tv = enc.encode_texts(["a red mug", "a knife on the board", ""])
    assert iv.shape == (3, 32) and tv.shape == (3, 32)
    np.testing.assert_allclose(np.linalg.norm(iv, axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(tv, axis=1), 1, atol=1e-5)
    assert not np.allclose(iv[0], iv[1])  # the pixels matter
    assert load_image_encoder(clip_cfg) is enc


def test_padding_does_not_change_text_vectors(clip_cfg: Config) -> None:
    enc = load_image_encoder(clip_cfg)
    assert enc is not None
    both = enc.encode_texts(["mug", "a much longer description of a mug on a wooden table"])
    np.testing.assert_allclose(both[0], enc.encode_texts(["mug"])[0], atol=1e-5)


def test_preprocess_center_crops_and_normalises() -> None:
    img = np.zeros((100, 200, 3), np.uint8)
    img[:, 50:150] = (0, 0, 255)  # a red centre band, in BGR
    x = clip_preprocess([img], 32, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
    assert x.shape == (1, 3, 32, 32)
    assert x[0, 0].mean() > 0.95 and x[0, 2].mean() < 0.05  # RGB order, crop is all red
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    assert clip_preprocess([gray], 32, (0, 0, 0), (1, 1, 1)).shape == (1, 3, 32, 32)


def test_no_image_encoder_configured() -> None:
    assert load_image_encoder(Config()) is None
    row = {r.role: r for r in model_status(Config())}["image-encoder"]
    assert not row.found and "visual" in row.detail


def test_mismatched_towers_are_refused(tmp_path: Path, clip_cfg: Config) -> None:
    a_img, _ = write_tiny_clip(tmp_path / "a", dim=32)
    _, b_txt = write_tiny_clip(tmp_path / "b", dim=16)
    cfg = Config()
    tok = resolve_file(cfg, get_entry(cfg, "minilm-l6-int8"), "tokenizer")
    assert tok is not None
    with pytest.raises(ModelError, match="not one CLIP pair"):
        OnnxClipEncoder(a_img, b_txt, tok, image_size_px=32)


def test_corrupt_tower_is_model_error(tmp_path: Path) -> None:
    img, txt = write_tiny_clip(tmp_path, dim=8)
    img.write_bytes(img.read_bytes()[:100])
    cfg = Config()
    tok = resolve_file(cfg, get_entry(cfg, "minilm-l6-int8"), "tokenizer")
    assert tok is not None
    with pytest.raises(ModelError, match="corrupt or truncated"):
        OnnxClipEncoder(img, txt, tok, image_size_px=32)
