"""The in-process VLM: a GGUF language model plus its vision projector (mmproj), run by
llama.cpp's multimodal library (mtmd) through llama-cpp-python's `MTMDChatHandler`.

Owns image preprocessing (longest side to a limit, JPEG/PNG encoding with OpenCV, data
URIs), one request with one or several images, and the same streaming/stop/lock rules as
the text model (it reuses `LlamaLLM.generate`).
"""

from __future__ import annotations

import base64
import contextlib
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from edge_assist.errors import ModelError
from edge_assist.inference.base import Message, StopFlag
from edge_assist.inference.llama_llm import LlamaLLM, check_gguf


def resize_longest(image: np.ndarray, longest_px: int) -> np.ndarray:
    """Shrink (never enlarge) so the longest side is at most `longest_px`."""
    h, w = image.shape[:2]
    scale = longest_px / max(h, w)
    if scale >= 1.0:
        return image
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def image_data_uri(image: np.ndarray, longest_px: int = 0, fmt: str = "jpeg", quality: int = 90) -> str:
    """A BGR uint8 image as a `data:image/...;base64,` URI, as OpenAI-style APIs take it."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ModelError("an image for the VLM must be a non-empty HxW or HxWx3 uint8 array (BGR)")
    if image.dtype != np.uint8:
        raise ModelError(f"an image for the VLM must be uint8, got {image.dtype}; convert it first")
    if longest_px > 0:
        image = resize_longest(image, longest_px)
    if fmt == "png":
        ok, buf = cv2.imencode(".png", image)
        mime = "image/png"
    else:
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        mime = "image/jpeg"
    if not ok:
        raise ModelError(f"OpenCV could not encode an image of shape {image.shape} as {fmt}")
    return f"data:{mime};base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def vision_messages(images: Sequence[str], prompt: str) -> list[Message]:
    """One user turn: the images first, then the instruction (the LLaVA convention)."""
    content: list[dict[str, Any]] = [{"type": "image_url", "image_url": {"url": u}} for u in images]
    content.append({"type": "text", "text": prompt})
    return [{"role": "user", "content": content}]


def _route_mtmd_logs() -> None:
    """mtmd logs every image slice to stderr by default; send it through llama-cpp-python's
    logger, which prints errors only unless a model was opened verbose."""
    import ctypes

    from llama_cpp import _logger, mtmd_cpp

    mtmd_cpp.mtmd_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))
    mtmd_cpp.mtmd_helper_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))


def _make_handler(mmproj: Path) -> Any:
    from llama_cpp.llama_chat_format import MTMDChatHandler

    _route_mtmd_logs()

    class _Handler(MTMDChatHandler):  # type: ignore[misc]
        """Text-only chat templates (SmolLM2's) concatenate `content` as a string; give them
        one, with the media marker where each image goes."""

        flatten = False

        @classmethod
        def _convert_message_for_template(cls, message: Any, media_marker: str) -> dict[str, Any]:
            out = super()._convert_message_for_template(message, media_marker)
            content = out.get("content")
            if cls.flatten and isinstance(content, list):
                out["content"] = "\n".join(
                    p.get("text", "") if isinstance(p, dict) else str(p) for p in content
                )
            return out

    return _Handler(clip_model_path=str(mmproj), verbose=False, use_gpu=False)


class LlamaVLM:
    """Answer a prompt about BGR images. Plain synchronous class; call it from a worker thread."""

    def __init__(
        self,
        model_path: str | Path,
        mmproj_path: str | Path,
        *,
        name: str = "",
        context_tokens: int = 4096,
        threads: int = 0,
        seed: int = 0,
        image_size_px: int = 384,
        image_format: str = "jpeg",
        fix_hint: str = "re-download it or fix [models] in the config",
    ) -> None:
        mmproj = Path(mmproj_path)
        check_gguf(mmproj, "vision projector", fix_hint)
        self._handler = _make_handler(mmproj)
        self._llm = LlamaLLM(
            model_path,
            name=name or Path(model_path).stem,
            context_tokens=context_tokens,
            threads=threads,
            seed=seed,
            chat_handler=self._handler,
            fix_hint=fix_hint,
        )
        self.name = self._llm.name
        self.image_size_px = image_size_px
        self.image_format = image_format
        template = self._llm._llama.metadata.get("tokenizer.chat_template", "") or ""
        # Templates that understand content parts test their "type"; others get a string.
        type(self._handler).flatten = "type" not in template
        # mtmd loads the projector lazily on first use; load it now so a bad file fails
        # at start-up, with the model named, not in the middle of the first clip.
        try:
            with self._llm.lock:
                self._handler._init_mtmd_context(self._llm._llama)
        except ValueError as e:
            raise ModelError(
                f"vision projector {mmproj} does not load with {self.name} ({e}); it is corrupt, truncated "
                f"or made for another language model: {fix_hint}"
            ) from None
        self.lock = self._llm.lock
        # Free the projector while the interpreter is still whole: llama-cpp-python's own
        # __del__ at shutdown writes to an already closed stderr and prints a traceback.
        weakref.finalize(self, self._llm.close)

    def describe(
        self,
        images: Sequence[np.ndarray],
        prompt: str,
        *,
        max_tokens: int = 128,
        temperature: float = 0.0,
        stop: StopFlag | None = None,
        image_size_px: int | None = None,
    ) -> str:
        if not images:
            raise ModelError("describe() needs at least one image; for text alone use the LLM")
        size = image_size_px or self.image_size_px
        uris = [image_data_uri(img, size, self.image_format) for img in images]
        try:
            return self._llm.generate(
                vision_messages(uris, prompt),
                max_tokens=max_tokens,
                temperature=temperature,
                json_schema=None,
                stop=stop,
                on_token=None,
            )
        except ValueError as e:
            raise ModelError(
                f"{self.name}: {e}; send fewer or smaller images, or raise models.context_tokens"
            ) from None

    def close(self) -> None:
        from edge_assist.inference.loader import forget

        forget(self)  # as LlamaLLM.close: the loader must not hand out a closed model
        with contextlib.suppress(Exception):
            self._llm.close()
