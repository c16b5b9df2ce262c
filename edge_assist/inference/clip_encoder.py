"""The CLIP-style dual encoder: an image tower and a text tower exported to ONNX, sharing
one embedding space, so keyframes and visual text queries compare by dot product.

Owns CLIP preprocessing (BGR -> RGB, shortest side to the input size with bicubic
resampling, centre crop, scale to [0, 1], per-channel mean/std, NCHW), tokenisation with
`tokenizers` (truncated and, for fixed-length towers, padded to the context length), and
L2 normalisation. Works with the usual exports (inputs `pixel_values` / `input_ids` and
optional `attention_mask`; outputs `image_embeds` / `text_embeds` or the first 2-D one).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from edge_assist.errors import ModelError
from edge_assist.inference.onnx_session import open_session
from edge_assist.inference.text_encoder import load_tokenizer

_PAD_TOKENS = ("<|endoftext|>", "[PAD]", "<pad>")


def clip_preprocess(
    images: Sequence[np.ndarray], size_px: int, mean: Sequence[float], std: Sequence[float]
) -> np.ndarray:
    """(N, 3, size, size) float32 from BGR uint8 images, as CLIP was trained."""
    out = np.empty((len(images), 3, size_px, size_px), dtype=np.float32)
    m = np.asarray(mean, dtype=np.float32).reshape(1, 1, 3)
    s = np.asarray(std, dtype=np.float32).reshape(1, 1, 3)
    for i, img in enumerate(images):
        if (
            not isinstance(img, np.ndarray)
            or img.dtype != np.uint8
            or img.ndim not in (2, 3)
            or img.size == 0
        ):
            raise ModelError("an image for the image encoder must be a non-empty uint8 BGR array")
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        rgb = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
        h, w = rgb.shape[:2]
        scale = size_px / min(h, w)
        nh, nw = max(size_px, round(h * scale)), max(size_px, round(w * scale))
        rgb = cv2.resize(rgb, (nw, nh), interpolation=cv2.INTER_CUBIC)
        top, left = (nh - size_px) // 2, (nw - size_px) // 2
        crop = rgb[top : top + size_px, left : left + size_px].astype(np.float32) / 255.0
        out[i] = ((crop - m) / s).transpose(2, 0, 1)
    return out


def _l2(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float32)
    return x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)


def _embedding_output(session: Any, preferred: str) -> str:
    outs = session.get_outputs()
    for o in outs:
        if o.name == preferred:
            return str(o.name)
    for o in outs:
        if o.shape is not None and len(o.shape) == 2:
            return str(o.name)
    return str(outs[0].name)


class OnnxClipEncoder:
    """ImageEncoder protocol: encode_images and encode_texts into one space."""

    def __init__(
        self,
        image_model: str | Path,
        text_model: str | Path,
        tokenizer: str | Path,
        *,
        name: str = "",
        image_size_px: int = 224,
        mean: Sequence[float] = (0.48145466, 0.4578275, 0.40821073),
        std: Sequence[float] = (0.26862954, 0.26130258, 0.27577711),
        context_length: int = 77,
        batch_size: int = 32,
        threads: int = 0,
        fix_hint: str = "re-download it or fix [models] in the config",
    ) -> None:
        self.name = name or Path(image_model).stem
        self.image_size_px = image_size_px
        self.mean, self.std = tuple(mean), tuple(std)
        self.batch_size = batch_size
        self._image = open_session(Path(image_model), threads, fix_hint)
        self._text = open_session(Path(text_model), threads, fix_hint)
        self._pixel_input = self._image.get_inputs()[0].name
        self._image_out = _embedding_output(self._image, "image_embeds")
        self._text_out = _embedding_output(self._text, "text_embeds")
        text_inputs = {i.name: i for i in self._text.get_inputs()}
        if "input_ids" not in text_inputs:
            raise ModelError(f"{text_model} has no input_ids input; it is not a CLIP text tower")
        self._text_has_mask = "attention_mask" in text_inputs
        seq = text_inputs["input_ids"].shape[-1] if text_inputs["input_ids"].shape else None
        self._fixed_len = seq if isinstance(seq, int) else None
        self._tok = load_tokenizer(Path(tokenizer), self._fixed_len or context_length, fix_hint)
        pad_id = next((t for t in (self._tok.token_to_id(p) for p in _PAD_TOKENS) if t is not None), 0)
        if self._fixed_len:
            self._tok.enable_padding(pad_id=pad_id, length=self._fixed_len)
        else:
            self._tok.enable_padding(pad_id=pad_id)
        self.lock = threading.Lock()
        # Ask both towers once: the dimension is what they really produce, and a pair whose
        # towers disagree is refused now rather than when the first search runs.
        probe = np.zeros((image_size_px, image_size_px, 3), np.uint8)
        di = self.encode_images([probe]).shape[1]
        dt = self.encode_texts(["a photo"]).shape[1]
        if di != dt:
            raise ModelError(
                f"image tower gives {di}-d vectors but text tower gives {dt}-d; the two files are not one "
                f"CLIP pair"
            )
        self.dim: int = int(di)

    def encode_images(self, images: Sequence[np.ndarray]) -> np.ndarray:
        if len(images) == 0:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        parts = []
        for start in range(0, len(images), self.batch_size):
            batch = clip_preprocess(
                images[start : start + self.batch_size], self.image_size_px, self.mean, self.std
            )
            parts.append(self._image.run([self._image_out], {self._pixel_input: batch})[0])
        return _l2(np.concatenate(parts))

    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("encode_texts() takes a list of texts, not one string")
        if len(texts) == 0:
            return np.zeros((0, getattr(self, "dim", 0)), dtype=np.float32)
        parts = []
        with self.lock:  # the tokenizer's padding state is shared
            for start in range(0, len(texts), self.batch_size):
                enc = self._tok.encode_batch([t or " " for t in texts[start : start + self.batch_size]])
                feeds = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64)}
                if self._text_has_mask:
                    feeds["attention_mask"] = np.array([e.attention_mask for e in enc], dtype=np.int64)
                parts.append(self._text.run([self._text_out], feeds)[0])
        return _l2(np.concatenate(parts))
