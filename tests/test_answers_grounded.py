"""Grounded answers on the real offline models (SmolLM2-135M, MiniLM) over a small real
memory (the first demo captions, one planted in the future), an empty memory, and the
faithfulness check of a rephrased answer (a scripted server at the network edge says
what a real model cannot be made to say on demand)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from edge_assist.answers.grounding import check_faithful
from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.events import UserQuery
from edge_assist.inference.base import LLM, ImageEncoder, TextEncoder
from edge_assist.inference.remote import RemoteLLM
from edge_assist.memory.memory import Memory
from edge_assist.reasoning.answer_text import DONT_REMEMBER
from edge_assist.reasoning.api import StepContext
from edge_assist.runtime.assistant import build_assistant
from tests.assistant_memory import FUTURE_T0, Built, built_memory
from tests.fakes import ChatServer

pytestmark = pytest.mark.slow
MUFFIN = "At 0:41 you cut the English muffin into two pieces with a knife."


@pytest.fixture(scope="module")
def mem(
    tmp_path_factory: pytest.TempPathFactory, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> Built:
    return built_memory(tmp_path_factory.mktemp("grounded-memory"), llm, text_encoder, image_encoder)


async def test_answers_rest_on_the_moment_that_answers(
    mem: Built, llm: LLM, text_encoder: TextEncoder
) -> None:
    a = build_assistant(mem.cfg, llm, text_encoder, mem.memory, clock=RealClock())
    sid, now = mem.captions[0].session_id, mem.captions[-1].t1
    ans = await a.answer("what did I do with the English muffin?", before_t=now, session_id=sid)
    assert ans.text == MUFFIN and ans.stage == "moments"
    assert [c.clip_index for c in ans.context.clips] == [1] and ans.citation == "seen at 0:41-1:23"
    when = await a.answer("When did I stir the ramekin cup?", before_t=now, session_id=sid)
    assert when.text == "At 2:30 you stirred ramekin cup with knife."
    after = await a.answer(
        "What did I do right after I poured the egg into the ramekin cup?", before_t=now, session_id=sid
    )
    assert after.text == "Right after that: " + MUFFIN[0].lower() + MUFFIN[1:]
    yes = await a.answer("Did I cut the English muffin?", before_t=now, session_id=sid)
    assert yes.text == "Yes. " + MUFFIN
    # memory covers the session and names no bacon: the No is earned and tells what was seen
    no = await a.answer("Did I fry the bacon?", before_t=now, session_id=sid)
    assert no.text.startswith("No: at ") and no.text.endswith("but I didn't see you fry the bacon.")
    assert no.context.clips == []
    mc = await a.answer(
        "What did I cut the English muffin with?",
        choices=("a spoon", "a knife", "a fork"),
        before_t=now,
        session_id=sid,
    )
    assert mc.choice == "a knife" and mc.text == "a knife" and mc.trace["evidence"] == MUFFIN


async def test_nothing_after_now_is_told(mem: Built, llm: LLM, text_encoder: TextEncoder) -> None:
    a = build_assistant(mem.cfg, llm, text_encoder, mem.memory, clock=RealClock())
    q = "Where did I put the zebra-striped thermos?"
    sid = mem.captions[0].session_id
    assert (await a.answer(q, before_t=FUTURE_T0 - 1, session_id=sid)).text == DONT_REMEMBER
    later = await a.answer(q, before_t=math.inf, session_id=sid)
    assert later.text == "At 15:00 you put the zebra-striped thermos on the windowsill."


async def test_a_question_asked_during_a_replay_gets_a_grounded_answer(
    mem: Built, llm: LLM, text_encoder: TextEncoder
) -> None:
    a = build_assistant(mem.cfg, llm, text_encoder, mem.memory, clock=RealClock())
    cap = mem.captions[3]
    ctx = StepContext(
        session_id=cap.session_id,
        caption=cap,
        recent=tuple(mem.captions[:3]),
        query=UserQuery(t=cap.t1, text="what did I do with the English muffin?", stream_t=cap.t1),
    )
    d = await a.step(ctx)
    assert d.speak and d.trigger == "query" and d.text == MUFFIN
    assert d.trace["answer"]["cited_clips"] == [[cap.session_id, 1, 40.8, 83.39]]


async def test_an_empty_memory_invents_nothing(tmp_path: Path, llm: LLM, text_encoder: TextEncoder) -> None:
    cfg = Config().replace(**{"general.data_dir": str(tmp_path), "general.wearer": "nobody"})
    memory = Memory.open(cfg, llm, text_encoder, None)
    try:
        a = build_assistant(cfg, llm, text_encoder, memory, clock=RealClock())
        for q in (
            "what did I cook?",
            "When did I cut the English muffin?",
            "What did I do right after breakfast?",
        ):
            assert (await a.answer(q)).text == DONT_REMEMBER
        assert (await a.answer("did I lock the door?")).text == DONT_REMEMBER  # no memory: no "No"
        mc = await a.answer("what did I pour?", choices=("an egg", "milk"))
        assert mc.choice is None and mc.text == DONT_REMEMBER
    finally:
        memory.close()


def test_the_faithfulness_check(text_encoder: TextEncoder) -> None:
    evidence = ["Cut the English muffin into two pieces with a knife"]
    ok = check_faithful(
        text_encoder, MUFFIN, "At 0:41 you cut the English muffin in two pieces with a knife.", evidence
    )
    assert ok.ok, ok.reason()
    invented = check_faithful(
        text_encoder, MUFFIN, "At 0:41 you buttered the English muffin and toasted it.", evidence
    )
    assert not invented.ok and {"butter", "toast"} <= set(invented.new_words)
    off = check_faithful(text_encoder, MUFFIN, "You did something in the kitchen.", evidence)
    assert not off.ok and off.cosine < 0.8


async def test_an_unfaithful_rephrasing_is_not_said(
    mem: Built,
    server: ChatServer,
    text_encoder: TextEncoder,
) -> None:
    rephrasings = iter(
        [
            "At 0:41 you buttered the English muffin and toasted it.",
            "At 0:41 you cut the English muffin in two pieces with a knife.",
        ]
    )

    def reply(body: dict[str, Any]) -> str:
        props = body["response_format"]["json_schema"]["schema"]["properties"]
        if "moment" in props:
            return json.dumps({"moment": "1"})
        return json.dumps({"sentence": next(rephrasings)})

    server.reply = reply
    cfg = mem.cfg.replace(
        **{
            "models.backend": "remote",
            "remote.base_url": server.url,
            "remote.retries": 0,
            "remote.timeout_s": 20.0,
            "reasoner.answer_rephrase": True,
        }
    )
    a = build_assistant(cfg, RemoteLLM(cfg.remote), text_encoder, mem.memory, clock=RealClock())
    sid, now = mem.captions[0].session_id, mem.captions[-1].t1
    # a question one moment answers: "what did I do with it?" is told act by act, from captions
    first = await a.answer("when did I cut the English muffin?", before_t=now, session_id=sid)
    assert first.text == MUFFIN and first.trace["rephrase"]["check"].startswith("unfaithful")
    second = await a.answer("when did I cut the English muffin?", before_t=now, session_id=sid)
    assert second.text == "At 0:41 you cut the English muffin in two pieces with a knife."
    assert second.trace["rephrase"]["check"].startswith("faithful")
