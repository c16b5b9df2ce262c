"""all-MiniLM-L6-v2 int8 through onnxruntime: shape, norm, batching, ranking, bad files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from edge_assist.config import Config
from edge_assist.errors import ModelError
from edge_assist.inference.base import TextEncoder
from edge_assist.inference.loader import load_text_encoder, require_dim
from edge_assist.inference.text_encoder import OnnxTextEncoder

pytestmark = pytest.mark.slow


def test_shape_and_norm(text_encoder: TextEncoder) -> None:
    assert isinstance(text_encoder, TextEncoder)
    assert text_encoder.dim == 384
    v = text_encoder.encode(["hello world", "a much longer sentence about cooking pasta in a pot"])
    assert v.shape == (2, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)


def test_ranks_paraphrase_above_unrelated(text_encoder: TextEncoder) -> None:
    q, para, other = text_encoder.encode(
        ["a mug of coffee on a desk", "a cup of coffee on a table", "a bicycle"]
    )
    assert float(q @ para) > float(q @ other) + 0.2


def test_batching_and_padding_do_not_change_vectors(text_encoder: TextEncoder) -> None:
    texts = [f"the wearer picks up item number {i}" + " and more" * (i % 7) for i in range(70)]
    together = text_encoder.encode(texts)
    alone = np.stack([text_encoder.encode([t])[0] for t in texts[:5]])
    np.testing.assert_allclose(together[:5], alone, atol=1e-4)
    assert text_encoder.encode([]).shape == (0, 384)


def test_loaded_once(text_encoder: TextEncoder) -> None:
    assert load_text_encoder(Config()) is text_encoder


def test_dimension_mismatch_is_model_error(text_encoder: TextEncoder) -> None:
    require_dim(text_encoder, 384, "memory store")
    with pytest.raises(ModelError, match="768-d"):
        require_dim(text_encoder, 768, "memory store")


def test_truncated_onnx_is_one_line_model_error(tmp_path: Path, text_encoder: TextEncoder) -> None:
    from edge_assist.inference.manifest import get_entry, resolve_file

    cfg = Config()
    entry = get_entry(cfg, "minilm-l6-int8")
    model, tok = resolve_file(cfg, entry, "model"), resolve_file(cfg, entry, "tokenizer")
    assert model is not None and tok is not None
    bad = tmp_path / "model.onnx"
    bad.write_bytes(model.read_bytes()[:500_000])
    with pytest.raises(ModelError) as e:
        OnnxTextEncoder(bad, tok)
    assert "\n" not in str(e.value) and "corrupt or truncated" in str(e.value)


def test_missing_model_names_the_fix(tmp_path: Path) -> None:
    (tmp_path / "manifest.toml").write_text(
        '[model.ghost]\nrole = "text-encoder"\n'
        '[[model.ghost.files]]\nkind = "model"\nname = "m.onnx"\nurl = "https://example.invalid/m.onnx"\n'
        '[[model.ghost.files]]\nkind = "tokenizer"\nname = "t.json"\nurl = "https://example.invalid/t.json"\n'
    )
    cfg = Config().replace(**{"models.dir": str(tmp_path), "models.text_encoder": "ghost"})
    with pytest.raises(ModelError, match="edge-assist models pull ghost"):
        load_text_encoder(cfg)
