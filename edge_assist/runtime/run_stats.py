"""The statistics of one run: what was processed, in how much time, and what was said.

`stream_s` is the stream time this run actually processed (up to the end of the last
clip a decision was made for), from `stream_start_s` (where memory ended, for a resumed
replay): a run stopped by Ctrl-C reports what it did, not what it planned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from edge_assist.runtime.percentiles import percentile


def _mmss(t: float) -> str:
    m, s = divmod(int(round(t)), 60)
    return f"{m}:{s:02d}"


@dataclass
class RunStats:
    session_id: str = ""
    frames: int = 0
    dropped_frames: int = 0
    clips: int = 0
    skipped_clips: int = 0
    captions: int = 0
    decisions: int = 0
    spoken: int = 0
    suppressed: int = 0
    held_behind_weaker: int = 0  # held back because a weaker alert was spoken (only a cap may)
    spoken_after_held: int = 0  # alerts a cooldown held back, said when it ended
    memory_written: int = 0
    wall_s: float = 0.0
    stream_s: float = 0.0
    caption_latency_s: list[float] = field(default_factory=list)
    step_latency_s: list[float] = field(default_factory=list)
    stopped_early: bool = False
    resumed_at: int = 0  # first clip index replayed; earlier ones were already in memory
    stream_start_s: float = 0.0  # where this run started in the stream (the end of what memory held)

    @property
    def real_time_factor(self) -> float:
        """Wall time per second of stream: < 1 keeps up with live."""
        return self.wall_s / self.stream_s if self.stream_s > 0 else 0.0

    def summary_lines(self) -> list[str]:
        span = (
            f" ({_mmss(self.stream_start_s)}-{_mmss(self.stream_start_s + self.stream_s)})"
            if self.stream_start_s
            else ""
        )
        lines = [
            f"session {self.session_id}: {self.stream_s:.0f} s of stream{span} in {self.wall_s:.1f} s "
            f"(real-time factor {self.real_time_factor:.3f})",
        ]
        if self.frames:
            lines.append(
                f"frames {self.frames} (dropped {self.dropped_frames}), "
                f"clips {self.clips} (skipped {self.skipped_clips})"
            )
        silent = self.decisions - self.spoken - self.suppressed
        lines.append(
            f"captions {self.captions}, decisions {self.decisions}: {self.spoken} spoken, "
            f"{silent} silent, {self.suppressed} held back by the policy "
            f"({self.held_behind_weaker} behind a weaker alert; {self.spoken_after_held} said later)"
        )
        if self.memory_written:
            lines.append(f"memory: {self.memory_written} captions written")
        if self.step_latency_s:
            s = sorted(self.step_latency_s)
            lines.append(f"step latency: median {s[len(s) // 2]:.2f} s, max {s[-1]:.2f} s")
        if self.resumed_at:
            lines.append(
                f"resumed at clip {self.resumed_at}: earlier clips were already in memory "
                "(use another general.data_dir, or `edge-assist memory forget`, to replay them again)"
            )
        if self.stopped_early:
            lines.append("stopped before the end of the stream")
        return lines

    def to_json(self) -> dict[str, Any]:
        def pct(xs: list[float], q: float) -> float | None:
            return percentile(xs, 100 * q, 4)

        return {
            "session_id": self.session_id,
            "frames": self.frames,
            "dropped_frames": self.dropped_frames,
            "clips": self.clips,
            "skipped_clips": self.skipped_clips,
            "captions": self.captions,
            "decisions": self.decisions,
            "spoken": self.spoken,
            "suppressed": self.suppressed,
            "held_behind_weaker": self.held_behind_weaker,
            "spoken_after_held": self.spoken_after_held,
            "memory_written": self.memory_written,
            "wall_s": round(self.wall_s, 3),
            "stream_s": round(self.stream_s, 3),
            "real_time_factor": round(self.real_time_factor, 4),
            "caption_latency_s": {
                "p50": pct(self.caption_latency_s, 0.5),
                "p95": pct(self.caption_latency_s, 0.95),
            },
            "step_latency_s": {"p50": pct(self.step_latency_s, 0.5), "p95": pct(self.step_latency_s, 0.95)},
            "stopped_early": self.stopped_early,
            "resumed_at": self.resumed_at,
            "stream_start_s": round(self.stream_start_s, 3),
        }
