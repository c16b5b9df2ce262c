"""Which task of the library is under way, from the captions alone, and when it changes.

Each caption scores every task by its best step cosine; a task's evidence is the sum over
the captions since it was last chosen, with a "none" candidate that scores a fixed cosine
per caption (so unrelated activity is "no task", not the least bad recipe). Confidence is
the softmax of the evidence.

A task is named only when it is clearly under way: over the last `name_window` captions its
summed evidence leads every other task and "none" by `name_margin`, and at least `min_hits`
of those captions each match it best of all tasks (by `hit_margin`) and above "none", on at
least `min_steps` different steps of it. One caption that is a recipe's step ("peel the
garlic" in someone's own cooking), one step seen over several clips, or steps every recipe
shares ("chops the onion", "stirs the pan"), name nothing. The steps
seen before a task was named are credited by the session, which replays them.

A switch needs the evidence of the last `window` captions to favour another task (or
"none") by `switch_margin`, so one odd caption does not restart the tracker.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from edge_assist.tasks.model import Task
from edge_assist.tasks.vector_cache import VectorCache

NONE = ""


@dataclass(frozen=True)
class RecognitionParams:
    tau: float = 0.03  # softmax temperature over summed cosines
    none_cos: float = 0.5  # per-caption score of "no task"
    window: int = 3  # captions that decide a switch
    switch_margin: float = 0.25  # summed-cosine lead another task needs over the window
    min_conf: float = 0.8  # below this the answer is "none"
    # Captions before a task may be named at all: a tracker started on one or two vague
    # captions ("I pour oil into the pan") flags the recipe's earlier steps as skipped.
    min_captions: int = 3
    # Clearly under way (see the module's doc).
    name_window: int = 6
    name_margin: float = 0.25
    min_hits: int = 3
    min_steps: int = 2
    # A hit must match this task better than every other task by this much: chopping an onion
    # or stirring a pan is a step of many recipes and names none of them (Goal-Step train:
    # captions read under a wrongly named task 316 -> 233 of 6,406; CaptainCook4D train clip
    # streams: first right name at clip 8 instead of 7, never named 1 of 213 either way).
    hit_margin: float = 0.03


@dataclass(frozen=True)
class Recognition:
    task: str  # library name, "" for none
    confidence: float
    switched: bool  # the task changed at this caption
    ranking: tuple[tuple[str, float], ...]  # the best few (name, confidence)

    def to_json(self) -> dict:
        return {
            "task": self.task or None,
            "confidence": round(self.confidence, 3),
            "switched": self.switched,
            "ranking": [[n, round(c, 3)] for n, c in self.ranking],
        }


class TaskRecognizer:
    def __init__(
        self, tasks: list[Task], vectors: VectorCache, params: RecognitionParams | None = None
    ) -> None:
        self.p = params or RecognitionParams()
        self.names = [t.name for t in tasks]
        self._mats = [vectors.get([s.text for s in t.steps]) for t in tasks]
        # One matrix for all steps of all tasks: a caption costs one product, not one per task.
        self._all = np.concatenate(self._mats) if self._mats else np.zeros((0, 1), dtype=np.float32)
        self._owner = (
            np.concatenate([np.full(m.shape[0], i) for i, m in enumerate(self._mats)])
            if self._mats
            else np.zeros(0)
        )
        self._evidence = np.zeros(len(tasks) + 1)  # last: none
        self._recent: deque[np.ndarray] = deque(maxlen=max(self.p.window, self.p.name_window))
        self._recent_steps: deque[np.ndarray] = deque(maxlen=self.p.name_window)  # best step per task
        self.current = NONE
        self._seen = 0

    @property
    def seen(self) -> int:
        return self._seen

    def _scores(self, vec: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per task its best step cosine (and "none" last), and which of its steps that is."""
        sims = self._all @ vec
        best = np.full(len(self.names), -1.0)
        owner = self._owner.astype(int)
        np.maximum.at(best, owner, sims)
        # The first step of each task that reaches its best (steps are grouped by task).
        at = np.flatnonzero(sims >= best[owner])
        step = np.zeros(len(self.names), dtype=int)
        step[owner[at][::-1]] = at[::-1]
        return np.append(best, self.p.none_cos), step

    def _clearly_under_way(self) -> int | None:
        """The task the last `name_window` captions show clearly, if one (module doc)."""
        p = self.p
        recent = list(self._recent)[-p.name_window :]
        if self._seen < p.min_captions or len(recent) < p.min_hits:
            return None
        window = np.sum(recent, axis=0)
        best = int(np.argmax(window))
        if best >= len(self.names) or window[best] - np.max(np.delete(window, best)) < p.name_margin:
            return None
        hits = [
            int(steps[best])
            for s, steps in zip(recent, list(self._recent_steps)[-len(recent) :], strict=True)
            if s[best] >= p.none_cos and s[best] - _rival(s[:-1], best) >= p.hit_margin
        ]
        if len(hits) < p.min_hits or len(set(hits)) < p.min_steps:
            return None
        return best if _softmax(window / p.tau)[best] >= p.min_conf else None

    def observe(self, vec: np.ndarray) -> Recognition:
        s, steps = self._scores(np.asarray(vec, dtype=np.float32))
        self._evidence += s
        self._recent.append(s)
        self._recent_steps.append(steps)
        conf = _softmax(self._evidence / self.p.tau)
        switched = False
        self._seen += 1
        if self.current == NONE:
            named = self._clearly_under_way()
            if named is not None:
                # Its evidence starts from the captions that showed it.
                self._evidence = np.sum(list(self._recent)[-self.p.name_window :], axis=0)
                conf = _softmax(self._evidence / self.p.tau)
                self.current, switched = self.names[named], True
        else:
            cur = self.names.index(self.current)
            window = np.sum(list(self._recent)[-self.p.window :], axis=0)
            rival = int(np.argmax(window))
            if (
                rival != cur
                and window[rival] - window[cur] >= self.p.switch_margin
                and len(self._recent) >= self.p.window
            ):
                # Start the new task's evidence from the window that showed it.
                self._evidence = window.copy()
                conf = _softmax(self._evidence / self.p.tau)
                self.current = self.names[rival] if rival < len(self.names) else NONE
                switched = True
        idx = self.names.index(self.current) if self.current else len(self.names)
        order = np.argsort(-conf)[:3]
        ranking = tuple((self.names[i] if i < len(self.names) else NONE, float(conf[i])) for i in order)
        return Recognition(self.current, float(conf[idx]), switched, ranking)


def _rival(scores: np.ndarray, best: int) -> float:
    """The best score of any task but `best` (-1, below any cosine, when it is the only one)."""
    others = np.delete(scores, best)
    return float(others.max()) if others.size else -1.0


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()
