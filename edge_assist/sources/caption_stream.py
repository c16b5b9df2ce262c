"""Caption-stream replay: recordings whose captions already exist.

Two formats:
- JSONL: one `{"t0": seconds, "t1": seconds, "text": "..."}` per line, in time order;
  other keys are ignored. An optional first line `{"meta": {...}}` may name the
  `session_id` and give a `task_context` (what the wearer is doing).
- SRT subtitles: each cue is one caption.

The whole file is validated when it is opened, so a truncated or malformed file is
reported with its line number before anything is written to memory.
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from edge_assist.config.input_sections import LimitsConfig
from edge_assist.errors import SourceError
from edge_assist.text.bounds import cut_text

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CaptionLine:
    t0: float
    t1: float
    text: str


@dataclass(frozen=True)
class CaptionStream:
    path: Path
    session_id: str
    captions: tuple[CaptionLine, ...]
    task_context: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        return self.captions[-1].t1 if self.captions else 0.0


_SRT_TIME = re.compile(r"(\d+):(\d{2}):(\d{2})[,.](\d{1,3})\s*-->\s*(\d+):(\d{2}):(\d{2})[,.](\d{1,3})")


def _srt_seconds(h: str, m: str, s: str, ms: str) -> float:
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms.ljust(3, "0")) / 1000.0


def _bad(path: Path, line: int, what: str) -> SourceError:
    return SourceError(
        f'{path}:{line}: {what}; fix or remove that line (format: one {{"t0", "t1", "text"}} per line)'
    )


def non_finite(value: Any, where: str = "") -> str | None:
    """The key path of the first NaN or infinite number in a parsed JSON value, else None.

    Python's json accepts NaN, Infinity and -Infinity (and 1e999 overflows to inf); a
    non-finite time would never come round on a clock, so it is refused at the door.
    """
    if isinstance(value, float) and not math.isfinite(value):
        return where or "value"
    if isinstance(value, dict):
        for k, v in value.items():
            found = non_finite(v, f"{where}.{k}" if where else str(k))
            if found:
                return found
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found = non_finite(v, f"{where}[{i}]")
            if found:
                return found
    return None


def _too_long(path: Path, text: str, limit: int) -> None:
    """Refuse a line over `limit` bytes before parsing it: one 10 MB line would otherwise be
    a 10 MB caption, minutes of encoding and a store that grows by as much."""
    for n, raw in enumerate(text.splitlines(), start=1):
        if len(raw) > limit // 4 and len(raw.encode("utf-8")) > limit:
            size = len(raw.encode("utf-8"))
            raise SourceError(
                f"{path}:{n}: line of {size:,} bytes, over limits.stream_line_bytes = {limit:,}; shorten or "
                "remove that line (or raise the limit)"
            )


def _parse_jsonl(path: Path, text: str) -> tuple[list[CaptionLine], dict[str, Any]]:
    captions: list[CaptionLine] = []
    meta: dict[str, Any] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as e:
            raise _bad(path, n, f"not valid JSON ({e.msg}; truncated file?)") from None
        except (ValueError, RecursionError):
            # An integer of thousands of digits, or arrays nested thousands deep: not a caption.
            raise _bad(path, n, "not a caption record (a number too long or nesting too deep)") from None
        if not isinstance(obj, dict):
            raise _bad(path, n, "expected a JSON object")
        bad_key = non_finite(obj)
        if bad_key:
            raise _bad(path, n, f"{bad_key} is not a finite number (NaN or infinity)")
        if "meta" in obj and not captions:
            if not isinstance(obj["meta"], dict):
                raise _bad(path, n, "'meta' must be an object")
            meta = obj["meta"]
            continue
        try:
            t0, t1, caption = float(obj["t0"]), float(obj["t1"]), obj["text"]
        except KeyError as e:
            raise _bad(path, n, f"missing key {e.args[0]!r}") from None
        except (TypeError, ValueError, OverflowError):
            raise _bad(path, n, "t0 and t1 must be numbers of seconds") from None
        if not isinstance(caption, str) or not caption.strip():
            raise _bad(path, n, "'text' must be a non-empty string")
        captions.append(_checked(path, n, t0, t1, caption, captions))
    return captions, meta


def _checked(path: Path, n: int, t0: float, t1: float, text: str, before: list[CaptionLine]) -> CaptionLine:
    if not (math.isfinite(t0) and math.isfinite(t1)):
        # Also a number given as a string ("nan", "inf"), which float() accepts.
        raise _bad(path, n, f"time window {t0}..{t1} is not made of finite numbers")
    if t0 < 0 or t1 < t0:
        raise _bad(path, n, f"time window {t0}..{t1} is not 0 <= t0 <= t1")
    if before and t0 < before[-1].t0:
        raise _bad(
            path, n, f"captions must be in time order (t0 {t0} comes before the previous {before[-1].t0})"
        )
    return CaptionLine(t0, t1, " ".join(text.split()))


def _parse_srt(path: Path, text: str) -> list[CaptionLine]:
    captions: list[CaptionLine] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        start = i
        if lines[i].strip().isdigit():
            i += 1
        if i >= len(lines):
            raise SourceError(
                f"{path}:{start + 1}: cue without a time line (truncated file?); fix or remove it"
            )
        m = _SRT_TIME.search(lines[i])
        if not m:
            raise SourceError(f"{path}:{i + 1}: expected 'HH:MM:SS,mmm --> HH:MM:SS,mmm'; fix that cue")
        try:
            t0, t1 = _srt_seconds(*m.group(1, 2, 3, 4)), _srt_seconds(*m.group(5, 6, 7, 8))
        except (ValueError, OverflowError):  # thousands of digits: no time a recording has
            raise SourceError(f"{path}:{i + 1}: time out of range; fix that cue") from None
        i += 1
        body = []
        while i < len(lines) and lines[i].strip():
            body.append(re.sub(r"<[^>]+>", "", lines[i]).strip())
            i += 1
        caption = " ".join(b for b in body if b)
        if not caption:
            raise SourceError(f"{path}:{start + 1}: cue has no text; fix or remove it")
        captions.append(_checked(path, start + 1, t0, t1, caption, captions))
    return captions


def _cut(captions: list[CaptionLine], path: Path, limit: int) -> list[CaptionLine]:
    """Captions over `limit` characters cut at a word, with one warning for the stream."""
    long = [c for c in captions if len(c.text) > limit]
    if not long:
        return captions
    log.warning(
        "%s: %d caption(s) longer than limits.caption_chars = %d characters were cut (the longest had %d)",
        path,
        len(long),
        limit,
        max(len(c.text) for c in long),
    )
    return [CaptionLine(c.t0, c.t1, cut_text(c.text, limit)) if len(c.text) > limit else c for c in captions]


def load_caption_stream(path: str | Path, limits: LimitsConfig | None = None) -> CaptionStream:
    bounds = limits if limits is not None else LimitsConfig()
    p = Path(path)
    if not p.exists():
        raise SourceError(f"caption file {p} does not exist; check the path")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SourceError(f"{p} is not UTF-8 text; a caption stream is JSONL or SRT") from None
    except OSError as e:
        raise SourceError(f"cannot read {p}: {e.strerror}") from None
    _too_long(p, text, bounds.stream_line_bytes)
    if p.suffix.lower() == ".srt":
        meta: dict[str, Any] = {}
        captions = _parse_srt(p, text)
    else:
        captions, meta = _parse_jsonl(p, text)
    captions = _cut(captions, p, bounds.caption_chars)
    if not captions:
        raise SourceError(
            f'{p} holds no captions; a caption stream needs at least one {{"t0", "t1", "text"}} line'
        )
    session_id = str(meta.get("session_id") or p.stem)
    return CaptionStream(p, session_id, tuple(captions), str(meta.get("task_context", "")), meta)


VIDEO_SUFFIXES = {".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v", ".mpg", ".mpeg", ".h264", ".ts"}
CAPTION_SUFFIXES = {".jsonl", ".json", ".srt"}


def replay_kind(path: str | Path) -> str:
    """'captions' or 'video', from the file name; unknown suffixes are treated as video."""
    return "captions" if Path(path).suffix.lower() in CAPTION_SUFFIXES else "video"
