"""What a grounded answer holds (the text said, its kind, the moments it rests on), and how an
answer's times and clips are read back: shared by the answerer, the offline path, the live
question step and the benchmarks that score what was said."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import Moment


@dataclass
class GroundedAnswer:
    text: str
    kind: str  # answer_text.KINDS
    moment: Moment | None  # what the answer rests on (None: abstained)
    chosen: Moment | None  # the moment the model chose (for "after": the one before `moment`)
    choice: str | None = None  # the option, for a multiple-choice question
    candidates: list[Moment] = field(default_factory=list)
    timings_s: dict[str, float] = field(default_factory=dict)
    trace: dict[str, Any] = field(default_factory=dict)

    @property
    def abstained(self) -> bool:
        return self.moment is None


def cited(moment: Moment | None) -> str:
    if moment is None:
        return ""
    when = answer_text.clip_label(moment.t0, moment.t1)
    return f"seen at {when}" + (f" ({moment.note})" if moment.note else "")


_TIME = re.compile(r"\b(\d+):(\d\d)(?::(\d\d))?\b")


def times_in(text: str) -> list[float]:
    """Stream times ('1:40', '1:04:50' past the first hour) said in an answer, in seconds."""
    return [
        int(a) * 3600 + int(b) * 60 + int(c) if c else int(a) * 60 + int(b) for a, b, c in _TIME.findall(text)
    ]


def cited_clips(ga: GroundedAnswer) -> list[list[Any]]:
    """The clips an answer rests on: (session, clip, t0, t1) of the moment chosen and the one told."""
    used = dict.fromkeys(m for m in (ga.chosen, ga.moment) if m is not None)
    return [[m.session_id, m.clip_index, round(m.t0, 2), round(m.t1, 2)] for m in used]
