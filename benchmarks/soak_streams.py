"""The soak's week: real CaptainCook4D caption streams stitched into 16-hour days.

A day runs 07:00-23:00 of simulated wall time and is cut into sessions of `session_h`
hours (the glasses are taken off between them). A session is real recordings played back
to back, each recording's performed steps turned into 10-s clips as the segmenter cuts
live video (one caption per clip that overlaps a step, the steps' texts joined), with a
short pause between recordings. Two recordings are daily routines: the first of the
morning session and the first of the evening session are the same recording every day,
so the Long-Term services (habits, memory links, routines) have a repeated past to find.
The other recordings are drawn in turn from the dataset (a fixed shuffle, no repeats
until all 275 are used): a week needs ~1.7 passes over the 67 hours of annotation.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from edge_assist.evaluation.captaincook import Recording, load_raw
from edge_assist.events import Caption

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "captaincook4d"
DAY_START_H = 7.0
GAP_S = 60.0  # between two recordings of one session: putting things away, walking over


@dataclass(frozen=True)
class Session:
    day: int  # 1-based
    index: int  # within the day
    session_id: str
    wall_start: float  # simulated epoch seconds at stream t = 0
    length_s: float
    recordings: tuple[str, ...]
    captions: tuple[Caption, ...]


def clips_of(
    rec: Recording, session_id: str, offset_s: float, first_index: int, clip_s: float
) -> list[Caption]:
    """One caption per clip overlapping a performed step; indices continue the session's."""
    steps = [(offset_s + s.start, offset_s + s.end, s.caption) for s in rec.performed if s.caption]
    if not steps:
        return []
    end = max(b for _, b, _ in steps)
    out: list[Caption] = []
    i0 = math.floor(offset_s / clip_s)
    for i in range(i0, math.ceil(end / clip_s)):
        a, b = i * clip_s, (i + 1) * clip_s
        texts = [t for s0, s1, t in steps if s0 < b and s1 > a]
        if texts:
            idx = first_index + len(out)
            out.append(
                Caption(
                    t=b,
                    session_id=session_id,
                    index=idx,
                    t0=a,
                    t1=b,
                    text="; ".join(dict.fromkeys(texts)),
                    source="replay",
                )
            )
    return out


class Week:
    """The recordings and the order they are played in; `days()` yields each day's sessions."""

    def __init__(
        self, data_dir: Path = DEFAULT_DATA, *, seed: int = 13, epoch: float = 1_767_571_200.0
    ) -> None:
        # epoch: Monday 2026-01-05 00:00 UTC, a fixed simulated calendar (retention counts its days).
        raw = load_raw(data_dir)
        self.recordings = raw.recordings
        ids = sorted(self.recordings)
        by_activity = sorted(ids, key=lambda r: (self.recordings[r].activity_id, r))
        # The routines: the shortest recording of the first activity (breakfast) and of the last (evening).
        first_act = self.recordings[by_activity[0]].activity_id
        last_act = self.recordings[by_activity[-1]].activity_id
        self.morning = min(
            (r for r in ids if self.recordings[r].activity_id == first_act),
            key=lambda r: (self.recordings[r].duration_s, r),
        )
        self.evening = min(
            (r for r in ids if self.recordings[r].activity_id == last_act),
            key=lambda r: (self.recordings[r].duration_s, r),
        )
        self.pool = [r for r in ids if r not in (self.morning, self.evening)]
        random.Random(seed).shuffle(self.pool)
        self.epoch = epoch
        self._next = 0

    def clip_texts(self, clip_s: float = 10.0) -> list[str]:
        """Every clip text the week can hold: a recording starts on a clip boundary, so its
        clips read the same wherever it is played (a session's end only cuts some off)."""
        return list(
            dict.fromkeys(
                c.text
                for rid in sorted(self.recordings)
                for c in clips_of(self.recordings[rid], "x", 0.0, 0, clip_s)
            )
        )

    def _draw(self) -> str:
        r = self.pool[self._next % len(self.pool)]
        self._next += 1
        return r

    def day(
        self, day: int, *, hours: float = 16.0, session_h: float = 2.0, clip_s: float = 10.0
    ) -> Iterator[Session]:
        """The sessions of one day, in order. Call for day 1, 2, ... in turn (recordings are drawn
        in order)."""
        n = max(1, round(hours / session_h))
        length = hours * 3600.0 / n
        evening_at = n - 2 if n >= 3 else n - 1  # the session that starts the evening (19:00 of 8)
        for k in range(n):
            sid = f"soak-d{day}-s{k:02d}"
            wall = self.epoch + (day - 1) * 86400.0 + DAY_START_H * 3600.0 + k * length
            t, caps, used = 0.0, list[Caption](), list[str]()
            first = self.morning if k == 0 else self.evening if k == evening_at else None
            while t < length:
                rid = first if first is not None else self._draw()
                first = None
                rec = self.recordings[rid]
                new = clips_of(rec, sid, t, len(caps), clip_s)
                new = [c for c in new if c.t1 <= length]
                caps += new
                used.append(rid)
                t = math.ceil((t + rec.duration_s + GAP_S) / clip_s) * clip_s
            # Indices count captions in order, as a replayed caption stream numbers them (so a
            # replay of the same session resumes where the bulk fill stopped).
            yield Session(day, k, sid, wall, length, tuple(used), tuple(caps))
