"""Ground-truth events and predictions, and the readers for every format we score.

Formats read:
- EgoServe's released annotations (JSON list, JSON object holding lists, or JSONL): records
  with `sub_type`, `current_time_window` ("DAY1 10:02:05–10:02:20", en dash or hyphen, or
  seconds as "12.5-20" / [12.5, 20]) and `proactive_dialogue`.
- Our ground-truth JSONL: {"session_id", "t0", "t1", "sub_type", "description", ...} per line.
- Our decision log: `Decision.to_json` lines; the `speak` ones are the predictions.

A bad record never sinks the file: it becomes a `Problem` naming its position, and the rest
is scored. Only an unreadable file is an `EdgeAssistError`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge_assist.errors import EdgeAssistError
from edge_assist.events import MainType, SubType

SECONDS_PER_DAY = 86400.0


class AnnotationError(EdgeAssistError):
    """An annotation or prediction file cannot be read at all."""


class _Windowed:
    """Shared by ground truth and predictions: a sub-type over a [t0, t1] window."""

    sub_type: SubType
    t0: float
    t1: float

    @property
    def main_type(self) -> MainType:
        return self.sub_type.main_type

    @property
    def centre(self) -> float:
        return (self.t0 + self.t1) / 2


@dataclass(frozen=True)
class GTEvent(_Windowed):
    """One service the wearer should have received, in the window [t0, t1] (stream seconds)."""

    session_id: str
    t0: float
    t1: float
    sub_type: SubType
    description: str = ""  # what went wrong / what should be said, for content match and judge
    extra: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Prediction(_Windowed):
    """One spoken service; located at its window's centre for matching."""

    session_id: str
    t0: float
    t1: float
    sub_type: SubType
    text: str = ""


@dataclass(frozen=True)
class Problem:
    """A record that could not be used, and why; reported, never fatal."""

    source: str
    position: int  # 1-based record number (the line for JSONL)
    message: str

    def __str__(self) -> str:
        return f"{self.source}: record {self.position}: {self.message}"


@dataclass
class Loaded:
    gt: list[GTEvent] = field(default_factory=list)
    predictions: list[Prediction] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


# -- time windows -------------------------------------------------------------------

_CLOCK = r"(?:DAY\s*(\d+)\s+)?(\d{1,3}):(\d{2})(?::(\d{2}(?:\.\d+)?))?"
_CLOCK_WINDOW = re.compile(rf"^\s*{_CLOCK}\s*[\u2013\u2014\-~]+\s*{_CLOCK}\s*$", re.IGNORECASE)
_SECONDS_WINDOW = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:s\s*)?[\u2013\u2014\-~,]+\s*(\d+(?:\.\d+)?)\s*s?\s*$")


def _clock_seconds(day: str | None, hh: str, mm: str, ss: str | None, default_day: int) -> float:
    d = int(day) if day else default_day
    if int(mm) >= 60 or (ss is not None and float(ss) >= 60):
        raise ValueError("minutes and seconds must be below 60")
    # Days make multi-day recordings one time line: DAY2 00:00:00 follows DAY1 23:59:59.
    return (d - 1) * SECONDS_PER_DAY + int(hh) * 3600 + int(mm) * 60 + (float(ss) if ss else 0.0)


def parse_window(value: Any) -> tuple[float, float]:
    """A time window as (t0, t1) seconds; raises ValueError with the reason."""
    try:
        t0, t1 = _parse_window(value)
    except OverflowError:
        raise ValueError(f"time window {_short(value)} is out of range") from None
    if not (math.isfinite(t0) and math.isfinite(t1)):
        raise ValueError(f"time window {_short(value)} is not finite")
    return t0, t1


def _short(value: Any) -> str:
    r = repr(value)
    return r if len(r) <= 80 else r[:77] + "..."


def _parse_window(value: Any) -> tuple[float, float]:
    if isinstance(value, list | tuple) and len(value) == 2:
        try:
            t0, t1 = float(value[0]), float(value[1])
        except (TypeError, ValueError):
            raise ValueError(f"time window {value!r} must hold two numbers of seconds") from None
    elif isinstance(value, dict) and {"start", "end"} <= value.keys():
        return parse_window([value["start"], value["end"]])
    elif isinstance(value, str):
        m = _CLOCK_WINDOW.match(value)
        if m:
            d0, h0, m0, s0, d1, h1, m1, s1 = m.groups()
            t0 = _clock_seconds(d0, h0, m0, s0, 1)
            # An end without a day is on the start's day.
            t1 = _clock_seconds(d1, h1, m1, s1, int(d0) if d0 else 1)
        else:
            m = _SECONDS_WINDOW.match(value)
            if not m:
                raise ValueError(
                    f"time window {value!r} is not 'DAY# HH:MM:SS–HH:MM:SS' nor 'start-end' seconds"
                )
            t0, t1 = float(m.group(1)), float(m.group(2))
    else:
        raise ValueError(f"time window {value!r} is not 'DAY# HH:MM:SS–HH:MM:SS' nor [start, end] seconds")
    if t1 < t0:
        raise ValueError(f"time window {value!r} ends before it starts")
    return t0, t1


def _dialogue_text(value: Any) -> str:
    """The assistant's words from `proactive_dialogue` (a string, a turn, or a list of turns)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        for key in ("assistant", "content", "text", "utterance", "response"):
            if isinstance(value.get(key), str):
                return str(value[key]).strip()
        return " ".join(_dialogue_text(v) for v in value.values() if isinstance(v, str | dict | list)).strip()
    if isinstance(value, list):
        turns = [t for t in value if not (isinstance(t, dict) and str(t.get("role", "")).lower() == "user")]
        return " ".join(filter(None, (_dialogue_text(t) for t in turns))).strip()
    return str(value)


# -- file reading ---------------------------------------------------------------------


def _records(path: Path) -> Iterator[tuple[int, Any]]:
    """(position, record) from a JSONL file or a JSON document; undecodable lines yield an error."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise AnnotationError(f"cannot read {path}: {e}; check the path") from None
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError) as e:  # also a number too long, nesting too deep
            raise AnnotationError(
                f"{path} is not valid JSON ({_why(e)}); fix it or write one record per line"
            ) from None
        yield from enumerate(doc, start=1)
        return
    if stripped.startswith("{") and "\n{" not in stripped.rstrip():
        # One JSON object: either a single record or an object holding lists of records
        # (EgoServe groups annotations per video).
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError) as e:  # also a number too long, nesting too deep
            raise AnnotationError(
                f"{path} is not valid JSON ({_why(e)}); fix it or write one record per line"
            ) from None
        if isinstance(doc, dict) and not _looks_like_record(doc):
            pos = 0
            for key, value in doc.items():
                items = value if isinstance(value, list) else [value]
                for item in items:
                    pos += 1
                    if isinstance(item, dict):
                        item = {"video_id": key, **item}
                    yield pos, item
            return
        yield 1, doc
        return
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError) as e:
            rec = ValueError(f"not valid JSON ({_why(e)})")
        yield n, rec


def _why(e: Exception) -> str:
    if isinstance(e, json.JSONDecodeError):
        return e.msg
    return "nesting too deep" if isinstance(e, RecursionError) else "a number too long"


def _looks_like_record(d: dict[str, Any]) -> bool:
    return any(k in d for k in ("sub_type", "current_time_window", "t0", "decision", "meta"))


def _session_of(rec: dict[str, Any], default: str) -> str:
    for key in ("session_id", "video_id", "video_uid", "recording", "recording_id"):
        if rec.get(key) not in (None, ""):
            return str(rec[key])
    return default


def _parse_sub_type(rec: dict[str, Any]) -> SubType:
    raw = rec.get("sub_type")
    if raw in (None, ""):
        raise ValueError("has no sub_type")
    return SubType.parse(str(raw))


def read_ground_truth(path: str | Path, *, session: str | None = None) -> Loaded:
    """Ground truth from EgoServe annotations or our GT JSONL (told apart per record)."""
    p = Path(path)
    default = session or p.stem
    out = Loaded()
    for pos, rec in _records(p):
        try:
            if isinstance(rec, Exception):
                raise rec
            if not isinstance(rec, dict):
                raise ValueError("is not a JSON object")
            if "meta" in rec:
                continue
            st = _parse_sub_type(rec)
            if "current_time_window" in rec:
                t0, t1 = parse_window(rec["current_time_window"])
                desc = _dialogue_text(rec.get("proactive_dialogue")) or str(rec.get("description", ""))
            elif "t0" in rec and "t1" in rec:
                t0, t1 = parse_window([rec["t0"], rec["t1"]])
                desc = str(rec.get("description", "")) or _dialogue_text(rec.get("proactive_dialogue"))
            else:
                raise ValueError("has no current_time_window (nor t0/t1)")
            known = {"sub_type", "current_time_window", "t0", "t1", "description", "session_id"}
            extra = {k: v for k, v in rec.items() if k not in known}
            out.gt.append(GTEvent(_session_of(rec, default), t0, t1, st, desc, extra))
        except ValueError as e:
            out.problems.append(Problem(str(p), pos, str(e)))
    return out


def read_predictions(path: str | Path, *, session: str | None = None) -> Loaded:
    """Spoken services from a decision log (Decision.to_json lines) or an EgoServe-style file."""
    p = Path(path)
    default = session or p.stem
    out = Loaded()
    for pos, rec in _records(p):
        try:
            if isinstance(rec, Exception):
                raise rec
            if not isinstance(rec, dict):
                raise ValueError("is not a JSON object")
            if "meta" in rec or rec.get("type") in ("stats", "question"):
                continue
            if "decision" in rec:
                if rec["decision"] != "speak":
                    continue
                pred = prediction_from_json(rec, default)
            else:
                st = _parse_sub_type(rec)
                t0, t1 = parse_window(rec.get("current_time_window", [rec.get("t0"), rec.get("t1")]))
                text = _dialogue_text(rec.get("proactive_dialogue")) or str(rec.get("text", ""))
                pred = Prediction(_session_of(rec, default), t0, t1, st, text)
            out.predictions.append(pred)
        except ValueError as e:
            out.problems.append(Problem(str(p), pos, str(e)))
    return out


def prediction_from_json(rec: dict[str, Any], default_session: str = "") -> Prediction:
    """A spoken `Decision.to_json` record as a prediction; raises ValueError when unusable."""
    st = _parse_sub_type(rec)
    t0, t1 = parse_window([rec.get("t0"), rec.get("t1")])
    return Prediction(_session_of(rec, default_session), t0, t1, st, str(rec.get("text", "")))


def gt_to_json(ev: GTEvent) -> dict[str, Any]:
    return {
        "session_id": ev.session_id,
        "t0": round(ev.t0, 3),
        "t1": round(ev.t1, 3),
        "sub_type": ev.sub_type.value,
        "description": ev.description,
        **ev.extra,
    }


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> None:
    """Whole or not at all: a file that exists is complete (a rerun may read it back)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    tmp.replace(path)
