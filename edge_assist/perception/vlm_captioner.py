"""The captioner that runs on a VLM: a clip's keyframes in, one or two sentences out.

Owns which keyframes go to the model (at most `captioner.max_images`, spread evenly over
the clip, scene-change picks kept in time order), their size (longest side
`captioner.image_size_px`, resized here so every VLM backend, local or remote, gets the
same pixels) and the prompt. Any `VLM` works: llama.cpp in process or a remote server.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from edge_assist.config import CaptionerConfig
from edge_assist.errors import ModelError
from edge_assist.events import Clip, Keyframe
from edge_assist.inference.base import VLM
from edge_assist.inference.llama_vlm import resize_longest


def pick_keyframes(keyframes: Sequence[Keyframe], limit: int) -> list[Keyframe]:
    """At most `limit` keyframes, evenly spread, in stream order."""
    ordered = sorted(keyframes, key=lambda k: k.stream_t)
    if len(ordered) <= limit:
        return ordered
    if limit == 1:
        return [ordered[len(ordered) // 2]]
    idx = np.linspace(0, len(ordered) - 1, limit).round().astype(int)
    return [ordered[i] for i in sorted(set(idx.tolist()))]


class VLMCaptioner:
    """Captioner protocol on top of a VLM. Blocking; the captioner stage runs it in a thread."""

    def __init__(self, vlm: VLM, cfg: CaptionerConfig) -> None:
        self.vlm = vlm
        self.cfg = cfg
        self.name = vlm.name
        self.last_image_count = 0

    def images_for(self, clip: Clip) -> list[np.ndarray]:
        chosen = pick_keyframes(clip.keyframes, self.cfg.max_images)
        return [resize_longest(k.image, self.cfg.image_size_px) for k in chosen]

    def caption(self, clip: Clip) -> str:
        images = self.images_for(clip)
        if not images:
            raise ModelError(
                f"clip {clip.index} of session {clip.session_id} has no keyframes to caption; "
                "check segmenter.keyframes_per_clip"
            )
        self.last_image_count = len(images)
        text = self.vlm.describe(images, self.cfg.prompt, max_tokens=self.cfg.max_tokens, temperature=0.0)
        return " ".join(text.split())
