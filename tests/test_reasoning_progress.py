"""Task progress: recipe steps parsed from the task context and matched to captions."""

from __future__ import annotations

import pytest

from edge_assist.clock import RealClock
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.task_progress import TaskProgress, parse_steps
from tests.assistant_memory import demo_stream


def test_parse_steps_both_formats() -> None:
    head, steps = parse_steps("Recipe: tea. Steps: boil water; add the bag; pour")
    assert head == "Recipe: tea" and steps == ("boil water", "add the bag", "pour")
    head, steps = parse_steps("Recipe: tea. Steps in order: 1. boil water; 2. add the bag; 3. pour.")
    assert head == "Recipe: tea" and steps == ("boil water", "add the bag", "pour")
    assert parse_steps("1) cut\n2) fry\n- serve") == ("", ("cut", "fry", "serve"))
    assert parse_steps("Fix the bike")[1] == ()  # no list: the prompt shows the task text alone


@pytest.mark.slow
async def test_progress_on_a_real_recording(text_encoder: TextEncoder) -> None:
    meta, caps = demo_stream(4)
    tp = TaskProgress(text_encoder, RealClock())
    p = await tp.progress(meta["task_context"], [c.text for c in caps[:3]], caps[3].text)
    assert p is not None
    assert p.done[:3] == ("Pour 1 egg into the ramekin cup", "Cut the English muffin into two pieces with a knife",
                          "Microwave the ramekin cup uncovered on high for 30 seconds")
    assert p.now_step == "stir the ramekin cup" and p.now_cosine > 0.55  # "Stirred ramekin cup with knife"
    assert "Pour 1 egg into the ramekin cup" not in p.todo and len(p.done) + len(p.todo) == 12
    # Listed before "stir" in the demo's (unordered) list and not done yet.
    assert "Coat a 6-oz. ramekin cup with cooking spray" in p.skipped
    assert "Steps not done yet:" in p.prompt_text() and "NOW is like the step: stir the ramekin cup" in p.prompt_text()
    assert await tp.progress("no steps here", [], "anything") is None
