"""The wearer's preferences as labels: "thanks" / "not now" on the glasses' buttons (and a
spoken "stop") become labels on the alert they answer, with the gate's features of that
moment, appended to `feedback.jsonl` in the data directory. `edge-assist gate train
--from-feedback` refits the gate from the shipped one with them.

A button press labels the last proactive alert spoken within `WINDOW_S` before it; a
press with no recent alert is ignored (and counted), never attached to an older one.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from edge_assist.events import Decision
from edge_assist.outputs.api import OutputSink

log = logging.getLogger(__name__)

FILE = "feedback.jsonl"
WINDOW_S = 60.0
# What each signal says about the alert it answers.
SIGNALS = {"thanks": 1, "helpful": 1, "not_now": 0, "not-now": 0, "dismiss": 0, "stop": 0}


class FeedbackLog(OutputSink):
    name = "feedback"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._last: Decision | None = None
        self._last_t = 0.0
        self.labelled = 0
        self.ignored = 0

    async def emit(self, decision: Decision) -> None:
        if decision.speak and decision.trigger == "proactive":
            self._last, self._last_t = decision, decision.t

    def label(self, signal: str, now_t: float) -> bool:
        """Attach a wearer's signal to the last alert; False when there is none to attach it to."""
        value = SIGNALS.get(signal.strip().lower())
        d = self._last
        if value is None or d is None or now_t - self._last_t > WINDOW_S:
            self.ignored += 1
            return False
        gate = d.trace.get("gate", {}) if isinstance(d.trace, dict) else {}
        rec: dict[str, Any] = {
            "type": "feedback",
            "signal": signal,
            "label": value,
            "t": round(now_t, 3),
            "decision": {
                "session_id": d.session_id,
                "clip_index": d.clip_index,
                "t0": round(d.stream_t0, 3),
                "t1": round(d.stream_t1, 3),
                "sub_type": d.sub_type.value if d.sub_type else None,
                "text": d.text,
                "probability": gate.get("ER"),
            },
            "features": gate.get("features"),
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self._last = None  # one label per alert
        self.labelled += 1
        return True


def read_feedback(path: str | Path) -> Iterator[dict[str, Any]]:
    """Labels with gate features; a truncated or foreign line is skipped with a warning."""
    p = Path(path)
    if not p.exists():
        return
    with p.open(encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, start=1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                log.warning("%s:%d: not a feedback record (truncated?); skipped", p, n)
                continue
            if (
                isinstance(rec, dict)
                and rec.get("type") == "feedback"
                and isinstance(rec.get("features"), dict)
                and rec.get("label") in (0, 1)
            ):
                yield rec
