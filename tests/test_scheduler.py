"""The scheduler: budgets that degrade or defer searches, lanes that let an instant
decision through while a search holds the model, and the statistics it keeps."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.events import Caption, Decision
from edge_assist.inference.base import LLM
from edge_assist.outputs.decision_log import DecisionLog, read_decision_log
from edge_assist.reasoning.api import SearchGate, StepContext
from edge_assist.runtime.budgets import CURRENT_STEP, StepBudget
from edge_assist.runtime.lanes import LANE, Lane, ModelArbiter, ScheduledLLM, SearchPreempted
from edge_assist.runtime.reasoner_stage import ReasonerStage, StepInbox
from edge_assist.runtime.scheduler import Scheduler

LONG = [
    {"role": "user", "content": "Write a long, detailed story about a kitchen, at least three hundred words."}
]
SHORT = [{"role": "user", "content": "Is a knife sharp? Answer yes or no."}]


def _cfg(**kw: object) -> Config:
    return Config().replace(**kw)


def test_plan_grants_the_whole_search_when_it_fits() -> None:
    s = Scheduler(_cfg())
    plan = s.plan(remaining_s=60.0, is_query=False)
    assert (
        plan.paths == ("temporal", "graph", "visual")
        and plan.reconstruction
        and not plan.deferred
        and not plan.note
    )


def test_plan_degrades_step_by_step_as_time_runs_out() -> None:
    s = Scheduler(_cfg())  # estimates: retrieval 0.5, reconstruction 6.0 (all paths), pass 2 2.0
    no_recon = s.plan(remaining_s=3.0, is_query=False)
    assert (
        no_recon.paths == ("temporal", "graph", "visual")
        and not no_recon.reconstruction
        and "degraded" in no_recon.note
    )
    s.estimates["retrieval"] = 2.0
    # 2.0 + 2.0 pass 2 > 3.5: not even the smallest search fits, so it waits for an idle slot.
    assert s.plan(remaining_s=3.5, is_query=False).deferred
    # A question is never deferred: the wearer is waiting; it gets the smallest search.
    q = s.plan(remaining_s=0.1, is_query=True)
    assert not q.deferred and q.paths == ("temporal",) and q.top_k == max(1, Config().retrieval.top_k // 2)


def test_plan_defers_when_configured_to() -> None:
    s = Scheduler(_cfg(**{"scheduler.search_policy": "defer"}))
    assert s.plan(remaining_s=3.0, is_query=False).deferred
    assert not s.plan(remaining_s=60.0, is_query=False).deferred


def test_plan_only_offers_enabled_paths() -> None:
    s = Scheduler(_cfg(**{"retrieval.graph": False}), available_paths=("temporal", "graph"))
    assert s.plan(remaining_s=60, is_query=False).paths == ("temporal",)


async def test_request_uses_the_current_steps_remaining_budget_and_switches_lane() -> None:
    s = Scheduler(_cfg(**{"scheduler.step_budget_s": 10.0}))
    budget = StepBudget(total_s=10.0, started=time.perf_counter() - 9.0)  # 1 s left
    CURRENT_STEP.set(budget)
    LANE.set(Lane.INSTANT)
    plan = await s.request("where are the keys")
    assert plan.deferred and budget.deferred and s.counters["deferred"] == 1
    assert LANE.get() is Lane.SEARCH  # from now on this step yields to newer captions


def test_glasses_status_lowers_the_budget() -> None:
    s = Scheduler(_cfg(**{"scheduler.step_budget_s": 10.0}))
    s.update_device(0.5)
    assert s.budget_s() == pytest.approx(5.0)
    ctx = StepContext("s", Caption(0, "s", 0, 0, 10, "cutting onions"))
    assert s.new_step(ctx).total_s == pytest.approx(5.0)


def test_estimates_learn_from_measured_sections() -> None:
    s = Scheduler(_cfg())
    before = s.estimates["pass2"]
    s.step_done(StepBudget(10.0, time.perf_counter()), {"pass2": 10.0, "pass1": 1.0})
    assert s.estimates["pass2"] > before
    st = s.stats()
    assert st["sections"]["pass1"]["count"] == 1 and st["counters"]["steps"] == 1


@pytest.mark.slow
def test_instant_call_preempts_a_search_holding_the_model(llm: LLM) -> None:
    arbiter = ModelArbiter()
    model = ScheduledLLM(llm, arbiter)
    outcome: dict[str, object] = {}
    holding = threading.Event()

    def search() -> None:
        LANE.set(Lane.SEARCH)

        def tokens(_: str) -> None:
            holding.set()

        try:
            outcome["search"] = model.chat(LONG, max_tokens=400, on_token=tokens)
        except SearchPreempted as e:
            outcome["search"] = e

    th = threading.Thread(target=search)
    th.start()
    assert holding.wait(60), "the search never started generating"
    LANE.set(Lane.INSTANT)
    t0 = time.perf_counter()
    answer = model.chat(SHORT, max_tokens=8)
    waited = time.perf_counter() - t0
    th.join(60)
    assert isinstance(outcome["search"], SearchPreempted)
    assert answer.strip()
    assert arbiter.preemptions == 1
    # Unpreempted, the 400-token search would have held the model for seconds.
    full = time.perf_counter()
    LANE.set(Lane.SEARCH)
    model.chat(LONG, max_tokens=200)
    full = time.perf_counter() - full
    assert waited < full / 2, (waited, full)


@pytest.mark.slow
def test_background_work_waits_for_idle_and_is_redone_after_preemption(llm: LLM) -> None:
    arbiter = ModelArbiter()
    model = ScheduledLLM(llm, arbiter)
    arbiter.step_started()
    done = threading.Event()
    result: list[str] = []

    def rollup() -> None:
        LANE.set(Lane.BACKGROUND)
        result.append(model.chat(SHORT, max_tokens=8))
        done.set()

    th = threading.Thread(target=rollup)
    th.start()
    assert not done.wait(0.5)  # a step is in flight: roll-ups wait
    arbiter.step_finished()
    assert done.wait(60) and result and result[0].strip()
    th.join()


class LongSearchAssistant:
    """A client of the gate and the real LLM: asks to search, then generates at length
    (as a reconstruction would); first passes are short. Exercises lanes, not judgement."""

    name = "long-search"

    def __init__(self, llm: LLM) -> None:
        self.llm = llm
        self.calls: list[tuple[int, str]] = []

    async def step(self, ctx: StepContext, gate: SearchGate | None = None) -> Decision:
        c = ctx.caption
        started = time.perf_counter()
        await asyncio.to_thread(self.llm.chat, SHORT, max_tokens=4)  # pass 1: instant lane
        timings = {"pass1": time.perf_counter() - started}
        if "hazard" in c.text:
            self.calls.append((c.index, "instant"))
            return Decision(
                c.t, c.session_id, c.index, c.t0, c.t1, True, None, "Careful: hot pan!", timings_s=timings
            )
        assert gate is not None
        plan = await gate.request(c.text)
        if plan.deferred:
            return Decision(
                c.t, c.session_id, c.index, c.t0, c.t1, False, reason="search deferred", timings_s=timings
            )
        t = time.perf_counter()
        await asyncio.to_thread(self.llm.chat, LONG, max_tokens=300)  # reconstruction: search lane
        timings["reconstruction"] = time.perf_counter() - t
        self.calls.append((c.index, "searched"))
        return Decision(c.t, c.session_id, c.index, c.t0, c.t1, False, reason="searched", timings_s=timings)


@pytest.mark.slow
async def test_safety_step_is_not_queued_behind_a_running_reconstruction(llm: LLM, tmp_path) -> None:
    cfg = _cfg(**{"scheduler.step_budget_s": 600.0})
    scheduler = Scheduler(cfg)
    model = ScheduledLLM(llm, scheduler.arbiter)
    assistant = LongSearchAssistant(model)  # type: ignore[arg-type]
    inbox = StepInbox(8)
    log = DecisionLog(tmp_path / "d.jsonl")
    emitted: dict[int, float] = {}
    stage = ReasonerStage(
        RealClock(),
        assistant,
        inbox,
        [log],
        scheduler=scheduler,
        on_decision=lambda d: emitted.setdefault(d.clip_index, time.perf_counter()),
    )
    run = asyncio.create_task(stage.run())
    await inbox.put(Caption(0.0, "s", 0, 0.0, 10.0, "I stir the soup"))
    # Polled: the holder is set from a worker thread, there is no loop-side event to await.
    while scheduler.arbiter.holder_lane is not Lane.SEARCH:  # noqa: ASYNC110
        await asyncio.sleep(0.05)
    t_hazard = time.perf_counter()
    await inbox.put(Caption(0.0, "s", 1, 10.0, 20.0, "hazard: the pan handle sticks out over the flame"))
    from edge_assist.events import StreamEnd

    await inbox.put(StreamEnd(0.0))
    await asyncio.wait_for(run, timeout=300)
    safety_s = emitted[1] - t_hazard
    assert (1, "instant") in assistant.calls
    # The overtaken search was preempted, deferred and run again in the idle slot at the end.
    assert scheduler.counters["preempted_steps"] >= 1 and scheduler.counters["deferred_run"] >= 1
    assert (0, "searched") in assistant.calls
    await log.close()
    recs = read_decision_log(tmp_path / "d.jsonl")
    order = [
        (r["clip_index"], r["decision"], r["reason"].split(" (")[0]) for r in recs if r["type"] == "decision"
    ]
    # Clip 0 gives way at once (logged), the Safety alert is spoken, then clip 0's search runs whole.
    assert order == [(0, "silent", "search preempted"), (1, "speak", ""), (0, "silent", "searched")]
    # The Safety step took less time than the reconstruction it would have queued behind
    # (compared, not absolute: the same load slows both).
    rerun = [r for r in recs if r["type"] == "decision" and r["reason"] == "searched"][0]
    assert safety_s < rerun["timings_s"]["reconstruction"], (safety_s, rerun["timings_s"])
