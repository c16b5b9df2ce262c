"""Where a wearer's memory lives on disk and what the config must say about it.

`Paths` names the three files side by side in `data_dir`; `check_windows` refuses roll-up
windows that would let an activity summary straddle two session windows; `usable_keyframes`
keeps a corrupt camera frame from costing its caption.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.config import Config
from edge_assist.errors import ConfigError
from edge_assist.events import Caption
from edge_assist.memory.ivf import IvfSettings
from edge_assist.memory.store import Windows

log = logging.getLogger(__name__)


@dataclass
class Paths:
    sqlite: Path
    graph: Path
    keyframes: Path

    @classmethod
    def of(cls, cfg: Config) -> Paths:
        base = cfg.data_dir / cfg.general.wearer
        return cls(Path(f"{base}.sqlite"), Path(f"{base}.kuzu"), Path(f"{base}.keyframes"))


def usable_keyframes(caption: Caption) -> list[Any]:
    """The caption's keyframes that are images (H x W x 3 uint8); a corrupt one is left out, logged.

    A broken frame from the camera costs that picture, never the caption nor the run.
    """
    out = []
    for k, kf in enumerate(caption.keyframes):
        img = kf.image
        if (
            isinstance(img, np.ndarray)
            and img.dtype == np.uint8
            and img.ndim == 3
            and img.shape[2] == 3
            and img.shape[0] > 0
            and img.shape[1] > 0
        ):
            out.append(kf)
        else:
            what = f"{img.dtype} {img.shape}" if isinstance(img, np.ndarray) else type(img).__name__
            log.warning(
                "keyframe %d of clip %d of %s is corrupt (%s); the caption is stored without it",
                k,
                caption.index,
                caption.session_id,
                what,
            )
    return out


def ivf_settings(cfg: Config) -> IvfSettings:
    m = cfg.memory
    return IvfSettings(min_items=m.ann_min_items, list_size=m.ann_list_size, probe=m.ann_probe)


def check_windows(cfg: Config) -> Windows:
    clip_s, act_s, ses_s = cfg.memory_windows_s
    ratio = ses_s / act_s
    if act_s < clip_s or ses_s < act_s or abs(ratio - round(ratio)) > 1e-6:
        raise ConfigError(
            f"memory windows {clip_s:g}/{act_s:g}/{ses_s:g} s must grow and memory.session_s must be a whole "
            "multiple of memory.activity_s, so every activity summary falls inside one session window"
        )
    return Windows(clip_s, act_s, ses_s)
