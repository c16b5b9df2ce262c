"""The one camera interface every backend implements.

A `FrameSource` is a plain synchronous object: `read()` blocks until the next frame
(live cameras) or returns the next decoded frame (files). The camera stage runs it off
the event loop. Stream times are seconds from the start of the recording or session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class RawFrame:
    stream_t: float
    image: np.ndarray  # BGR uint8


class FrameSource(Protocol):
    name: str
    live: bool  # a camera (drop frames when behind) or a file (pace it)
    duration_s: float | None  # known length of a file, for the progress bar

    def open(self) -> None:
        """Open the device or file; raise SourceError with what to do when it cannot."""
        ...

    def read(self) -> RawFrame | None:
        """The next frame, or None at the end of a file."""
        ...

    def close(self) -> None: ...
