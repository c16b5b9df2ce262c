"""Procedure questions: "what's next?", "did I skip anything?", "what did I miss?", "how far am
I?" and "which recipe was I making?", answered by the step tracker in every path.

Live, the assistant's tracker has read every caption as it came (`runtime/steps/questions.py`
asks it). Over a store (`edge-assist ask`, `eval qa`, a question asked after a replay's end)
the same tracker is replayed over the captions of the session that ended by the time asked
about, in order, with the task the stream or the config names (recognised from the captions,
as live, when nothing names one). The answer is then the one live would have given at that
moment. Caption vectors come from memory (the encoder that wrote them is the tracker's), so
a replay costs the tracker's arithmetic only; successive questions over one session (a
benchmark asks in time order) feed only the captions that are new.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from edge_assist.answers import what_i_saw
from edge_assist.answers.at_time import named_time
from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.answer_text import names_past_day
from edge_assist.retrieval.api import CaptionRecord
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.findings import TrackerState
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.model import Task
from edge_assist.tasks.question_kinds import QuestionKinds
from edge_assist.tasks.session import INTENT_MARGIN, INTENTS, TaskSession
from edge_assist.tasks.vector_cache import VectorCache

# "Which recipe was I making?": matched like the tracker's intents, by encoder cosine to
# these phrasings. Measured on MiniLM: task questions 0.68-0.95; memory questions at most
# 0.43, except a past day's ("what did I cook yesterday?", 0.69), which goes to day recall:
# a question in the simple past ("did I") or naming a past day is never this one.
TASK_PHRASES = (
    "which recipe am I making",
    "what recipe was I making",
    "what am I cooking",
    "which task am I doing",
    "what task was I working on",
    "what dish is this",
)
TASK_MIN_COS = 0.65
# "which drink was I making here?", "what dish are we cooking?": the task asked by what it makes
_TASK_FORM = re.compile(
    r"^(?:so\s+|and\s+|remind\s+me\s+)?(?:which|what)\s+(?:recipe|dish|drink|meal|food|snack|task|job|project)"
    r"\s+(?:am|was|were|are|is)\s+(?:i|we|this)(?:\s+(?:making|cooking|preparing|doing|fixing|following"
    r"|working\s+on|putting\s+together))?(?:\s+(?:here|now|today|again|right\s+now))?[?.!]*$"
    # "what was I baking?", "what were we cooking today?": what was made, no noun for it
    r"|^(?:so\s+|and\s+|remind\s+me\s+)?what\s+(?:am|was|were|are)\s+(?:i|we)\s+(?:making|cooking|baking"
    r"|preparing|frying|fixing|getting\s+ready|whipping\s+up|rustling\s+up|putting\s+together)"
    r"(?:\s+(?:here|now|today|again|right\s+now|earlier|in\s+the\s+kitchen"
    r"|for\s+(?:breakfast|lunch|dinner|supper|tea)))?[?.!]*$"
)
# "which pattern am I knitting now?", "what am I fixing on the car right now?", "remind me what job
# I'm on right now": which task is under way, asked of the present by what the wearer is doing.
_TASK_NOW = re.compile(
    r"\b(?:which|what)\b(?:\s+[a-z']+){0,4}?\s+(?:am\s+i|i\s+am|i'm|are\s+we|we\s+are|we're)\s+"
    r"(?:(?:actually|currently|still|now)\s+)?(?:[a-z]+ing|on)\b(?:\s+[a-z']+){0,4}?\s+"
    r"(?:right\s+now|now|at\s+the\s+moment|currently|just\s+now)\b"
)
# ...but not the next step asked of the present ("what am I supposed to do now?", "which step am I
# on now?").
_NOT_TASK = re.compile(
    r"\b(?:supposed|meant|should|next|step|steps|left|wrong|do\s+now|doing\s+with|using|holding|wearing"
    r"|carrying|looking|eating|drinking|touching)\b"
)


def asks_task_now(question: str) -> bool:
    """Whether the question asks which task is under way by what the wearer is doing now."""
    q = " ".join(question.lower().replace("’", "'").split())
    return bool(_TASK_NOW.search(q)) and not _NOT_TASK.search(q) and not re.search(r"\bdid\b", q)


NO_TASK_YET = "I don't know which task you are doing yet."


async def task_title_answer(session: TaskSession, session_id: str, question: str) -> str:
    """Which task the tracker follows, as the wearer hears it."""
    task = session.current_task
    if task is None:
        # Whether recognition has read enough to say no task is under way: the tracker's words.
        told = await session.answer(session_id, INTENTS["progress"][0])
        return told or NO_TASK_YET
    verb = "making" if re.search(r"\b(?:mak|cook|prepar|bak|recipe|dish)", question.lower()) else "doing"
    return f"You were {verb} {task.title}."


class TaskQuestion:
    """Tells "which recipe was I making?" from other questions."""

    def __init__(self, vectors: VectorCache) -> None:
        self.vectors = vectors
        self._vecs: dict[str, np.ndarray] | None = None

    def asks_task(self, question: str) -> bool:
        """Blocking (encodes the question once)."""
        q = " ".join(question.strip().lower().split())
        if re.search(r"\bdid\b", q) or names_past_day(q):
            return False
        if _TASK_FORM.match(q):
            return True
        if self._vecs is None:
            self._vecs = {k: self.vectors.get(list(v)) for k, v in INTENTS.items()}
            self._vecs["task"] = self.vectors.get(list(TASK_PHRASES))
        v = self.vectors.get([q])[0]
        scores = {k: float((m @ v).max()) for k, m in self._vecs.items()}
        other = max(s for k, s in scores.items() if k != "task")
        if scores["task"] >= TASK_MIN_COS and scores["task"] - other >= INTENT_MARGIN:
            return True
        return QuestionKinds(self.vectors).read(q, in_conversation=False, among=("task",)).kind == "task"


class ProcedureQuestions:
    """Tells a procedure question from any other, and which one it is."""

    def __init__(self, probe: TaskSession) -> None:
        # A tracker of its own that never reads a caption: only its intents are asked.
        self.probe = probe
        self.task_question = TaskQuestion(probe.vectors)

    def asks(self, question: str) -> str | None:
        """An intent of the tracker's ("next", "missed", "progress"), "task", or None for any
        other question. Blocking."""
        if named_time(question) is not None:
            return None  # "what was I doing a minute in?" asks memory about that time
        if asks_task_now(question):
            return "task"  # "which dish am I cooking now?": "now" asks no next step
        intent = self.probe.intent(question)
        if intent is not None:
            return intent
        return "task" if self.task_question.asks_task(question) else None


@dataclass
class _Replay:
    key: tuple[str, str, str]  # session, task name, task context
    session: TaskSession
    before_t: float
    fed: int  # the last clip index fed
    count: int  # how many captions were fed


class ProcedureAnswers:
    """Procedure questions over what memory holds, by a replay of the tracker."""

    def __init__(self, tracker: TaskSession, encoder: TextEncoder, recall: Recall, clock: Clock) -> None:
        # The live tracker lends its library, vector cache and vector file; the replays are
        # trackers of their own, so a question asked over a store never moves the live one.
        self.library: TaskLibrary = tracker.library
        self.vectors = tracker.vectors
        self.vector_file = tracker.vector_file
        self.params = tracker.params
        self.encoder = encoder
        self.recall = recall
        self.clock = clock
        self.questions = ProcedureQuestions(self._new_session())
        self.kinds = QuestionKinds(self.vectors)
        self._replay: _Replay | None = None
        self._warm: set[tuple[str, str]] = set()

    def _new_session(self) -> TaskSession:
        s = TaskSession(self.library, self.encoder, self.clock, self.params)
        s.vectors = self.vectors
        s.vector_file = self.vector_file
        return s

    async def kind(self, question: str) -> str | None:
        """ "tracker" for what the tracker answers, "task" for which task it is, else None."""
        asked = await self.clock.run_blocking(self.questions.asks, question)
        return None if asked is None else "task" if asked == "task" else "tracker"

    async def answer(
        self,
        question: str,
        *,
        session_id: str | None,
        before_t: float,
        task: str = "",
        task_context: str = "",
    ) -> tuple[str, dict[str, object]] | None:
        """The tracker's answer as at `before_t` and what it rests on, or None when `question`
        is not a procedure question."""
        kind = await self.kind(question)
        if kind is None:
            return None
        if session_id is None:
            return NO_TASK_YET, {"kind": kind, "replayed": 0}
        session, n = await self._replayed(session_id, before_t, task, task_context)
        if kind == "tracker":
            told = await session.answer(session_id, question)
            text = told if told is not None else NO_TASK_YET
        elif session.current_task is None and (seen := await self._seen(session_id, before_t)) is not None:
            text = seen  # no task the library knows: what memory shows the wearer doing
        else:
            text = await task_title_answer(session, session_id, question)
        current = session.current_task
        trace: dict[str, object] = {
            "kind": kind,
            "replayed": n,
            "task": current.name if current is not None else "",
            "task_source": session.last.source if session.last is not None else "",
        }
        return text, trace

    async def _seen(self, session_id: str, before_t: float) -> str | None:
        clips, _ = await self.clock.run_blocking(self.recall.clips_in_period, session_id, -math.inf, before_t)
        return what_i_saw.told([c for c in clips if c.t1 <= before_t + 1e-6])

    async def steps(
        self, session_id: str, before_t: float, task: str = "", task_context: str = ""
    ) -> tuple[Task, TrackerState] | None:
        """The task the replayed tracker follows as at `before_t` and its state, or None when it
        follows none."""
        session, _ = await self._replayed(session_id, before_t, task, task_context)
        current = session.current_task
        if current is None or session.last is None:
            return None
        return current, session.last.state

    async def _replayed(
        self, session_id: str, before_t: float, task: str, task_context: str
    ) -> tuple[TaskSession, int]:
        """The tracker after the session's captions that ended by `before_t`, and how many it read."""
        key = (session_id, task, task_context)
        clips, vecs = await self.clock.run_blocking(
            self.recall.clips_in_period, session_id, -math.inf, before_t
        )
        keep = [i for i, c in enumerate(clips) if c.t1 <= before_t + 1e-6]
        clips = [clips[i] for i in keep]
        if len(keep):
            self.vectors.add([c.text for c in clips], np.asarray(vecs)[keep])
        r = self._replay
        if r is None or r.key != key or before_t < r.before_t or _passed_over(clips, r):
            r = _Replay(key, self._new_session(), before_t, -1, 0)
            if (task, task_context) not in self._warm:
                # The steps' vectors (all the library's when recognition must name the task),
                # from the vector file when there is one, as live before its first caption.
                await self.clock.run_blocking(r.session.warm, task, task_context)
                self._warm.add((task, task_context))
        new = [c for c in clips if c.clip_index > r.fed]
        if new:
            last = new[-1]
            await r.session.observe(
                session_id,
                last.text,
                task_name=task,
                task_context=task_context,
                index=last.clip_index,
                earlier=tuple((c.clip_index, c.text) for c in new[:-1]),
            )
            r.fed, r.count = last.clip_index, r.count + len(new)
        r.before_t = before_t
        self._replay = r
        return r.session, len(clips)


def _passed_over(clips: list[CaptionRecord], r: _Replay) -> bool:
    """Memory now holds a caption before the replay's last that it never read (written late)."""
    return sum(1 for c in clips if c.clip_index <= r.fed) != r.count
