"""Reconstruction: one path's group of clips → one account conditioned on the query.

With a VLM the keyframes of the clips go in with their captions, so the account can add
what the images show; without one the LLM rewrites the captions alone. Either way the
captions carry the times, so the account can be cited. With reconstruction switched off
(ablation, or a degraded search plan) the group is handed on as its raw captions.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from edge_assist.clock import Clock
from edge_assist.inference.base import LLM, VLM
from edge_assist.inference.llm_call import call_json
from edge_assist.memory.api import CaptionRecord, MemoryReader
from edge_assist.retrieval import prompts
from edge_assist.retrieval.hits import ClipRef
from edge_assist.retrieval.when import NO_AGES, SessionAges

MAX_IMAGES = 6  # keyframes one VLM request sees: more would not fit a small VLM's context


@dataclass
class GroupAccount:
    path: str
    records: list[CaptionRecord]
    text: str
    by: str  # "vlm", "llm", "captions" (no reconstruction), "captions-fallback" (model failed)
    seconds: float = 0.0
    images: int = 0
    error: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    def trace(self) -> dict[str, object]:
        out: dict[str, object] = {
            "by": self.by,
            "clips": [[r.session_id, r.clip_index, round(r.t0, 2), round(r.t1, 2)] for r in self.records],
            "text": self.text,
            "seconds": round(self.seconds, 4),
        }
        if self.images:
            out["images"] = self.images
        if self.error:
            out["error"] = self.error
        return out


async def load_groups(
    memory: MemoryReader, clock: Clock, groups: dict[str, Sequence[ClipRef]]
) -> dict[str, list[CaptionRecord]]:
    """The captions of every group's clips, each group in time order: one read per session,
    all in one hop to a worker thread (a hop costs ~0.15 ms of CPU on this machine; a read per
    session per group each in its own hop made the search's overhead grow with its results)."""
    wanted: dict[str, set[int]] = {}
    for refs in groups.values():
        for r in refs:
            wanted.setdefault(r.session_id, set()).add(r.clip_index)

    def read() -> dict[tuple[str, int], CaptionRecord]:
        return {
            (c.session_id, c.clip_index): c
            for sid, idxs in wanted.items()
            for c in memory.captions(sid, sorted(idxs))
        }

    found = await clock.run_blocking(read) if wanted else {}
    out: dict[str, list[CaptionRecord]] = {}
    for name, refs in groups.items():
        keys = {(r.session_id, r.clip_index) for r in refs}
        out[name] = sorted((found[k] for k in keys if k in found), key=lambda r: (r.session_id, r.t0))
    return out


def caption_lines(records: Sequence[CaptionRecord], ages: SessionAges = NO_AGES) -> str:
    return "\n".join(
        f"[{ages.stamp(r.session_id, r.t0, r.t1)}] {prompts.clip(r.text, prompts.LINE_CHARS)}"
        for r in records
    )


async def _keyframes(
    memory: MemoryReader, clock: Clock, records: Sequence[CaptionRecord]
) -> list[np.ndarray]:
    """The keyframes of the group's clips, in order, at most `MAX_IMAGES`."""
    images: list[np.ndarray] = []
    for r in records:
        if len(images) >= MAX_IMAGES:
            break
        imgs = await clock.run_blocking(memory.keyframe_images, r.session_id, r.clip_index)
        images.extend(imgs[: MAX_IMAGES - len(images)])
    return images


async def reconstruct(
    path: str,
    query: str,
    records: list[CaptionRecord],
    *,
    memory: MemoryReader,
    llm: LLM,
    clock: Clock,
    vlm: VLM | None,
    enabled: bool,
    max_tokens: int,
    ages: SessionAges = NO_AGES,
) -> GroupAccount:
    start = time.perf_counter()
    if not records:
        return GroupAccount(path, records, "", "captions")
    if not enabled:
        return GroupAccount(path, records, caption_lines(records, ages), "captions")
    # A moment of an earlier session says so, or the model would mix two days' times.
    triples = [
        (r.t0, r.t1, f"({n}) {r.text}" if (n := ages.note(r.session_id, r.t0)) else r.text) for r in records
    ]
    if vlm is not None:
        images = await _keyframes(memory, clock, records)
        if images:
            prompt = prompts.reconstruct_vlm_prompt(query=query, captions=triples)
            text = await clock.run_blocking(
                lambda: vlm.describe(images, prompt, max_tokens=max_tokens, temperature=0.0)
            )
            return GroupAccount(
                path, records, " ".join(text.split()), "vlm", time.perf_counter() - start, len(images)
            )
    res = await call_json(
        llm,
        clock,
        f"reconstruction ({path})",
        prompts.reconstruct_messages(query=query, captions=triples),
        prompts.reconstruction_schema(),
        lambda raw: " ".join(str(raw.get("account", "")).split()),
        # One attempt: when it fails the captions themselves are handed on, which beats
        # spending a second, longer generation on the step's budget.
        max_tokens=max_tokens,
        attempts=1,
        setting="reasoner.reconstruction_max_tokens",
    )
    if not res.value:
        # The captions themselves are still evidence; losing them would be worse than no account.
        return GroupAccount(
            path,
            records,
            caption_lines(records, ages),
            "captions-fallback",
            res.seconds,
            error=res.error or "empty account",
        )
    # The account is prefixed with the clip times it was built from, so pass 2 can cite them.
    times = ", ".join(ages.stamp(r.session_id, r.t0, r.t1) for r in records)
    return GroupAccount(path, records, f"(clips {times}) {res.value}", "llm", res.seconds)
