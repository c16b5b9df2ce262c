"""Where the wearer is in their task: which listed steps the captions so far match.

A 135M reasoner cannot reliably compare a dozen recipe steps with a few captions in its
head; a sentence encoder can. Given a task context that lists steps ("Steps: a; b; c" or
one step per line), each caption is matched to its nearest step by cosine similarity, and
the prompt gets "done" and "not done yet" lists. The model still makes the decision; it
just reads the comparison instead of having to do it. Without a step list this is empty
and the prompt shows the task text alone.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder

MATCH_COSINE = 0.55  # below this a caption is not any listed step (an extra or a mistake)
_CACHE_MAX = 4096


def parse_steps(task: str) -> tuple[str, tuple[str, ...]]:
    """(heading, steps) from "Recipe: x. Steps: a; b; c" or a numbered / bulleted list."""
    m = re.search(r"\bsteps?\b[^:.;]{0,20}:\s*(.+)$", task, flags=re.IGNORECASE | re.DOTALL)
    if m:
        body, head = m.group(1), task[: m.start()].strip().rstrip(".")
    else:
        body, head = task, ""
    parts = re.split(r";|\n", body)
    steps = tuple(s for s in (re.sub(r"^\s*(\d+[.)]|[-*•])\s*", "", p).strip().rstrip(".") for p in parts) if s)
    if len(steps) < 2:
        return task.strip(), ()
    return head, steps


@dataclass(frozen=True)
class Progress:
    heading: str
    done: tuple[str, ...]  # steps matched by a caption so far, in the order they were done
    todo: tuple[str, ...]  # listed steps no caption matched yet, in listed order
    now_step: str  # the step the current caption matches, "" when none does
    now_cosine: float
    skipped: tuple[str, ...] = ()  # listed before now_step, still not done

    def prompt_text(self) -> str:
        lines = [self.heading or "Task"]
        lines.append("Steps done: " + ("; ".join(self.done) if self.done else "(none)"))
        lines.append("Steps not done yet: " + ("; ".join(self.todo) if self.todo else "(none)"))
        if not self.now_step:
            lines.append("NOW matches no listed step.")
        else:
            lines.append(f"NOW is like the step: {self.now_step}")
            if self.skipped:
                lines.append("Listed before it but not done: " + "; ".join(self.skipped))
        return "\n".join(lines)


class TaskProgress:
    def __init__(self, encoder: TextEncoder, clock: Clock) -> None:
        self._encoder = encoder
        self._clock = clock
        self._vectors: dict[str, np.ndarray] = {}

    async def _encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            vecs = await self._clock.run_blocking(self._encoder.encode, missing)
            if len(self._vectors) + len(missing) > _CACHE_MAX:
                self._vectors.clear()
            for t, v in zip(missing, vecs, strict=True):
                self._vectors[t] = np.asarray(v, dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    async def progress(self, task: str, captions: Sequence[str], now: str) -> Progress | None:
        heading, steps = parse_steps(task)
        if not steps:
            return None
        step_vecs = await self._encode(steps)
        cap_vecs = await self._encode([*captions, now])
        sims = cap_vecs @ step_vecs.T  # (captions + 1, steps)
        done: list[int] = []
        for row in sims:
            j = int(np.argmax(row))
            if row[j] >= MATCH_COSINE and j not in done:
                done.append(j)
        j_now = int(np.argmax(sims[-1]))
        now_ok = bool(sims[-1, j_now] >= MATCH_COSINE)
        return Progress(
            heading=heading,
            done=tuple(steps[j] for j in done),
            todo=tuple(s for j, s in enumerate(steps) if j not in done),
            now_step=steps[j_now] if now_ok else "",
            now_cosine=float(sims[-1, j_now]),
            skipped=tuple(steps[j] for j in range(j_now) if j not in done) if now_ok else (),
        )
