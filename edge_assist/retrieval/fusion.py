"""Fusion: temporal hits and each path group's account → one retrieved context.

The context is what pass 2 reads (bounded in characters to fit a small model) and the
list of clips it rests on, with their stream times, so an answer can cite them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from edge_assist.memory.api import CaptionRecord, TextHit
from edge_assist.retrieval import prompts
from edge_assist.retrieval.reconstruction import GroupAccount
from edge_assist.retrieval.when import NO_AGES, SessionAges


@dataclass(frozen=True)
class CitedClip:
    session_id: str
    clip_index: int
    t0: float
    t1: float
    paths: tuple[str, ...]


@dataclass
class RetrievedContext:
    text: str = ""
    clips: list[CitedClip] = field(default_factory=list)  # time order
    spans: list[tuple[float, float, str]] = field(default_factory=list)  # (t0, t1, what) of every item used
    span_notes: dict[tuple[float, float], str] = field(
        default_factory=dict
    )  # age of spans from earlier sessions

    @property
    def empty(self) -> bool:
        return not self.text

    def citation(self, limit: int = 4) -> str:
        """'clips 1:23-1:50, 3:00-3:10': the stream times an answer rests on."""
        seen: list[tuple[float, float]] = []
        for t0, t1, _what in sorted(self.spans):
            if (t0, t1) not in seen:
                seen.append((t0, t1))
        if not seen:
            return ""
        shown = ", ".join(
            prompts.clip_time(a, b) + (f" ({self.span_notes[(a, b)]})" if (a, b) in self.span_notes else "")
            for a, b in seen[:limit]
        )
        more = f" and {len(seen) - limit} more" if len(seen) > limit else ""
        return f"seen at {shown}{more}"


def fuse(
    text_hits: Sequence[TextHit],
    accounts: Sequence[GroupAccount],
    temporal_records: Sequence[CaptionRecord],
    *,
    max_chars: int,
    ages: SessionAges = NO_AGES,
) -> RetrievedContext:
    sections: list[str] = []
    spans: list[tuple[float, float, str]] = []
    notes: dict[tuple[float, float], str] = {}
    cited: dict[tuple[str, int], tuple[CaptionRecord, set[str]]] = {}

    if text_hits:
        # Coarse first (session, activity), then moments, each in time order.
        order = {"session": 0, "activity": 1, "clip": 2}
        hits = sorted(text_hits, key=lambda h: (order.get(h.level, 3), ages.order(h.session_id), h.t0))
        lines = [
            f"[{h.level} {ages.stamp(h.session_id, h.t0, h.t1)}] {prompts.clip(h.text, prompts.LINE_CHARS)}"
            for h in hits
        ]
        sections.append("From memory:\n" + "\n".join(lines))
        spans.extend((h.t0, h.t1, h.level) for h in hits)
        notes.update({(h.t0, h.t1): n for h in hits if (n := ages.note(h.session_id, h.t0))})
        for r in temporal_records:
            cited.setdefault((r.session_id, r.clip_index), (r, set()))[1].add("temporal")
    for acc in accounts:
        if not acc.text:
            continue
        label = {"graph": "About the things named", "visual": "What was seen"}.get(acc.path, acc.path)
        sections.append(f"{label}:\n{acc.text}")
        for r in acc.records:
            spans.append((r.t0, r.t1, acc.path))
            if n := ages.note(r.session_id, r.t0):
                notes[(r.t0, r.t1)] = n
            cited.setdefault((r.session_id, r.clip_index), (r, set()))[1].add(acc.path)

    text = "\n".join(sections)
    if len(text) > max_chars:
        text = text[: max_chars - 1].rstrip() + "…"
    clips = sorted(
        (CitedClip(r.session_id, r.clip_index, r.t0, r.t1, tuple(sorted(p))) for r, p in cited.values()),
        key=lambda c: (ages.order(c.session_id), c.session_id, c.t0),
    )
    return RetrievedContext(text=text, clips=clips, spans=spans, span_notes=notes)
