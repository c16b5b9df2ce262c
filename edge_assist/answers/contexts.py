"""What an answer rests on, as the retrieved context a trace and a citation carry."""

from __future__ import annotations

from edge_assist.reasoning import prompts
from edge_assist.retrieval.api import Moment, TextHit
from edge_assist.retrieval.fusion import CitedClip, RetrievedContext


def moment_context(m: Moment | None) -> RetrievedContext:
    if m is None:
        return RetrievedContext()
    return RetrievedContext(
        text=m.text,
        clips=[CitedClip(m.session_id, m.clip_index, m.t0, m.t1, ("moment",))],
        spans=[(m.t0, m.t1, "clip")],
    )


def summary_context(hits: list[TextHit], max_chars: int) -> RetrievedContext:
    order = {"session": 0, "activity": 1}
    ordered = sorted(hits, key=lambda h: (order.get(h.level, 2), h.session_id, h.t0))
    lines = [
        f"[{h.level} {prompts.clip_time(h.t0, h.t1)}] {prompts.clip(h.text, prompts.LINE_CHARS)}"
        for h in ordered
    ]
    text = "\n".join(lines)
    if len(text) > max_chars:
        text = text[: max_chars - 1] + "…"
    return RetrievedContext(text=text, spans=[(h.t0, h.t1, h.level) for h in ordered])
