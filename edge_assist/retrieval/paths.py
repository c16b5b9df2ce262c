"""The three retrieval paths. Each is a coroutine that reads memory (off the event loop)
and fills a PathResult with clip indices and scores, never reading past `before_t`.

- temporal: the query's text vector against clip, activity and session vectors in one
  search, so a coarse summary and a fine clip can both come back (clip level only when
  multi-scale memory is switched off);
- graph: entity names found in the query, matched in the entity graph, expanded one hop,
  mapped to the clips they were seen in;
- visual: the LLM rewrites the query into what the answer would look like; the image
  encoder's text tower embeds that, and the nearest keyframes give their clips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edge_assist.clock import Clock
from edge_assist.inference.base import LLM, ImageEncoder, TextEncoder
from edge_assist.inference.llm_call import call_json
from edge_assist.memory.api import LEVELS, MemoryReader
from edge_assist.retrieval import prompts
from edge_assist.retrieval.hits import ClipRef, PathResult
from edge_assist.text.stop_words import QUERY_STOP_WORDS


def query_terms(query: str, limit: int = 12) -> list[str]:
    """Candidate entity names in a query: content words, adjacent pairs, naive singulars."""
    words = re.findall(r"[a-z][a-z0-9'-]*", query.lower())
    words = [w for w in words if w not in QUERY_STOP_WORDS and len(w) > 1]
    terms: list[str] = []
    for a, b in zip(words, words[1:], strict=False):
        terms.append(f"{a} {b}")
    for w in words:
        terms.append(w)
        if w.endswith("es") and len(w) > 4:
            terms.append(w[:-2])
        if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
            terms.append(w[:-1])
    seen: dict[str, None] = {}
    for t in terms:
        seen.setdefault(t, None)
    return list(seen)[:limit]


@dataclass(frozen=True)
class PathArgs:
    query: str
    before_t: float
    top_k: int
    session_id: str | None  # None: every session in the store
    earlier: tuple[str, ...] = ()  # with session_id: earlier sessions, searched whole (they are past)


async def temporal_path(
    out: PathResult,
    args: PathArgs,
    memory: MemoryReader,
    encoder: TextEncoder,
    clock: Clock,
    *,
    multiscale: bool,
) -> None:
    levels = LEVELS if multiscale else ("clip",)
    out.detail["levels"] = list(levels)
    # Encoding and search in one hop to the worker thread (each hop costs ~0.15 ms of CPU).
    hits = await clock.run_blocking(
        lambda: memory.search_text(
            encoder.encode([args.query])[0],
            k=args.top_k,
            before_t=args.before_t,
            levels=levels,
            session_id=args.session_id,
            earlier_sessions=args.earlier,
        )
    )
    out.text_hits = list(hits)
    for h in hits:
        for idx in h.clip_indices:
            out.add(ClipRef(h.session_id, idx, h.score, h.level))


async def graph_path(out: PathResult, args: PathArgs, memory: MemoryReader, clock: Clock) -> None:
    names = query_terms(args.query)
    out.detail["names"] = names
    if not names:
        return
    hits = await clock.run_blocking(
        lambda: memory.graph_neighbourhood(
            names,
            before_t=args.before_t,
            k=args.top_k,
            session_id=args.session_id,
            earlier_sessions=args.earlier,
        )
    )
    out.detail["entities"] = [
        {
            "name": h.name,
            "kind": h.kind,
            "score": round(h.score, 4),
            "neighbours": [f"{rel} {other}" for rel, other, _s, _t in h.neighbours[:6]],
        }
        for h in hits
    ]
    for h in hits:
        # Newest first: clips of one entity score alike, and the group keeps the first ones
        # (`best_clips`), which must be its latest sightings, not its first.
        for idx in reversed(h.clip_indices):
            out.add(ClipRef(h.session_id, idx, h.score, h.name))
        # A neighbour's clips count for less than the entity's own.
        for idx in reversed(h.neighbour_clip_indices):
            out.add(ClipRef(h.session_id, idx, h.score * 0.5, f"{h.name}+1"))


async def visual_path(
    out: PathResult,
    args: PathArgs,
    memory: MemoryReader,
    llm: LLM,
    image_encoder: ImageEncoder,
    clock: Clock,
    *,
    max_tokens: int,
) -> None:
    res = await call_json(
        llm,
        clock,
        "visual rewrite",
        prompts.visual_messages(query=args.query),
        prompts.visual_rewrite_schema(),
        lambda raw: " ".join(str(raw.get("looks_like", "")).split()),
        max_tokens=max_tokens,
        setting="",
    )
    # A failed rewrite still leaves the query itself, which the text tower can embed.
    description = res.value or args.query
    out.detail["description"] = description
    out.detail["rewrite_s"] = round(res.seconds, 4)
    if res.error:
        out.detail["rewrite_error"] = res.error
    vecs = await clock.run_blocking(image_encoder.encode_texts, [description])
    hits = await clock.run_blocking(
        lambda: memory.search_keyframes(
            vecs[0],
            k=args.top_k,
            before_t=args.before_t,
            session_id=args.session_id,
            earlier_sessions=args.earlier,
        )
    )
    for h in hits:
        out.add(ClipRef(h.session_id, h.clip_index, h.score, "keyframe"))
