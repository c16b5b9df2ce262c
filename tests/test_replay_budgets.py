"""On a virtual clock the scheduler prices searches in stream time with fixed estimates,
so a replay's plans (grant, degrade, defer) do not depend on how fast the machine was."""

from __future__ import annotations

import time

from edge_assist.clock import VirtualClock
from edge_assist.config import Config
from edge_assist.events import Caption
from edge_assist.reasoning.api import StepContext
from edge_assist.runtime.scheduler import Scheduler


def _ctx() -> StepContext:
    c = Caption(t=10.0, session_id="s", index=0, t0=0.0, t1=10.0, text="slicing bread", latency_s=4.0)
    return StepContext(session_id="s", caption=c)


def test_stream_time_budget_ignores_compute_time_and_keeps_estimates() -> None:
    clock = VirtualClock()
    s = Scheduler(Config().replace(**{"scheduler.step_budget_s": 10.0}))
    s.use_stream_time(clock.now)
    budget = s.new_step(_ctx(), caption_latency_s=4.0)  # the captioner's wall time is not stream time
    time.sleep(0.05)  # real compute: no stream time passes
    assert budget.elapsed_s() == 0.0 and budget.remaining_s() == 10.0
    clock.advance(3.0)  # a scripted 3 s of stream time does count
    assert budget.remaining_s() == 7.0
    before = dict(s.estimates)
    s.step_done(budget, {"pass2": 30.0, "retrieval": 9.0})
    assert s.estimates == before  # measured costs go to the histograms only
    assert s.stats()["sections"]["pass2"]["count"] == 1


def test_live_budget_counts_caption_latency_and_learns() -> None:
    s = Scheduler(Config().replace(**{"scheduler.step_budget_s": 10.0}))
    budget = s.new_step(_ctx(), caption_latency_s=4.0)
    assert 5.9 < budget.remaining_s() <= 6.0
    s.step_done(budget, {"pass2": 30.0})
    assert s.estimates["pass2"] > Config().scheduler.pass2_estimate_s
