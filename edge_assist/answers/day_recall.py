"""What the wearer did in a span of days they name: "What did I cook yesterday evening?"

A question like this names no object to look up: no single caption answers it, and the
summaries a small model writes are not something to repeat as fact. The task recognizer
(tasks/recognition.py), the one that picks up a recipe live, is run again over the clips
memory holds from that window, with the vectors stored for them; each task it names for at
least `MIN_CLIPS` clips, with the local time it began, is the answer: "Yesterday evening
you made scrambled eggs (at 18:05) and tomato chutney (at 18:40)." (the `MAX_SAID` longest,
the others counted). Clips from then with no task the library knows, and no clips from then
at all, are each said as such.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from edge_assist.answers.answer_record import GroundedAnswer
from edge_assist.answers.periods import Period, find_period
from edge_assist.clock import Clock
from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.retrieval.when import SessionAges
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.recognition import RecognitionParams, TaskRecognizer
from edge_assist.tasks.vector_cache import VectorCache
from edge_assist.text.stop_words import PERIOD_FILLER

_ACTIVITY = re.compile(
    r"^(?:what|which \w+) (?:did|have) i (?:cook|make|prepare|bake|do|fix|repair|build|assemble|work "
    r"on|eat|have)\b"
)
MAX_SESSION_S = 24 * 3600.0  # a session that began this long before the window cannot reach into it
MIN_CLIPS = 6  # fewer clips (a minute of 10-s clips) of a task is a passing likeness, not the task done
MAX_SAID = 4  # tasks an answer names (the longest ones); the rest are counted


def asks_what_was_done(question: str) -> bool:
    """ "What did I cook/make/do ...": the cheap first test, before memory is read for the time."""
    return _ACTIVITY.match(" ".join(question.lower().split())) is not None


def activity_period(question: str, now_wall: float, tz: dt.tzinfo | None = None) -> Period | None:
    """The window of a "what did I cook/make/do <period>" question; None for any other question
    (one that names a thing, "what did I do with the knife yesterday", is a moment to look up)."""
    q = " ".join(question.lower().split()).rstrip("?.! ")
    m = _ACTIVITY.match(q)
    if m is None:
        return None
    period = find_period(q, now_wall, tz)
    if period is None:
        return None
    rest = q[m.end() :].replace(period.phrase, " ")
    return period if not [w for w in re.findall(r"[a-z']+", rest) if w not in PERIOD_FILLER] else None


@dataclass
class DoneTask:
    name: str
    title: str
    kind: str
    session_id: str
    clip_index: int  # the first clip of it
    t0: float
    t1: float
    text: str
    start_wall: float
    clips: int


def tasks_done(
    recall: Recall,
    library: TaskLibrary,
    vectors: VectorCache,
    period: Period,
    params: RecognitionParams | None = None,
) -> tuple[list[DoneTask], int]:
    """The tasks done in the window, in time order, and how many clips memory holds from it. Blocking."""
    done: list[DoneTask] = []
    seen = 0
    tasks = library.tasks()
    if not tasks:
        return [], 0
    for sid, w0 in recall.session_starts().items():
        if w0 >= period.end or w0 + MAX_SESSION_S <= period.start:
            continue
        records, mat = recall.clips_in_period(sid, period.start - w0, period.end - w0)
        seen += len(records)
        recognizer = TaskRecognizer(tasks, vectors, params)
        window = recognizer.p.window
        current: DoneTask | None = None
        boundary = 0  # where the task before ended: a new one cannot have begun earlier
        for i, vec in enumerate(np.asarray(mat, np.float32)):
            got = recognizer.observe(vec)
            if got.switched:
                if current is not None:
                    done.append(current)
                current = None
                if got.task:
                    # Named only once the last `window` clips agreed: it began at the first of them.
                    begun = max(boundary, i - window + 1)
                    first = records[begun]
                    task = library.get(got.task)
                    current = DoneTask(
                        got.task,
                        task.title if task else got.task,
                        task.kind if task else "",
                        sid,
                        first.clip_index,
                        first.t0,
                        first.t1,
                        first.text,
                        w0 + first.t0,
                        i - begun + 1,
                    )
                boundary = i + 1
            elif current is not None:
                current.clips += 1
        if current is not None:
            done.append(current)
    merged: list[DoneTask] = []
    for d in sorted((d for d in done if d.clips >= MIN_CLIPS), key=lambda d: d.start_wall):
        if merged and merged[-1].name == d.name:  # the same task again after a short detour
            merged[-1].clips += d.clips
        else:
            merged.append(d)
    return merged, seen


def _clock(wall: float, tz: dt.tzinfo | None) -> str:
    t = dt.datetime.fromtimestamp(wall, tz) if tz is not None else dt.datetime.fromtimestamp(wall)
    return t.strftime("%H:%M")


def _lower_first(title: str) -> str:
    # "Scrambled eggs" -> "scrambled eggs"; "Microwave French toast" keeps "French".
    return title[:1].lower() + title[1:] if title[1:2].islower() or len(title) == 1 else title


def _did(d: DoneTask) -> str:
    if d.kind == "recipe":
        return f"made {_lower_first(d.title)}"
    said = answer_text.second_person(d.title)  # "Change a bicycle inner tube" -> "you changed a ..."
    return said.removeprefix("you ") if said else f'worked on "{d.title}"'


def said_tasks(done: list[DoneTask]) -> list[list[DoneTask]]:
    """The tasks an answer names: the `MAX_SAID` that took longest (all their times), in time order."""
    by_name: dict[str, list[DoneTask]] = {}
    for d in done:
        by_name.setdefault(d.name, []).append(d)
    longest = sorted(by_name.values(), key=lambda ds: -sum(d.clips for d in ds))[:MAX_SAID]
    return sorted(longest, key=lambda ds: ds[0].start_wall)


def compose(period: Period, done: list[DoneTask], seen: int, tz: dt.tzinfo | None = None) -> str:
    label = period.label[:1].upper() + period.label[1:]
    if not done:
        if not seen:
            return f"I don't remember anything from {period.label.removeprefix('on ')}."
        return (
            f"I don't remember what you did {period.label}: the {seen} clips I remember from then "
            "are of no task I know."
        )
    said = said_tasks(done)
    parts = []
    for i, ds in enumerate(said):
        did = _did(ds[0])
        if i and ds[0].kind == "recipe" and said[i - 1][0].kind == "recipe":
            did = did.removeprefix("made ")  # "you made A and B", not "made A and made B"
        times = [_clock(d.start_wall, tz) for d in ds]
        at = times[0] if len(times) == 1 else ", ".join(times[:-1]) + " and " + times[-1]
        parts.append(f"{did} (at {at})")
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    more = len({d.name for d in done}) - len(said)
    return f"{label} you {listed}" + (
        f"; and {more} shorter task{'s' if more > 1 else ''} besides." if more else "."
    )


def as_moment(d: DoneTask, note: str) -> Moment:
    """The first clip of the task, as the moment the answer cites."""
    return Moment(d.session_id, d.clip_index, d.t0, d.t1, d.text, 1.0, note)


async def answer(
    recall: Recall,
    clock: Clock,
    tasks: Callable[[], tuple[TaskLibrary, VectorCache]],
    question: str,
    before_t: float,
    session_id: str | None,
    started: float,
    trace: dict[str, Any],
) -> GroundedAnswer | None:
    """What the wearer did in a span of days they name, or None for any other question."""
    if not asks_what_was_done(question):
        return None
    starts = await clock.run_blocking(recall.session_starts)
    ages = SessionAges(starts, session_id, before_t)
    period = activity_period(question, ages.now_abs)
    if period is None:
        return None
    library, vectors = tasks()
    t = time.perf_counter()
    done, seen = await clock.run_blocking(tasks_done, recall, library, vectors, period)
    text = compose(period, done, seen)
    trace.update(
        kind="period",
        outcome="tasks recognised" if done else "no task recognised",
        period={
            "label": period.label,
            "start_wall": period.start,
            "end_wall": period.end,
            "clips": seen,
            "tasks": [[d.name, d.session_id, d.clip_index, d.clips] for d in done],
        },
        composed=text,
    )
    first = said_tasks(done)[0][0] if done else None
    moment = as_moment(first, ages.note(first.session_id, first.t0)) if first else None
    timings = {"period": time.perf_counter() - t, "total": time.perf_counter() - started}
    return GroundedAnswer(text, "period", moment, moment, None, [], timings, trace)
