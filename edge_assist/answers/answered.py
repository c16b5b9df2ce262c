"""A question as it is answered offline, and its answer: the records the answer paths pass on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.fusion import RetrievedContext


@dataclass(frozen=True)
class Asked:
    """A question as it is answered: what it asks, about when and which session."""

    question: str
    choices: tuple[str, ...]
    before_t: float
    session_id: str | None
    past_sessions: bool
    task: str = ""
    task_context: str = ""


@dataclass
class Answer:
    """An answer to a question (reactive or offline) and the clips it rests on."""

    text: str
    choice: str | None
    citation: str
    stage: str  # "moments" (grounded), "summaries" (coarse was enough) or "clips" (fine retrieval)
    context: RetrievedContext
    timings_s: dict[str, float] = field(default_factory=dict)
    trace: dict[str, Any] = field(default_factory=dict)
    moment: Moment | None = None  # the remembered moment it rests on, if one
    asked_at: float | None = None  # when it was asked, on the asker's clock (not the last clip's end)

    def spoken(self) -> str:
        return f"{self.text} ({self.citation})" if self.citation else self.text
