"""The assistant end to end on a real memory: SmolLM2 for reactive and offline answers
and a proactive replay; a scripted OpenAI-compatible server (the network edge) for the
cases a real model cannot be made to produce on demand: bad JSON, a search followed by a
response, policy suppression, a deferred search."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from edge_assist.cli import main as cli_main
from edge_assist.clock import RealClock
from edge_assist.events import Caption, SubType, UserQuery
from edge_assist.inference.base import LLM, ImageEncoder, TextEncoder
from edge_assist.inference.remote import RemoteLLM
from edge_assist.outputs.trace_format import read_traces, render, write_trace
from edge_assist.reasoning.api import StepContext
from edge_assist.retrieval.api import SearchPlan
from edge_assist.runtime.assistant import EgoMemoAssistant, build_assistant
from edge_assist.runtime.scheduler import GrantedGate
from tests.assistant_memory import Built, built_memory
from tests.fakes import ChatServer, Reply, kind_of

pytestmark = pytest.mark.slow
TIME = re.compile(r"\d+:\d\d-\d+:\d\d")


@pytest.fixture(scope="module")
def mem(
    tmp_path_factory: pytest.TempPathFactory, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> Built:
    return built_memory(tmp_path_factory.mktemp("assistant-memory"), llm, text_encoder, image_encoder)


def ctx_at(b: Built, i: int, query: str | None = None) -> StepContext:
    cap = b.captions[i]
    return StepContext(
        session_id=cap.session_id,
        caption=cap,
        recent=tuple(b.captions[max(0, i - 4) : i]),
        task_context=b.meta["task_context"],
        query=UserQuery(t=cap.t1, text=query, stream_t=cap.t1) if query else None,
    )


# -- the real model ------------------------------------------------------------------------
@pytest.mark.heavy
async def test_free_reactive_answer_cites_clip_times(
    mem: Built, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> None:
    # The free-writing path, kept as `reasoner.answerer = "free"` (eval qa compares it).
    free = mem.cfg.replace(**{"reasoner.answerer": "free"})
    a = build_assistant(free, llm, text_encoder, mem.memory, image_encoder=image_encoder, clock=RealClock())
    ctx = ctx_at(mem, 3, "What did I pour into the ramekin cup?")
    d = await a.step(ctx)
    assert d.speak and d.trigger == "query" and d.text
    times = TIME.findall(d.text)
    assert times, d.text
    # Every time cited belongs to something in memory that ended by now.
    cited = d.trace["retrieval"]["cited_clips"]
    assert cited and all(c[3] <= round(ctx.now_t, 2) + 0.005 for c in cited)  # traces round to 0.01 s
    assert {"pass2", "retrieval", "total"} <= set(d.timings_s)
    assert d.trace["pass1"]["skipped"]  # query_search = always: the question goes to memory first
    assert d.latency_s >= d.timings_s["pass2"]


@pytest.mark.heavy
async def test_offline_multiple_choice_returns_an_option(
    mem: Built, llm: LLM, text_encoder: TextEncoder
) -> None:
    grounded = build_assistant(mem.cfg, llm, text_encoder, mem.memory, clock=RealClock())
    g = await grounded.answer("What was poured into the ramekin cup?", choices=("an egg", "milk", "rice"))
    assert g.choice == "an egg" and g.stage == "moments" and TIME.search(g.citation)
    free_cfg = mem.cfg.replace(**{"reasoner.answerer": "free"})
    a = build_assistant(free_cfg, llm, text_encoder, mem.memory, clock=RealClock())
    choices = ("an egg", "milk", "rice")
    ans = await a.answer("What was poured into the ramekin cup?", choices=choices, before_t=math.inf)
    assert ans.choice in choices and ans.text == ans.choice
    assert ans.stage in ("summaries", "clips")
    assert ans.trace["coarse"].get("summaries")  # summaries were read first
    # With multi-scale memory off, there are no summaries to start from: clips only.
    flat = build_assistant(
        free_cfg.replace(**{"retrieval.multiscale": False}), llm, text_encoder, mem.memory, clock=RealClock()
    )
    ans2 = await flat.answer("What was poured into the ramekin cup?", choices=choices)
    assert ans2.stage == "clips" and "skipped" in ans2.trace["coarse"] and ans2.choice in choices
    assert TIME.search(ans2.citation)


@pytest.mark.heavy
async def test_proactive_replay_fills_timings_and_traces(
    mem: Built, llm: LLM, text_encoder: TextEncoder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The LLM decides here (the gate's own replay test is tests/test_gate_replay.py).
    a = build_assistant(
        mem.cfg.replace(**{"reasoner.decider": "llm"}), llm, text_encoder, mem.memory, clock=RealClock()
    )
    traces = tmp_path / "traces.jsonl"
    for i in range(len(mem.captions)):
        d = await a.step(ctx_at(mem, i))
        assert d.trigger == "proactive" and "pass1" in d.timings_s and d.trace["pass1"]["raw"] is not None
        assert d.trace["prompt_version"] and d.trace["task"]["step"]  # demo captions are recipe steps
        if d.speak:
            assert d.sub_type is not None and d.text
        write_trace(traces, d)
    recs = list(read_traces(traces))
    assert [r["decision"]["clip_index"] for r in recs] == list(range(len(mem.captions)))
    assert "pass 1" in render(recs[0])
    assert cli_main(["trace", "--file", str(traces), "--clip", "1", "--last", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("clip 1 [") and "pass 1" in out and "clip 0 [" not in out


def test_ask_command_over_a_caption_recording(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.assistant_memory import demo_stream

    meta, caps = demo_stream(2)
    rec = _jsonl(
        tmp_path / "rec.jsonl", [{"meta": meta}, *({"t0": c.t0, "t1": c.t1, "text": c.text} for c in caps)]
    )
    data = ["--set", f"general.data_dir={tmp_path / 'data'}", "--set", "general.wearer=ann"]
    # A caption stream is built into a temporary memory, then asked.
    argv = [
        "ask",
        "--recording",
        str(rec),
        "What did I cut with a knife?",
        "--choices",
        "the English muffin",
        "a tomato",
        "--json",
        *data,
    ]
    assert cli_main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["answer"] in ("the English muffin", "a tomato") and out["choice"] == out["answer"]
    assert TIME.search(out["citation"])
    # The wearer's live store: none yet is a one-line error; after an ingest it answers.
    assert cli_main(["ask", "What did I cut?", *data]) == 2
    assert "no memory for wearer 'ann'" in capsys.readouterr().err
    assert cli_main(["memory", "ingest", str(rec), *data]) == 0
    capsys.readouterr()
    assert cli_main(["ask", "What did I cut?", *data]) == 0
    live = capsys.readouterr().out.splitlines()
    assert live[0].strip() and TIME.search(live[1]), live
    # The same store named as a recording file, multiple choice.
    store = tmp_path / "data" / "ann.sqlite"
    assert cli_main(["ask", "--recording", str(store), "What did I pour?", "--choices", "an egg", "oil"]) == 0
    assert capsys.readouterr().out.splitlines()[0] in ("an egg", "oil")
    assert cli_main(["ask", "--recording", str(tmp_path / "missing.sqlite"), "q"]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert cli_main(["ask", "q", "--choices", "one", *data]) == 2
    assert "at least two" in capsys.readouterr().err
    _a_later_session_reaches_back(tmp_path, capsys, data, first=meta["session_id"])


def _jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def _a_later_session_reaches_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: list[str], *, first: str
) -> None:
    """A later session of the same wearer: asked now, it is today and the first one its past."""
    texts = ["You water the plants on the windowsill", "You fold the towels on the bed"]
    later = _jsonl(
        tmp_path / "later.jsonl",
        [{"t0": 10.0 * i, "t1": 10.0 * i + 10, "text": t} for i, t in enumerate(texts)],
    )
    assert cli_main(["memory", "ingest", str(later), "--session", "later", *data]) == 0
    capsys.readouterr()
    assert cli_main(["ask", "What did I cut with a knife?", "--json", *data]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["session"] == "later"
    assert out["clips"] and out["clips"][0][0] == first, out  # found in the earlier session
    assert re.match(r"\d+ min earlier you ", out["answer"]), out["answer"]  # and told with its age
    assert cli_main(["ask", "What did I cut with a knife?", "--only-session", "--json", *data]) == 0
    assert all(c[0] == "later" for c in json.loads(capsys.readouterr().out)["clips"])
    assert cli_main(["ask", "What did I cut with a knife?", "--session", first, "--json", *data]) == 0
    assert json.loads(capsys.readouterr().out)["clips"][0][0] == first
    assert cli_main(["ask", "q", "--session", "nope", *data]) == 2
    assert "no session 'nope'" in capsys.readouterr().err


# -- a scripted remote server --------------------------------------------------------------
def remote_assistant(b: Built, server: ChatServer, te: TextEncoder, **overrides: Any) -> EgoMemoAssistant:
    # These steps exercise the LLM's passes: it decides (the gate has its own tests).
    cfg = b.cfg.replace(
        **{
            "models.backend": "remote",
            "remote.base_url": server.url,
            "remote.retries": 0,
            "remote.timeout_s": 20.0,
            "reasoner.decider": "llm",
            **overrides,
        }
    )
    return build_assistant(cfg, RemoteLLM(cfg.remote), te, b.memory, clock=RealClock())


P1_SEARCH = {
    "observation": "the wearer microwaves the cup",
    "problem": "was the egg poured in?",
    "reply": "search",
    "say": "",
    "search_query": "egg poured into the ramekin cup",
    "service": "none",
}
P2_SPEAK = {
    "facts": "the egg was poured at 0:01-0:32",
    "reply": "respond",
    "say": "The egg is already in the ramekin cup.",
    "service": "MR",
}


def scripted(pass1: Any, pass2: Any = P2_SPEAK) -> Reply:
    def reply(body: dict[str, Any]) -> str:
        k = kind_of(body)
        if k == "pass1":
            return pass1 if isinstance(pass1, str) else json.dumps(pass1)
        if k == "pass2":
            return json.dumps(pass2)
        if k == "reconstruction":
            return json.dumps({"account": "The wearer poured an egg into the ramekin cup."})
        return json.dumps({"looks_like": "an egg in a small white cup"})

    return reply


async def test_invalid_json_is_retried_once_then_silent(
    mem: Built, server: ChatServer, text_encoder: TextEncoder
) -> None:
    server.reply = scripted("this is not JSON {")
    a = remote_assistant(mem, server, text_encoder)
    d = await a.step(ctx_at(mem, 2))
    assert not d.speak and "no valid answer after 2 attempts" in d.reason
    assert d.trace["pass1"]["attempts"] == 2 and len(d.trace["pass1"]["errors"]) == 2
    # One answer and one retry, never more: the remote client does not retry a bad answer itself.
    assert server.kinds() == ["pass1", "pass1"]
    # The retry had twice the token allowance (a cut answer can only close with more room).
    assert server.requests[-1]["max_tokens"] == 2 * server.requests[0]["max_tokens"]
    # A bad first answer followed by a good one: the retry is used, and the step goes on.
    answers = iter(["not JSON", json.dumps({**P1_SEARCH, "reply": "silent"})])
    server.requests.clear()
    server.reply = lambda body: next(answers)
    d2 = await a.step(ctx_at(mem, 2))
    assert not d2.speak and d2.reason.startswith("pass 1: silent") and d2.trace["pass1"]["attempts"] == 2


async def test_search_then_pass2_then_policy(
    mem: Built, server: ChatServer, text_encoder: TextEncoder
) -> None:
    server.reply = scripted(P1_SEARCH)
    a = remote_assistant(mem, server, text_encoder)
    d = await a.step(ctx_at(mem, 2))
    assert d.speak and d.sub_type is SubType.MEMORY_RECALL and d.text == P2_SPEAK["say"], d.reason
    assert d.trace["search"]["query"] == P1_SEARCH["search_query"]
    assert {"pass1", "retrieval", "retrieval.temporal", "retrieval.graph", "pass2", "policy"} <= set(
        d.timings_s
    )
    assert "visual" in d.trace["retrieval"]["skipped"]  # no image encoder given
    # Pass 2 read the retrieved context, which holds the planted-free past only.
    p2 = next(b for b in server.requests if kind_of(b) == "pass2")
    assert "Pour 1 egg into the ramekin cup" in p2["messages"][-1]["content"]
    assert "zebra" not in json.dumps(server.requests)
    # The same advice a step later: the policy suppresses it, and says why.
    d2 = await a.step(ctx_at(mem, 3))
    assert (
        not d2.speak and d2.suppressed_by.startswith("cooldown:MR") and d2.sub_type is SubType.MEMORY_RECALL
    )


async def test_deferred_and_degraded_search_plans(
    mem: Built, server: ChatServer, text_encoder: TextEncoder
) -> None:
    server.reply = scripted(P1_SEARCH)
    a = remote_assistant(mem, server, text_encoder)
    d = await a.step(ctx_at(mem, 2), GrantedGate(SearchPlan(deferred=True, note="busy")))
    assert not d.speak and "deferred" in d.reason and "retrieval" not in d.timings_s
    assert server.kinds() == ["pass1"]
    server.requests.clear()
    d2 = await a.step(
        ctx_at(mem, 3), GrantedGate(SearchPlan(paths=("temporal",), top_k=2, reconstruction=False))
    )
    assert set(d2.trace["retrieval"]["paths"]) == {"temporal"} and "reconstruction" not in server.kinds()
    assert d2.trace["search"]["plan"]["paths"] == ["temporal"]


async def test_instant_services_need_no_retrieval(
    mem: Built, server: ChatServer, text_encoder: TextEncoder
) -> None:
    server.reply = scripted(
        {
            "observation": "a knife close to the fingers",
            "problem": "danger",
            "reply": "respond",
            "say": "Mind your fingers near the knife.",
            "search_query": "",
            "service": "SA",
        }
    )
    a = remote_assistant(mem, server, text_encoder, **{"policy.do_not_disturb": True})
    d = await a.step(ctx_at(mem, 1))
    assert d.speak and d.sub_type is SubType.SAFETY and server.kinds() == ["pass1"]
    assert "retrieval" not in d.timings_s and "search" not in d.trace


async def test_an_empty_memory_still_answers_a_question(
    tmp_path: Path, llm: LLM, text_encoder: TextEncoder
) -> None:
    from edge_assist.config import Config
    from edge_assist.memory.memory import Memory

    cfg = Config().replace(**{"general.data_dir": str(tmp_path), "general.wearer": "new"})
    with Memory.open(cfg, llm, text_encoder) as memory:
        a = build_assistant(cfg, llm, text_encoder, memory, clock=RealClock())
        cap = Caption(10.0, "s", 0, 0.0, 10.0, "opens the fridge")
        d = await a.step(StepContext("s", cap, query=UserQuery(10.0, "where are my keys?", stream_t=10.0)))
    # Nothing in memory, and the caption in view is about something else: no invented answer.
    assert d.speak and d.trigger == "query" and d.text == "I don't remember you doing that."
    assert d.trace["answer"]["outcome"] == "nothing in memory close enough"


TEA = (
    "Recipe: tea. Steps: boil water in the kettle; put a tea bag in the cup; "
    "pour the hot water into the cup; remove the tea bag"
)


def tea_ctx(b: Built) -> StepContext:
    sid = "tea-session"
    bagged = Caption(40.0, sid, 0, 0.0, 40.0, "I put a tea bag in the cup")
    # Pouring the hot water needs the water boiled first: both steps name the water. (A listed
    # order holds only between steps that share a thing; the cup alone ties nothing.)
    now = Caption(55.0, sid, 1, 41.0, 55.0, "I pour the hot water from the kettle into the cup")
    return StepContext(session_id=sid, caption=now, recent=(bagged,), task_context=TEA)


async def test_progress_cue_speaks_when_pass1_stays_silent(
    mem: Built, server: ChatServer, text_encoder: TextEncoder
) -> None:
    server.reply = scripted({**P1_SEARCH, "reply": "silent"})
    off = await remote_assistant(mem, server, text_encoder).step(tea_ctx(mem))
    assert not off.speak and off.reason.startswith("pass 1: silent")
    found = off.trace["task"]["findings"]
    assert found[0]["kind"] == "prerequisite_missing" and found[0]["missing"][:1] == [
        "boil water in the kettle"
    ]
    cue = await remote_assistant(mem, server, text_encoder, **{"reasoner.progress_cue": "speak"}).step(
        tea_ctx(mem)
    )
    assert cue.speak and cue.sub_type is SubType.ERROR_RECOVERY and cue.reason.startswith("progress cue")
    assert (
        "boil water in the kettle" in cue.text
        and cue.trace["progress_cue"]["step_text"] == "pour the hot water into the cup"
    )
    # The model's own decision comes first: a respond from pass 1 is what is spoken.
    server.reply = scripted(
        {
            "observation": "hot kettle",
            "problem": "burn risk",
            "reply": "respond",
            "say": "Careful, the kettle is hot.",
            "search_query": "",
            "service": "SA",
        }
    )
    sa = await remote_assistant(mem, server, text_encoder, **{"reasoner.progress_cue": "speak"}).step(
        tea_ctx(mem)
    )
    assert sa.speak and sa.sub_type is SubType.SAFETY and "progress_cue" not in sa.trace
