""" "What did I cook yesterday evening?": the window a question names, and the tasks the
recognizer finds again in memory's clips from it. Real store (sqlite-vec), real MiniLM, the
bundled task library."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import cast

import pytest

from edge_assist.answers.day_recall import activity_period
from edge_assist.answers.grounded import GroundedAnswerer
from edge_assist.answers.periods import Period, find_period
from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.events import Caption
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.memory.memory import Memory
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.library import TaskLibrary
from tests.assistant_memory import demo_stream

UTC = dt.timezone.utc
WED_1930 = dt.datetime(2026, 1, 7, 19, 30, tzinfo=UTC).timestamp()


def _at(p: Period | None) -> tuple[str, str, str]:
    assert p is not None
    fmt = "%a %H:%M"
    return (
        p.label,
        dt.datetime.fromtimestamp(p.start, UTC).strftime(fmt),
        dt.datetime.fromtimestamp(p.end, UTC).strftime(fmt),
    )


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("What did I cook yesterday evening?", ("yesterday evening", "Tue 17:00", "Wed 00:00")),
        ("what did I make this morning", ("this morning", "Wed 05:00", "Wed 12:00")),
        ("What did I eat last night?", ("last night", "Tue 17:00", "Wed 05:00")),
        ("What did I cook tonight?", ("tonight", "Wed 17:00", "Wed 19:30")),  # never past now
        ("what did I do yesterday?", ("yesterday", "Tue 00:00", "Wed 00:00")),
        ("What did I cook on Monday?", ("on Monday", "Mon 00:00", "Tue 00:00")),
        ("what did I make 3 days ago", ("3 days ago", "Sun 00:00", "Mon 00:00")),
        ("What did I do today?", ("today", "Wed 00:00", "Wed 19:30")),
    ],
)
def test_a_named_period_is_a_local_time_window(question: str, window: tuple[str, str, str]) -> None:
    assert _at(find_period(question, WED_1930, UTC)) == window


@pytest.mark.parametrize(
    "question",
    [
        "What did I do with this bowl?",  # "this" names a thing, not a time
        "What did I do with the knife yesterday?",  # a thing to look up, not what was done
        "Where did I put the keys yesterday evening?",
        "What did I cook?",  # no period
        "What did I cook this afternoon?",  # asked at 09:00: the afternoon has not begun
    ],
)
def test_other_questions_are_not_period_questions(question: str) -> None:
    nine = dt.datetime(2026, 1, 7, 9, 0, tzinfo=UTC).timestamp()
    assert activity_period(question, nine, UTC) is None


def _local(day: int, hour: int, minute: int = 0) -> float:
    # Local time, as the answerer reads it (the device's time zone).
    return dt.datetime(2026, 1, day, hour, minute).timestamp()


@pytest.mark.slow
async def test_what_was_cooked_yesterday_evening_comes_from_the_recognised_tasks(
    tmp_path: Path, text_encoder: TextEncoder
) -> None:
    cfg = Config().replace(**{"general.data_dir": str(tmp_path), "memory.extract_entities": False})
    lib = TaskLibrary.load()
    chutney = [s.text for s in lib.get("tomatochutney").steps]  # type: ignore[union-attr]
    _, sandwich = demo_stream()  # a real recording's captions: the microwave egg sandwich
    days = {
        # Tuesday evening: the sandwich from 18:10, then the chutney from 19:00 (another session)
        "tue-evening-1": (_local(6, 18, 10), [c.text for c in sandwich]),
        "tue-evening-2": (_local(6, 19, 0), chutney),
        # Tuesday morning: the chutney, outside the evening window
        "tue-morning": (_local(6, 8, 0), chutney),
        # Wednesday: now
        "wed": (_local(7, 19, 0), ["I put the keys in the blue bowl", "I water the plants"]),
    }
    with Memory.open(cfg, None, text_encoder) as mem:
        for sid, (wall, texts) in sorted(days.items(), key=lambda kv: kv[1][0]):
            mem.store.wall = lambda w=wall: w  # type: ignore[misc]
            for i, text in enumerate(texts):
                mem.store_caption(Caption(10.0 * i + 10, sid, i, 10.0 * i, 10.0 * i + 10, text))
        ga = GroundedAnswerer(cfg, cast(LLM, None), text_encoder, Recall(mem), clock=RealClock())
        ans = await ga.answer(
            "What did I cook yesterday evening?", before_t=20.0, session_id="wed", past_sessions=True
        )
        assert ans.text == (
            "Yesterday evening you made microwave egg sandwich (at 18:10) and tomato chutney (at 19:00)."
        ), ans.trace
        assert ans.moment is not None and ans.moment.session_id == "tue-evening-1" and ans.moment.note
        assert [t[0] for t in ans.trace["period"]["tasks"]] == ["microwaveeggsandwich", "tomatochutney"]
        morning = await ga.answer(
            "What did I make yesterday morning?", before_t=20.0, session_id="wed", past_sessions=True
        )
        assert morning.text == "Yesterday morning you made tomato chutney (at 08:00)."
        # Clips from then, none of a known task; and nothing from then at all.
        today = await ga.answer(
            "What did I do this evening?", before_t=20.0, session_id="wed", past_sessions=True
        )
        assert (
            today.text.startswith("I don't remember what you did this evening: the 2 clips")
            and today.moment is None
        )
        monday = await ga.answer(
            "What did I cook on Monday?", before_t=20.0, session_id="wed", past_sessions=True
        )
        assert monday.text == "I don't remember anything from Monday." and monday.moment is None


def test_tasks_other_than_recipes_are_told_with_their_own_verb() -> None:
    from edge_assist.answers.day_recall import DoneTask, compose

    def done(name: str, title: str, kind: str, hour: int) -> DoneTask:
        return DoneTask(name, title, kind, "s", 0, 0.0, 10.0, "x", _local(7, hour), 20)

    said = compose(
        Period("this morning", 0.0, 1.0, ""),
        [
            done("inner-tube", "Change a bicycle inner tube", "repair", 9),
            done("coffee", "Coffee", "recipe", 10),
            done("ramen", "Ramen", "recipe", 11),
            done("garage", "Declutter the garage", "chore", 12),
        ],
        80,
    )
    # a title whose first word is no verb we know is named as written
    assert said == (
        "This morning you changed a bicycle inner tube (at 09:00), made coffee (at 10:00), "
        'ramen (at 11:00) and worked on "Declutter the garage" (at 12:00).'
    )
