"""What a retrieval path hands back: clip indices with scores, plus its own timing.

Paths return clips, never prose (DESIGN.md, data flow); the temporal path also keeps the
text of its hits, because an activity or session summary *is* the coarse memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from edge_assist.memory.api import TextHit


@dataclass(frozen=True)
class ClipRef:
    session_id: str
    clip_index: int
    score: float
    via: str  # what matched: a level ("clip", "activity", "session"), an entity name, "keyframe"


@dataclass
class PathResult:
    path: str  # "temporal" | "graph" | "visual"
    clips: list[ClipRef] = field(default_factory=list)
    text_hits: list[TextHit] = field(default_factory=list)
    start_s: float = 0.0  # perf_counter seconds from the start of the search
    end_s: float = 0.0
    detail: dict[str, Any] = field(default_factory=dict)  # the path's own inputs (levels, names, description)
    error: str = ""

    def add(self, ref: ClipRef) -> None:
        self.clips.append(ref)

    def best_clips(self, n: int) -> list[ClipRef]:
        """Distinct clips, best score first."""
        best: dict[tuple[str, int], ClipRef] = {}
        for c in self.clips:
            key = (c.session_id, c.clip_index)
            if key not in best or c.score > best[key].score:
                best[key] = c
        return sorted(best.values(), key=lambda c: -c.score)[:n]

    def trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "start_s": round(self.start_s, 4),
            "end_s": round(self.end_s, 4),
            "clips": [
                {
                    "session_id": c.session_id,
                    "clip_index": c.clip_index,
                    "score": round(c.score, 4),
                    "via": c.via,
                }
                for c in self.best_clips(len(self.clips))
            ],
            **self.detail,
        }
        if self.text_hits:
            out["text_hits"] = [
                {
                    "level": h.level,
                    "t0": round(h.t0, 2),
                    "t1": round(h.t1, 2),
                    "score": round(h.score, 4),
                    "text": h.text,
                }
                for h in self.text_hits
            ]
        if self.error:
            out["error"] = self.error
        return out
