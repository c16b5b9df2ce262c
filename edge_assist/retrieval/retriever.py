"""The retrieval step: the granted paths run concurrently, then reconstruction, then fusion.

Each path is its own named task; their start and end times (perf_counter, relative to
the start of the search) go into the trace, so the overlap of the three paths can be
checked from a decision trace alone. A path that fails is logged and counted as empty:
the others still inform the decision. Cancellation of the step cancels every path.
A path switched off in config [retrieval] (or not granted by the search plan) is never
started, and reconstruction switched off is never called: ablations remove the
component, they do not hide its output.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from edge_assist.clock import Clock
from edge_assist.config import Config
from edge_assist.inference.base import LLM, VLM, GenerationCancelled, ImageEncoder, TextEncoder
from edge_assist.memory.api import CaptionRecord, MemoryReader, sessions_before
from edge_assist.retrieval.api import PATHS, SearchPlan
from edge_assist.retrieval.fusion import RetrievedContext, fuse
from edge_assist.retrieval.hits import ClipRef, PathResult
from edge_assist.retrieval.paths import PathArgs, graph_path, temporal_path, visual_path
from edge_assist.retrieval.reconstruction import GroupAccount, load_groups, reconstruct
from edge_assist.retrieval.when import SessionAges

log = logging.getLogger(__name__)

VISUAL_REWRITE_TOKENS = 48


@dataclass
class Retrieval:
    query: str
    paths: dict[str, PathResult] = field(default_factory=dict)
    accounts: list[GroupAccount] = field(default_factory=list)
    context: RetrievedContext = field(default_factory=RetrievedContext)
    timings_s: dict[str, float] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why it did not run
    earlier_sessions: int = 0  # earlier sessions searched besides the current one

    def trace(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "paths": {name: r.trace() for name, r in self.paths.items()},
            "skipped": self.skipped,
            "earlier_sessions": self.earlier_sessions,
            "reconstruction": {a.path: a.trace() for a in self.accounts},
            "context": self.context.text,
            "cited_clips": [
                [c.session_id, c.clip_index, round(c.t0, 2), round(c.t1, 2), list(c.paths)]
                for c in self.context.clips
            ],
        }


async def gather_named(jobs: dict[str, Awaitable[None]]) -> None:
    """Run coroutines as named tasks; if one raises or we are cancelled, cancel the rest."""
    tasks = [asyncio.ensure_future(aw) for aw in jobs.values()]
    for name, t in zip(jobs, tasks, strict=True):
        t.set_name(name)
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


class Retriever:
    def __init__(
        self,
        cfg: Config,
        memory: MemoryReader,
        *,
        llm: LLM,
        text_encoder: TextEncoder,
        clock: Clock,
        vlm: VLM | None = None,
        image_encoder: ImageEncoder | None = None,
    ) -> None:
        self.cfg = cfg
        self.memory = memory
        self.llm = llm
        self.text_encoder = text_encoder
        self.clock = clock
        self.vlm = vlm
        self.image_encoder = image_encoder

    def configured_paths(self) -> dict[str, str]:
        """Every path with "" when it can run, else why not (switched off, no encoder)."""
        r = self.cfg.retrieval
        why = {p: "" for p in PATHS}
        if not r.temporal:
            why["temporal"] = "off in config (retrieval.temporal = false)"
        if not r.graph:
            why["graph"] = "off in config (retrieval.graph = false)"
        if not r.visual:
            why["visual"] = "off in config (retrieval.visual = false)"
        elif self.image_encoder is None:
            why["visual"] = "no image encoder configured (models.image_encoder)"
        return why

    def default_plan(self) -> SearchPlan:
        return SearchPlan(
            paths=tuple(p for p, w in self.configured_paths().items() if not w),
            top_k=self.cfg.retrieval.top_k,
            reconstruction=self.cfg.retrieval.reconstruction,
        )

    async def retrieve(
        self,
        query: str,
        *,
        before_t: float,
        session_id: str | None,
        plan: SearchPlan | None = None,
        past_sessions: bool = False,
    ) -> Retrieval:
        """Search memory up to `before_t` of `session_id` (every session if None).

        With `past_sessions`, the sessions that began before this one (earlier hours and
        days) are searched too: Episodic and Long-Term services live there.
        """
        plan = plan or self.default_plan()
        out = Retrieval(query=query)
        starts = await self.clock.run_blocking(self.memory.session_starts)
        earlier: tuple[str, ...] = ()
        if past_sessions and session_id is not None:
            earlier = tuple(sessions_before(starts, session_id))
        out.earlier_sessions = len(earlier)
        ages = SessionAges(starts, session_id, before_t)
        args = PathArgs(
            query=query, before_t=before_t, top_k=plan.top_k, session_id=session_id, earlier=earlier
        )
        await self._run_paths(out, args, plan)

        n = self.cfg.retrieval.max_clips_per_group
        temporal = out.paths.get("temporal")
        wanted: dict[str, Sequence[ClipRef]] = {
            name: out.paths[name].best_clips(n)
            for name in ("temporal", "graph", "visual")
            if name in out.paths and (name == "temporal" or out.paths[name].clips)
        }
        groups = await load_groups(self.memory, self.clock, wanted)  # one hop for every group's captions
        temporal_records = groups.pop("temporal", [])
        await self._reconstruct(out, groups, plan, ages)
        out.context = fuse(
            temporal.text_hits if temporal is not None else [],
            out.accounts,
            temporal_records,
            max_chars=self.cfg.retrieval.context_chars,
            ages=ages,
        )
        return out

    def _runners(self, args: PathArgs) -> dict[str, Callable[[PathResult], Awaitable[None]]]:
        return {
            "temporal": lambda res: temporal_path(
                res,
                args,
                self.memory,
                self.text_encoder,
                self.clock,
                multiscale=self.cfg.retrieval.multiscale,
            ),
            "graph": lambda res: graph_path(res, args, self.memory, self.clock),
            "visual": lambda res: visual_path(
                res,
                args,
                self.memory,
                self.llm,
                self.image_encoder,  # type: ignore[arg-type]
                self.clock,
                max_tokens=VISUAL_REWRITE_TOKENS,
            ),
        }

    async def _run_paths(self, out: Retrieval, args: PathArgs, plan: SearchPlan) -> None:
        """The granted paths, concurrently, each timed; the others are named in `out.skipped`."""
        runners = self._runners(args)
        why_not = self.configured_paths()
        start = time.perf_counter()

        async def run(name: str) -> None:
            res = out.paths[name]
            res.start_s = time.perf_counter() - start
            try:
                await runners[name](res)
            except GenerationCancelled:
                raise  # preempted by more urgent work: the whole search stops, the scheduler retries it
            except Exception as e:  # one broken path must not silence the other two
                log.warning("retrieval path %s failed: %s", name, e)
                res.error = f"{type(e).__name__}: {e}"
            finally:
                res.end_s = time.perf_counter() - start

        jobs: dict[str, Awaitable[None]] = {}
        for name in PATHS:
            if why_not[name]:
                out.skipped[name] = why_not[name]
            elif name not in plan.paths:
                out.skipped[name] = f"not granted by the search plan ({plan.note or 'scheduler'})"
            else:
                out.paths[name] = PathResult(name)
                jobs[f"retrieval.{name}"] = run(name)
        await gather_named(jobs)
        out.timings_s["retrieval"] = time.perf_counter() - start
        for name, res in out.paths.items():
            out.timings_s[f"retrieval.{name}"] = res.end_s - res.start_s

    async def _reconstruct(
        self, out: Retrieval, groups: dict[str, list[CaptionRecord]], plan: SearchPlan, ages: SessionAges
    ) -> None:
        """One account per group of clips, concurrently (the captions alone when switched off)."""
        accounts: dict[str, GroupAccount] = {}
        enabled = plan.reconstruction and self.cfg.retrieval.reconstruction
        rec_start = time.perf_counter()

        async def rebuild(name: str) -> None:
            accounts[name] = await reconstruct(
                name,
                out.query,
                groups[name],
                memory=self.memory,
                llm=self.llm,
                clock=self.clock,
                vlm=self.vlm,
                enabled=enabled,
                max_tokens=self.cfg.reasoner.reconstruction_max_tokens,
                ages=ages,
            )

        await gather_named({f"reconstruction.{g}": rebuild(g) for g in groups})
        if enabled and groups:
            out.timings_s["reconstruction"] = time.perf_counter() - rec_start
            for name, acc in accounts.items():
                out.timings_s[f"reconstruction.{name}"] = acc.seconds
        out.accounts = [accounts[g] for g in ("graph", "visual") if g in accounts]
