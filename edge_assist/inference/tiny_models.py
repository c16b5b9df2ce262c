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

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import onnx


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

    path = Path(path)
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
    writer.add_uint32("clip.vision.feed_forward_length", 4 * width)
    writer.add_uint32("clip.vision.projection_dim", text_embd)
    writer.add_uint32("clip.vision.block_count", layers)
    writer.add_uint32("clip.vision.attention.head_count", heads)
    writer.add_float32("clip.vision.attention.layer_norm_epsilon", 1e-5)
    writer.add_array("clip.vision.image_mean", [0.48145466, 0.4578275, 0.40821073])
    writer.add_array("clip.vision.image_std", [0.26862954, 0.26130258, 0.27577711])
    n_pos = (image_size_px // patch_px) ** 2 + 1  # patches + the class token
    for name, tensor in _mmproj_tensors(
        np.random.default_rng(seed), text_embd, patch_px, width, layers, n_pos
    ):
        writer.add_tensor(name, tensor)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def _mmproj_tensors(
    rng: np.random.Generator, text_embd: int, patch_px: int, width: int, layers: int, n_pos: int
) -> Iterator[tuple[str, np.ndarray]]:
    """The ViT's and the projector's tensors, named as clip.cpp reads them, in file order."""
    ff = 4 * width
    hidden = 2 * width

    def w(*shape: int, scale: float = 0.02) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    # numpy shapes are ggml's ne reversed: a (out, in) matrix is ne = [in, out].
    yield "v.patch_embd.weight", w(width, 3, patch_px, patch_px).astype(np.float16)
    yield "v.class_embd", w(width)
    yield "v.position_embd.weight", w(n_pos, width)
    yield "v.pre_ln.weight", np.ones(width, np.float32)
    yield "v.pre_ln.bias", np.zeros(width, np.float32)
    for i in range(layers):
        for name in ("attn_q", "attn_k", "attn_v", "attn_out"):
            yield f"v.blk.{i}.{name}.weight", w(width, width)
            yield f"v.blk.{i}.{name}.bias", np.zeros(width, np.float32)
        for name in ("ln1", "ln2"):
            yield f"v.blk.{i}.{name}.weight", np.ones(width, np.float32)
            yield f"v.blk.{i}.{name}.bias", np.zeros(width, np.float32)
        yield f"v.blk.{i}.ffn_up.weight", w(ff, width)
        yield f"v.blk.{i}.ffn_up.bias", np.zeros(ff, np.float32)
        yield f"v.blk.{i}.ffn_down.weight", w(width, ff)
        yield f"v.blk.{i}.ffn_down.bias", np.zeros(width, np.float32)
    yield "mm.0.weight", w(hidden, width)
    yield "mm.0.bias", np.zeros(hidden, np.float32)
    yield "mm.2.weight", w(text_embd, hidden)
    yield "mm.2.bias", np.zeros(text_embd, np.float32)


def write_tiny_clip(
    directory: str | Path,
    *,
    dim: int = 32,
    vocab: int = 30522,
    image_size_px: int = 32,
    patch_px: int = 8,
    seed: int = 0,
) -> tuple[Path, Path]:
    """A CLIP-shaped ONNX pair: image tower (patch conv, ReLU, mean pool, projection) and
    text tower (token embedding, masked mean, projection), both ending in `dim`."""
    import onnx
    from onnx import helper

    rng = np.random.default_rng(seed)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    image_graph = _image_tower(rng, dim, image_size_px, patch_px)
    text_graph = _text_tower(rng, dim, vocab)
    paths = []
    for graph, fname in ((image_graph, "image.onnx"), (text_graph, "text.onnx")):
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8  # readable by every onnxruntime we support
        onnx.checker.check_model(model)
        p = directory / fname
        onnx.save(model, str(p))
        paths.append(p)
    return paths[0], paths[1]


def _image_tower(rng: np.random.Generator, dim: int, image_size_px: int, patch_px: int) -> onnx.GraphProto:
    from onnx import TensorProto, helper, numpy_helper

    width = 2 * dim
    conv_w = (rng.standard_normal((width, 3, patch_px, patch_px)) * 0.1).astype(np.float32)
    img_proj = (rng.standard_normal((width, dim)) * 0.1).astype(np.float32)
    pixels: list[str | int] = ["batch", 3, image_size_px, image_size_px]
    return helper.make_graph(
        [
            helper.make_node("Conv", ["pixel_values", "conv_w"], ["patches"], strides=[patch_px, patch_px]),
            helper.make_node("Relu", ["patches"], ["act"]),
            helper.make_node("GlobalAveragePool", ["act"], ["pooled"]),
            helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
            helper.make_node("MatMul", ["flat", "img_proj"], ["image_embeds"]),
        ],
        "tiny_clip_image",
        [helper.make_tensor_value_info("pixel_values", TensorProto.FLOAT, pixels)],
        [helper.make_tensor_value_info("image_embeds", TensorProto.FLOAT, ["batch", dim])],
        [numpy_helper.from_array(conv_w, "conv_w"), numpy_helper.from_array(img_proj, "img_proj")],
    )


def _text_tower(rng: np.random.Generator, dim: int, vocab: int) -> onnx.GraphProto:
    from onnx import TensorProto, helper, numpy_helper

    width = 2 * dim
    table = (rng.standard_normal((vocab, width)) * 0.1).astype(np.float32)
    txt_proj = (rng.standard_normal((width, dim)) * 0.1).astype(np.float32)
    return helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["tok"]),
            helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["maskf", "axis2"], ["mask3"]),
            helper.make_node("Mul", ["tok", "mask3"], ["masked"]),
            helper.make_node("ReduceSum", ["masked", "axis1"], ["summed"], keepdims=0),
            helper.make_node("ReduceSum", ["mask3", "axis1"], ["count"], keepdims=0),
            helper.make_node("Max", ["count", "one"], ["count1"]),
            helper.make_node("Div", ["summed", "count1"], ["mean"]),
            helper.make_node("MatMul", ["mean", "txt_proj"], ["text_embeds"]),
        ],
        "tiny_clip_text",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "sequence"]),
        ],
        [helper.make_tensor_value_info("text_embeds", TensorProto.FLOAT, ["batch", dim])],
        [
            numpy_helper.from_array(table, "table"),
            numpy_helper.from_array(txt_proj, "txt_proj"),
            numpy_helper.from_array(np.array([1], np.int64), "axis1"),
            numpy_helper.from_array(np.array([2], np.int64), "axis2"),
            numpy_helper.from_array(np.array([1.0], np.float32), "one"),
        ],
    )


def write_manifest(directory: str | Path, entries: dict[str, dict[str, object]]) -> Path:
    """A models-dir manifest.toml: {name: {"role": ..., "files": {kind: path}, option: value}}."""
    lines: list[str] = []
    for name, body in entries.items():
        lines.append(f"[model.{name}]")
        for key, value in body.items():
            if key == "files":
                continue
            lines.append(f"{key} = {_toml(value)}")
        files = body.get("files")
        assert isinstance(files, dict)
        for kind, path in files.items():
            lines += [
                f"[[model.{name}.files]]",
                f'kind = "{kind}"',
                f'name = "{Path(path).name}"',
                f"path = {_toml(str(path))}",
            ]
        lines.append("")
    p = Path(directory) / "manifest.toml"
    p.write_text("\n".join(lines), encoding="utf-8")
    return p


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    s = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{s}"'
