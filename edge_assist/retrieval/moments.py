"""Candidate moments for a grounded answer: the clips of memory (up to now) whose caption is
closest to what the question names, with their times, and a moment's neighbours.

Two paths propose clips, both bounded by `before_t`: the clip-level text vectors (the
question's focus against every caption) and the entity graph (things named in the
question, the clips they were seen in). Every candidate is scored by the same measure,
the text-encoder cosine between the focus and its caption; the answerer then weighs each
one by the answer gate (answers/support.py), whose threshold
(`reasoner.answer_min_score`) says what is too far to be evidence.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder
from edge_assist.memory.api import CaptionRecord, MemoryReader, sessions_before
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.paths import query_terms
from edge_assist.retrieval.when import SessionAges

Key = tuple[str, int]  # (session id, clip index)


async def candidate_moments(
    memory: MemoryReader,
    encoder: TextEncoder,
    clock: Clock,
    focus: str,
    *,
    before_t: float,
    session_id: str | None,
    k: int,
    past_sessions: bool = False,
    extra: Sequence[CaptionRecord] = (),
    graph: bool = True,
) -> list[Moment]:
    """Up to `k` moments, best first (with earlier sessions, up to k more of this session behind
    them). `extra`: captions the caller already holds (the ones in view, which the memory
    writer may not have stored yet); those after `before_t` are ignored."""
    starts = await clock.run_blocking(memory.session_starts)
    earlier: tuple[str, ...] = ()
    if past_sessions and session_id is not None:
        earlier = tuple(sessions_before(starts, session_id))
    ages = SessionAges(starts, session_id, before_t)
    qvec = (await clock.run_blocking(encoder.encode, [focus]))[0]
    records, scores = await _text_candidates(
        memory, clock, qvec, before_t=before_t, session_id=session_id, k=k, earlier=earlier
    )
    if graph and (names := query_terms(focus)):
        await _add_graph_candidates(
            memory, clock, names, records, before_t=before_t, session_id=session_id, k=k, earlier=earlier
        )
    for r in extra:
        if r.t1 <= before_t + 1e-6 and (session_id is None or r.session_id == session_id):
            records.setdefault((r.session_id, r.clip_index), r)
    unscored = [key for key in records if key not in scores]
    if unscored:
        vecs = await clock.run_blocking(encoder.encode, [records[key].text for key in unscored])
        for key, v in zip(unscored, np.asarray(vecs), strict=True):
            scores[key] = float(v @ qvec)
    # Equal scores (a routine's caption, the same every day): the most recent moment first.
    ordered = sorted(records, key=lambda key: (-scores[key], -ages.order(key[0]), -records[key].t0))
    ranked = ordered[:k]
    if earlier:  # and this session's best k, behind them (see _text_candidates)
        ranked += [key for key in ordered[k:] if key[0] == session_id][:k]
    return [
        Moment(
            records[key].session_id,
            records[key].clip_index,
            records[key].t0,
            records[key].t1,
            records[key].text,
            round(scores[key], 4),
            ages.note(records[key].session_id, records[key].t0),
        )
        for key in ranked
    ]


async def _text_candidates(
    memory: MemoryReader,
    clock: Clock,
    qvec: np.ndarray,
    *,
    before_t: float,
    session_id: str | None,
    k: int,
    earlier: tuple[str, ...],
) -> tuple[dict[Key, CaptionRecord], dict[Key, float]]:
    """The clips whose caption vectors are nearest the focus, with their cosines."""
    hits = await clock.run_blocking(
        lambda: memory.search_text(
            qvec, k=k, before_t=before_t, levels=("clip",), session_id=session_id, earlier_sessions=earlier
        )
    )
    if earlier:
        # This session's own best too, even when a week of closer captions fills the k: the
        # answerer puts today first when today answers (answers/grounded.py).
        hits = [
            *hits,
            *await clock.run_blocking(
                lambda: memory.search_text(
                    qvec, k=k, before_t=before_t, levels=("clip",), session_id=session_id
                )
            ),
        ]
    records: dict[Key, CaptionRecord] = {}
    scores: dict[Key, float] = {}
    for h in hits:
        for idx in h.clip_indices:
            records[(h.session_id, idx)] = CaptionRecord(h.session_id, idx, h.t0, h.t1, h.text)
            scores[(h.session_id, idx)] = h.score
    return records, scores


async def _add_graph_candidates(
    memory: MemoryReader,
    clock: Clock,
    names: list[str],
    records: dict[Key, CaptionRecord],
    *,
    before_t: float,
    session_id: str | None,
    k: int,
    earlier: tuple[str, ...],
) -> None:
    """The clips the entities the question names were seen in, added to `records` unscored."""
    ents = await clock.run_blocking(
        lambda: memory.graph_neighbourhood(
            names, before_t=before_t, k=k, session_id=session_id, earlier_sessions=earlier
        )
    )
    by_session: dict[str, set[int]] = {}
    for e in ents:
        by_session.setdefault(e.session_id, set()).update(e.clip_indices)
    for sid, idxs in by_session.items():
        missing = [i for i in sorted(idxs) if (sid, i) not in records]
        if missing:
            for r in await clock.run_blocking(memory.captions, sid, missing):
                records[(r.session_id, r.clip_index)] = r


async def neighbour(
    memory: MemoryReader, clock: Clock, m: Moment, *, step: int, before_t: float
) -> Moment | None:
    """The clip right after (`step` = 1) or before (-1) `m` in its session, if memory holds it by now."""
    near = await neighbours(memory, clock, m, step=step, count=1, before_t=before_t)
    return near[0] if near else None


async def neighbours(
    memory: MemoryReader, clock: Clock, m: Moment, *, step: int, count: int, before_t: float
) -> list[Moment]:
    """Up to `count` clips in a row after (`step` = 1) or before (-1) `m` in its session, nearest
    first, as far as memory holds them by now (each with `m`'s score and note)."""
    idxs = [i for i in (m.clip_index + step * k for k in range(1, count + 1)) if i >= 0]
    by_index = (
        {r.clip_index: r for r in await clock.run_blocking(memory.captions, m.session_id, idxs)}
        if idxs
        else {}
    )
    out: list[Moment] = []
    for i in idxs:
        r = by_index.get(i)
        # Earlier sessions are wholly past; the current one only up to now.
        if r is None or (m.note == "" and r.t1 > before_t + 1e-6):
            break
        out.append(Moment(r.session_id, r.clip_index, r.t0, r.t1, r.text, m.score, m.note))
    return out
