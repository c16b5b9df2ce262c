"""Schemas and the parsing of model answers (no model needed)."""

from __future__ import annotations

import pytest

from edge_assist.events import MainType, SubType
from edge_assist.reasoning import prompts, schemas


def test_fields_sort_in_the_order_the_model_must_write_them() -> None:
    # The grammar builder sorts property names: reasoning fields must still come first.
    for schema, first in (
        (schemas.pass1_schema(), ["observation", "problem", "reply"]),
        (schemas.pass2_schema(must_answer=False), ["facts", "reply"]),
        (schemas.query_pass1_schema(), ["facts", "reply"]),
        (schemas.sufficiency_schema(), ["facts", "is_enough", "the_answer"]),
        (schemas.answer_schema(("a", "b")), ["facts", "the_answer"]),
    ):
        names = sorted(schema["properties"])
        assert names[: len(first)] == first
        assert list(schema["properties"]) == names  # declared in the written order too
        assert set(schema["required"]) == set(names)


def test_pass1_offers_only_services_the_present_can_support() -> None:
    allowed = set(schemas.pass1_schema()["properties"]["service"]["enum"]) - {"none"}
    assert {"SA", "TU"} <= allowed
    assert all(SubType(s).main_type in (MainType.INSTANT, MainType.SHORT_TERM) for s in allowed)
    assert set(schemas.pass2_schema(must_answer=False)["properties"]["service"]["enum"]) == {"none"} | {
        s.value for s in SubType
    }
    assert schemas.pass2_schema(must_answer=True)["properties"]["reply"]["enum"] == ["respond"]


def _p1(**kw: str) -> dict[str, str]:
    base = {
        "observation": "cuts bread",
        "problem": "",
        "reply": "silent",
        "say": "",
        "search_query": "",
        "service": "none",
    }
    return {**base, **kw}


def test_parse_pass1_three_actions() -> None:
    assert schemas.parse_pass1(_p1()).action == "silent"
    r = schemas.parse_pass1(
        _p1(reply="respond", say="Careful,  the knife.", service="SA", problem="knife near hand")
    )
    assert (r.action, r.sub_type, r.text, r.why) == (
        "respond",
        SubType.SAFETY,
        "Careful, the knife.",
        "knife near hand",
    )
    s = schemas.parse_pass1(_p1(reply="search", search_query="where did I put the salt"))
    assert (s.action, s.query) == ("search", "where did I put the salt")


def test_parse_pass1_unusable_answers() -> None:
    # Respond without a service or without words is no decision: silent, with the reason.
    r = schemas.parse_pass1(_p1(reply="respond", say="hello", service="none"))
    assert r.action == "silent" and "sub_type" in r.why
    assert schemas.parse_pass1(_p1(reply="respond", say="", service="NSG")).action == "silent"
    # Fields that echo a field name or an enum word are empty (a tiny model's habit).
    echo = schemas.parse_pass1(_p1(reply="search", search_query="search_query", say="says"))
    assert echo.action == "search" and echo.query == "cuts bread"  # falls back to the observation
    assert schemas.parse_pass1(_p1(reply="respond", say="says", service="SA")).action == "silent"
    assert (
        schemas.parse_pass1(_p1(reply="respond", say="Careful!", service="SA")).action == "silent"
    )  # one word
    with pytest.raises(schemas.AnswerFormatError):
        schemas.parse_pass1(_p1(reply="shout"))
    with pytest.raises(schemas.AnswerFormatError):
        schemas.parse_pass1(_p1(reply="respond", say="x", service="XX"))


def test_parse_pass2_and_question_answers() -> None:
    raw = {
        "facts": "salt at 1:20",
        "reply": "respond",
        "say": "The salt is by the stove.",
        "service": "Memory Recall",
    }
    p = schemas.parse_pass2(raw, must_answer=False)
    assert p.speak and p.sub_type is SubType.MEMORY_RECALL
    assert not schemas.parse_pass2({**raw, "reply": "silent"}, must_answer=False).speak
    with pytest.raises(schemas.AnswerFormatError):
        schemas.parse_pass2({**raw, "say": ""}, must_answer=True)
    q = schemas.parse_query_pass1(
        {"facts": "", "reply": "search", "say": "", "search_query": ""}, "where is it?"
    )
    assert (q.action, q.query) == ("search", "where is it?")


def test_prompts_fit_a_small_context() -> None:
    long_task = "Recipe: x. Steps: " + "; ".join(f"step number {i} with several words" for i in range(200))
    recent = [(i * 10.0, i * 10.0 + 10, "a caption that is rather long " * 10) for i in range(60)]
    msgs = prompts.pass1_messages(
        task=long_task, activity_summary="s " * 500, recent=recent, now=(600, 610, "now " * 200)
    )
    total = sum(len(m["content"]) for m in msgs)
    assert total < 6000  # about 1500 tokens: room for the answer in 2048
    assert msgs[-1]["content"].endswith(prompts.clip("now " * 200, prompts.LINE_CHARS))
    assert prompts.clip_time(61.4, 125.6) == "1:01-2:06"
