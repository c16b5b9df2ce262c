"""The contract between the pipeline and whatever decides what to say.

The app builds a `StepContext` for every caption (and for every wearer question) and
asks an `Assistant` for a `Decision`. The real assistant (reasoner passes, retrieval,
reconstruction, policy) and the evaluation baselines implement the same protocol, so
they run through the same pipeline and are scored by the same harness.

When the first pass wants to look back, the assistant asks the `SearchGate` handed to
it by the scheduler what it may run; the gate answers with a `SearchPlan` (which paths,
how many hits, whether to reconstruct), possibly degraded to fit the step's budget, or
deferred. With no gate everything configured is granted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from edge_assist.events import Caption, Decision, UserQuery
from edge_assist.retrieval.api import SearchPlan


@dataclass(frozen=True)
class StepContext:
    session_id: str
    caption: Caption  # the current step
    recent: tuple[Caption, ...] = ()  # the last few captions before it, oldest first
    activity_summary: str = ""  # the latest written activity summary, if any
    task_context: str = ""  # what the wearer is doing (recipe, procedure), if known
    task: str = ""  # the task library's name for it, when the stream or the config names one
    query: UserQuery | None = None  # set when the wearer asked: d_t = 1

    @property
    def now_t(self) -> float:
        """Stream time of this step: nothing after it may be read."""
        if self.query is not None and self.query.stream_t is not None:
            return self.query.stream_t
        return self.caption.t1


class SearchGate(Protocol):
    async def request(self, query: str, *, instant: bool = False) -> SearchPlan:
        """Ask to search for `query` now. Waits only for a decision, never for the search."""
        ...


class Assistant(Protocol):
    name: str

    async def step(self, ctx: StepContext, gate: SearchGate | None = None) -> Decision:
        """Decide for one step: silent, or a service to speak (policy already applied)."""
        ...


@dataclass
class Timings:
    """Measured sections of one step, in seconds of real compute."""

    sections: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.sections[name] = self.sections.get(name, 0.0) + seconds
