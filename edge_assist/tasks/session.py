"""Task tracking for one wearer session, as the assistant uses it.

Picks the task (named by the stream or the config, listed in the task context, or
recognised from the captions when nothing says), keeps one `StepTracker` per session,
restarts it when recognition sees the wearer switch tasks, and answers "what's next?",
"what did I miss?" and "how far am I?" from the tracker's state. Everything here is
encoder arithmetic: milliseconds, no language model.

Two steps may be in flight at once (a proactive step and a wearer's question, or two
captions while a search runs), each reading or moving the tracker in a worker thread.
They take turns, in the order they asked, and what a step needs of its moment comes back
by value (`Tracked`), so a later caption cannot change what an earlier step decides on.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder
from edge_assist.tasks.findings import ORDER, PREREQUISITE, Finding, TrackerState
from edge_assist.tasks.guidance import guidance
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.model import Task
from edge_assist.tasks.question_kinds import QuestionKinds
from edge_assist.tasks.recognition import Recognition, TaskRecognizer
from edge_assist.tasks.tracker import StepTracker, TrackerParams
from edge_assist.tasks.vector_cache import VectorCache
from edge_assist.tasks.vector_file import VectorFile, Wanted

log = logging.getLogger(__name__)

# Questions the tracker answers at once, by what they ask (matched by encoder cosine to
# these phrasings, so "what do I do now?" finds "next").
INTENTS = {
    "next": (
        "what is the next step",
        "what's next",
        "what do I do next",
        "what comes next",
        "what should I do now",
        "what now",
        "now what",
    ),
    "missed": ("what did I miss", "did I skip a step", "did I forget anything", "what have I not done yet"),
    "progress": (
        "how far am I",
        "how far along am I",
        "how many steps are left",
        "how much is left to do",
        "am I almost done",
        "what's left",
        "what else is there to do",
    ),
}
# Measured on MiniLM: progress questions score 0.6-0.96 on their intent, memory questions
# ("where did I leave my keys?", "did I add salt?") at most 0.35; the margin keeps a
# question that is near two intents ("next step?" vs "did I skip a step?") to the clear one.
INTENT_MIN_COS = 0.58
INTENT_MARGIN = 0.1
# Captions read while no task was followed, replayed into the tracker of a task recognised
# later (its steps seen before it was named are done, not skipped): 5 minutes of 10-s clips.
REPLAY_MAX = 30
NO_TASK = "I don't see a task I know under way."


@dataclass(frozen=True)
class TaskReading:
    """What the assistant gets per caption: the tracker's state and how the task was chosen."""

    state: TrackerState
    source: str  # "named", "context", "recognised"
    recognition: Recognition | None = None

    def to_json(self) -> dict:
        out = self.state.to_json() | {"task_source": self.source}
        if self.recognition is not None:
            out["recognition"] = self.recognition.to_json()
        return out


@dataclass(frozen=True)
class Tracked:
    """One caption read by the tracker, and what a step needs of that moment."""

    reading: TaskReading | None
    vector: np.ndarray  # the caption's encoder vector
    hazards: tuple[str, ...]  # the hazards of the step the wearer is on
    cpu_s: float  # CPU seconds the reading took in its worker thread

    @property
    def state(self) -> TrackerState | None:
        return self.reading.state if self.reading is not None else None


class TaskSession:
    def __init__(
        self,
        library: TaskLibrary,
        encoder: TextEncoder,
        clock: Clock,
        params: TrackerParams | None = None,
        *,
        vector_path: Path | None = None,
    ) -> None:
        self.library = library
        self.clock = clock
        self.params = params or TrackerParams()
        self.vectors = VectorCache(encoder.encode)
        self._encode = encoder.encode
        # The library's step vectors from earlier starts (none for an encoder of unknown identity).
        self.vector_file = VectorFile.for_encoder(vector_path, encoder) if vector_path is not None else None
        self._session = ""
        self._tracker: StepTracker | None = None
        self._recognizer: TaskRecognizer | None = None
        self._source = ""
        self._task_key = ""
        self.last: TaskReading | None = None
        self._last_index = -1
        self._unfollowed: list[tuple[str, np.ndarray]] = []  # captions read while no task was followed
        self._recent: list[tuple[str, np.ndarray]] = []  # the last few captions
        self._intent_vecs: dict[str, np.ndarray] | None = None
        self._turns: asyncio.Lock | None = None
        self._turns_loop: asyncio.AbstractEventLoop | None = None

    @property
    def current_task(self) -> Task | None:
        return self._tracker.task if self._tracker is not None else None

    def step_hazards(self, step_id: str) -> tuple[str, ...]:
        task = self.current_task
        if task is None or not step_id:
            return ()
        i = task.index().get(step_id)
        return task.steps[i].hazards if i is not None else ()

    def warm(self, task_name: str = "", task_context: str = "") -> None:
        """Encode, before the first caption, the steps the first decision would otherwise wait
        for (~200 ms instead of ~20 ms, bench_decider): the named task's, or every library
        task's when the stream names none and recognition will need them all."""
        task = self.library.resolve(task_context, name=task_name) if task_name or task_context else None
        tasks = [task] if task is not None else self.library.tasks()
        if self.vector_file is not None:
            # Library tasks' steps from the vector file (or encoded once and kept there).
            kept = [
                Wanted(f"task:{t.name}", h, tuple(s.text for s in t.steps))
                for t in tasks
                if (h := self.library.file_hash(t.name)) and self.library.get(t.name) is t
            ]
            for w, vecs in zip(kept, self.vector_file.vectors(kept, self._encode), strict=True):
                self.vectors.add(w.texts, vecs)
        self.vectors.get([s.text for t in tasks for s in t.steps])

    def _reset(self, session_id: str) -> None:
        self._session, self._tracker, self._recognizer, self._source, self._task_key = (
            session_id,
            None,
            None,
            "",
            "",
        )
        self.last = None
        self._last_index = -1
        self._unfollowed = []
        self._recent = []

    def _turn(self) -> asyncio.Lock:
        """The lock steps take turns on. One per event loop: an assistant may serve several
        runs, each on its own loop, and an asyncio lock belongs to the loop it waited on."""
        loop = asyncio.get_running_loop()
        if self._turns is None or self._turns_loop is not loop:
            self._turns, self._turns_loop = asyncio.Lock(), loop
        return self._turns

    async def observe(
        self,
        session_id: str,
        text: str,
        *,
        task_name: str = "",
        task_context: str = "",
        index: int | None = None,
        earlier: tuple[tuple[int, str], ...] = (),
    ) -> TaskReading | None:
        """Feed one caption (and any `earlier` (index, text) captions not seen yet, e.g. after a
        resume or when steps start mid-session) and read the tracker."""
        tracked = await self.track(
            session_id, text, task_name=task_name, task_context=task_context, index=index, earlier=earlier
        )
        return tracked.reading

    async def track(
        self,
        session_id: str,
        text: str,
        *,
        task_name: str = "",
        task_context: str = "",
        index: int | None = None,
        earlier: tuple[tuple[int, str], ...] = (),
    ) -> Tracked:
        """`observe`, with the caption's vector, the step's hazards and the CPU time it took."""

        def run() -> Tracked:
            cpu = time.thread_time()
            reading = self._feed(session_id, text, task_name, task_context, index, earlier)
            hazards = self.step_hazards(reading.state.step_id) if reading is not None else ()
            vector = self.vectors.get([text])[0]
            # CPU time of this thread: on a loaded machine the wall clock also counts waiting.
            return Tracked(reading, vector, hazards, time.thread_time() - cpu)

        async with self._turn():
            return await self.clock.run_blocking(run)

    def _feed(
        self,
        session_id: str,
        text: str,
        task_name: str,
        task_context: str,
        index: int | None,
        earlier: tuple[tuple[int, str], ...],
    ) -> TaskReading | None:
        if session_id != self._session:
            self._reset(session_id)
        for i, t in earlier:
            if i > self._last_index and (index is None or i < index):
                self._observe(session_id, t, task_name, task_context)
                self._last_index = i
        if index is not None:
            self._last_index = max(self._last_index, index)
        return self._observe(session_id, text, task_name, task_context)

    def _observe(self, session_id: str, text: str, task_name: str, task_context: str) -> TaskReading | None:
        if session_id != self._session:
            self._reset(session_id)
        vec = self.vectors.get([text])[0]
        key = f"{task_name}\x00{task_context}"
        if self._tracker is None or (self._source != "recognised" and key != self._task_key):
            task = self.library.resolve(task_context, name=task_name)
            if task is not None:
                self._tracker = StepTracker(task, self.vectors.get, params=self.params, vectors=self.vectors)
                self._source = "named" if task_name and task.name == task_name else "context"
                self._task_key = key
        recognition = None
        replayed: list[Finding] = []
        if self._source in ("", "recognised"):
            recognition, replayed = self._recognise(text, vec)
        if self._tracker is None:
            self.last = None
            return None
        state = self._tracker.observe(text, vec)
        if replayed:
            state = replace(state, findings=_merged(replayed, state))
        if recognition is not None:
            state = replace(state, task_confidence=recognition.confidence)
        self.last = TaskReading(state, self._source, recognition)
        return self.last

    def _recognise(self, text: str, vec: np.ndarray) -> tuple[Recognition, list[Finding]]:
        """Recognition's reading of this caption; when it names a task, a tracker on it that has
        read the captions seen before it was named, and the skips those showed."""
        if self._recognizer is None:
            self._recognizer = TaskRecognizer(self.library.tasks(), self.vectors)
        recognition = self._recognizer.observe(vec)
        replayed: list[Finding] = []
        if recognition.switched or (self._tracker is None and recognition.task):
            task = self.library.get(recognition.task) if recognition.task else None
            # From no task: every caption since (up to REPLAY_MAX). From another task: the
            # captions that showed the switch.
            shown = (
                self._unfollowed
                if self._tracker is None
                else self._recent[len(self._recent) - self._recognizer.p.window + 1 :]
            )
            self._tracker, self._source = None, "recognised"
            if task is not None:
                tracker = StepTracker(
                    task, self.vectors.get, params=self.params, vectors=self.vectors, picked_up=True
                )
                for t, v in shown:
                    replayed += [f for f in tracker.observe(t, v).findings if f.kind in (PREREQUISITE, ORDER)]
                self._tracker = tracker
            if recognition.switched:
                log.info("task now %s (confidence %.2f)", recognition.task or "none", recognition.confidence)
        self._unfollowed = [*self._unfollowed, (text, vec)][-REPLAY_MAX:] if self._tracker is None else []
        self._recent = [*self._recent, (text, vec)][-self._recognizer.p.window :]
        return recognition, replayed

    # -- questions -------------------------------------------------------------------
    async def answer(self, session_id: str, question: str) -> str | None:
        """The tracker's answer to a progress question, or None when it is not one."""
        async with self._turn():
            return await self.clock.run_blocking(self._answer, session_id, question)

    def intent(self, question: str) -> str | None:
        """The INTENTS key `question` asks by its phrasing, else by its meaning; or None. Blocking."""
        if self._intent_vecs is None:
            self._intent_vecs = {k: self.vectors.get(list(v)) for k, v in INTENTS.items()}
        for q in self.vectors.get(_asked_parts(question)):
            scores = sorted(((float((m @ q).max()), k) for k, m in self._intent_vecs.items()), reverse=True)
            (c1, best), (c2, _) = scores[0], scores[1]
            if c1 >= INTENT_MIN_COS and c1 - c2 >= INTENT_MARGIN:
                return best
        read = QuestionKinds(self.vectors).read(question, in_conversation=False, among=tuple(INTENTS))
        return read.kind if read.kind in INTENTS else None

    def _answer(self, session_id: str, question: str) -> str | None:
        intent = self.intent(question)
        if intent is None:
            return None
        if session_id != self._session or self.last is None or self._tracker is None:
            # Recognition has read enough of this session to say none of the library's is under way.
            rec = self._recognizer
            seen = session_id == self._session and rec is not None and rec.seen >= rec.p.min_captions
            return NO_TASK if seen and self._tracker is None else "I don't know which task you are doing yet."
        return guidance(intent, self.last.state, self._tracker)


def _merged(replayed: list[Finding], state: TrackerState) -> tuple[Finding, ...]:
    """The findings of the captions replayed when the task was named that still stand (a step
    found skipped and still not done), then this caption's own."""
    still = {state.text_of(sid) for sid in state.missing}
    out = [f for f in replayed if f.kind != PREREQUISITE or still.intersection(f.missing)]
    seen = {(f.kind, f.step_id) for f in state.findings}
    return (*(f for f in out if (f.kind, f.step_id) not in seen), *state.findings)


_ASKING = frozenset({"what", "what's", "whats", "how", "which", "now"})
_ABOUT = frozenset({"on", "with", "for", "in", "of"})
_CHECKING = frozenset({"did", "have", "has", "am", "is", "how"})
_THE = frozenset({"the", "my", "this", "that", "these", "those"})
# "did I wash them just now", "up to now": a time said, not "now what?"
_TIMED = frozenset({"just", "right", "by", "until", "till", "to", "for", "from", "since"})


def _asked_parts(question: str) -> list[str]:
    """The question, then what it asks after what the wearer tells first: "ok the egg's out of the
    microwave, what now" asks "what now", "the oil's in, how far along am I" "how far along am I"."""
    words = re.sub(r"[^\w' ]+", " ", question.lower()).split()
    whole = " ".join(question.strip().lower().split())
    starts = [
        i
        for i, w in enumerate(words)
        if w in _ASKING
        and i >= 2
        and words[i - 1] not in _ASKING
        and not (w == "now" and words[i - 1] in _TIMED)
    ]
    # "did I skip anything on the mug pizza": the task it is about, said last, asks nothing more;
    # "what did I do with the muffin" asks about the muffin
    about = [i for i in range(3, len(words) - 1) if words[i] in _ABOUT and words[i + 1] in _THE]
    about = about if words and words[0] in _CHECKING else []
    return [
        whole,
        *(" ".join(words[i:]) for i in starts[-2:]),
        *(" ".join(words[: about[-1]]) for _ in about[-1:]),
    ]
