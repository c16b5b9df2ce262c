"""Tiny generated models for tests and benchmarks, where no real one ships offline.

- `write_tiny_mmproj`: a LLaVA-style vision projector GGUF (a small CLIP ViT plus the
  two-layer "mlp" projector) with random weights, sized to a given language model's
  embedding width, so llama.cpp's real multimodal path (mtmd/clip.cpp) runs end to end.
- `write_tiny_clip`: a CLIP-shaped ONNX pair (image tower, text tower) built with
  `onnx.helper`, with the input/output names the real exported towers use.
- `write_manifest`: a models-dir manifest that points the loader at such files.

The weights are random: outputs are real computations, not meaningful captions or
similarities. Needs the dev extra (`gguf`, `onnx`); nothing in the product imports this.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_tiny_mmproj(
    path: str | Path,
    *,
    text_embd: int = 576,
    image_size_px: int = 32,
    patch_px: int = 8,
    width: int = 64,
    layers: int = 2,
    heads: int = 4,
    seed: int = 0,
) -> Path:
    """A random-weight LLaVA-1.5-style mmproj GGUF whose output width is `text_embd`."""
    import gguf

    rng = np.random.default_rng(seed)
    path = Path(path)
    n_pos = (image_size_px // patch_px) ** 2 + 1  # patches + the class token
    ff = 4 * width
    hidden = 2 * width

    def w(*shape: int, scale: float = 0.02) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    writer = gguf.GGUFWriter(str(path), "clip")
    writer.add_string("general.name", "tiny-llava-mmproj (random weights, tests only)")
    writer.add_bool("clip.has_vision_encoder", True)
    writer.add_bool("clip.has_text_encoder", False)
    writer.add_bool("clip.has_llava_projector", True)
    writer.add_string("clip.projector_type", "mlp")
    writer.add_bool("clip.use_gelu", True)
    writer.add_uint32("clip.vision.image_size", image_size_px)
    writer.add_uint32("clip.vision.patch_size", patch_px)
    writer.add_uint32("clip.vision.embedding_length", width)
    writer.add_uint32("clip.vision.feed_forward_length", ff)
    writer.add_uint32("clip.vision.projection_dim", text_embd)
    writer.add_uint32("clip.vision.block_count", layers)
    writer.add_uint32("clip.vision.attention.head_count", heads)
    writer.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-5)
    writer.add_array("clip.vision.image_mean", [0.48145466, 0.4578275, 0.40821073])
    writer.add_array("clip.vision.image_std", [0.26862954, 0.26130258, 0.27577711])

    # numpy shapes are ggml's ne reversed: a (out, in) matrix is ne = [in, out].
    writer.add_tensor("v.patch_embd.weight", w(width, 3, patch_px, patch_px).astype(np.float16))
    writer.add_tensor("v.class_embd", w(width))
    writer.add_tensor("v.position_embd.weight", w(n_pos, width))
    writer.add_tensor("v.pre_ln.weight", np.ones(width, np.float32))
    writer.add_tensor("v.pre_ln.bias", np.zeros(width, np.float32))
    for i in range(layers):
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            writer.add_tensor(f"v.blk.{i}.{name}.weight", w(width, width))
            writer.add_tensor(f"v.blk.{i}.{name}.bias", np.zeros(width, np.float32))
        for name in ("ln1", "ln2"):
            writer.add_tensor(f"v.blk.{i}.{name}.weight", np.ones(width, np.float32))
            writer.add_tensor(f"v.blk.{i}.{name}.bias", np.zeros(width, np.float32))
        writer.add_tensor(f"v.blk.{i}.ffn_up.weight", w(ff, width))
        writer.add_tensor(f"v.blk.{i}.ffn_up.bias", np.zeros(ff, np.float32))
        writer.add_tensor(f"v.blk.{i}.ffn_down.weight", w(width, ff))
        writer.add_tensor(f"v.blk.{i}.ffn_down.bias", np.zeros(width, np.float32))
    writer.add_tensor("mm.0.weight", w(hidden, width))
    writer.add_tensor("mm.0.bias", np.zeros(hidden, np.float32))
    writer.add_tensor("mm.2.weight", w(text_embd, hidden))
    writer.add_tensor("mm.2.bias", np.zeros(text_embd, np.float32))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
