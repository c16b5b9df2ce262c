"""Benchmark variants derived from the stored per-step streams: streams as glasses see them.

The stored variants are `original` (one caption per performed step, annotated wording) and
`paraphrased` (its first-person twin). Three more are derived from them, deterministically,
when first asked for (`Dataset.stream`), and kept in a cache directory (a file's name carries
the sha256 of its source stream and of this code), so the package ships no extra megabytes
and a fresh clone can run them:

- `clips`: every step cut into 10-s clips, as many as its window holds (at least one):
  consecutive clips from the step's start, the last one stretched to the step's end (10 to
  20 s). Every clip carries the step's paraphrased caption.
- `captioner`: the same cut, each clip written in a video captioner's words by
  `captioner_style.restyle` from the step's annotated caption.
- `list`: the paraphrased per-step stream, with the task given as the wearer's own plain
  list: no `recipe` in the meta, `task_context` = "Steps: 1. ...; 2. ..." (the recipe's steps
  in its listed order) and `task_list: true` (not to be looked up in the task library).

Each clip line also says which per-step caption it was cut from (`"step"`: its position in
the per-step stream), which the caption-stream reader ignores and `check` uses. The ground
truth is the split's `gt.jsonl`, the same for every variant.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation import captioner_style
from edge_assist.evaluation.annotations import GTEvent, write_jsonl
from edge_assist.evaluation.captioner_style import restyle
from edge_assist.evaluation.paraphrase import contains_verbatim
from edge_assist.tasks.library import parse_listed_steps

STORED = ("original", "paraphrased")
DERIVED = ("clips", "captioner", "list")
CLIP_S = 10.0
SEED = 0
RESTYLE_TRIES = 4
SCENE_PLACES = (-1, 0, 1, 2, 3)  # where the restyler may put the scene (see `restyle`)
CACHE_ENV = "EDGE_ASSIST_BENCH_CACHE"
SOURCE_OF = {"clips": "paraphrased", "captioner": "original", "list": "paraphrased"}


class VariantError(EdgeAssistError):
    """A derived stream could not be written, or does not match its per-step stream."""


def default_cache_dir() -> Path:
    """$EDGE_ASSIST_BENCH_CACHE, else $XDG_CACHE_HOME/edge-assist/benchmarks (~/.cache/...)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "edge-assist" / "benchmarks"


def clip_windows(t0: float, t1: float, clip_s: float = CLIP_S) -> list[tuple[float, float]]:
    """10-s clips from t0, as many as [t0, t1] holds (at least one); the last ends at t1."""
    n = max(1, math.floor((t1 - t0) / clip_s + 1e-9))
    starts = [round(t0 + k * clip_s, 3) for k in range(n)]
    return [(s, starts[k + 1] if k + 1 < n else t1) for k, s in enumerate(starts)]


def read_lines(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(meta, caption lines) of a stored stream."""
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    if not lines or "meta" not in lines[0]:
        raise VariantError(f"{path} has no meta line; rebuild with `edge-assist eval build-captaincook`")
    return lines[0]["meta"], lines[1:]


def listed_steps(meta: dict[str, Any]) -> list[str]:
    """The recipe's steps, in the order the stream's task context lists them."""
    _, steps = parse_listed_steps(str(meta.get("task_context", "")))
    return list(steps)


def _clipped(
    meta: dict[str, Any], captions: list[dict[str, Any]], text_of: Callable[[int, int, str], str], source: str
) -> list[dict]:
    """Every step cut into clips; `text_of(step_index, clip_index, caption)` writes each clip."""
    rows: list[dict[str, Any]] = []
    for i, c in enumerate(captions):
        for k, (t0, t1) in enumerate(clip_windows(float(c["t0"]), float(c["t1"]))):
            rows.append({"t0": t0, "t1": t1, "text": text_of(i, k, c["text"]), "step": i})
    # Steps may overlap; the stream is in time order (stable: a step's clips keep their order).
    rows.sort(key=lambda r: r["t0"])
    return [{"meta": {**meta, "source": source}}, *rows]


def clips(meta: dict[str, Any], captions: list[dict[str, Any]]) -> list[dict]:
    src = f"{meta.get('source', '')}; cut into {CLIP_S:g}-s clips, each with its step's caption"
    return _clipped(meta, captions, lambda i, k, text: text, src)


def captioner(meta: dict[str, Any], captions: list[dict[str, Any]], *, seed: int = SEED) -> list[dict]:
    """Clips in a video captioner's words, none quoting a recipe step."""
    steps = listed_steps(meta)
    rid = str(meta.get("recording", meta.get("session_id", "")))

    def text_of(i: int, k: int, text: str) -> str:
        return restyled_clear_of(text, steps, f"{seed}:{rid}:{i}:{k}", clip=k)

    src = f"{meta.get('source', '')}; cut into {CLIP_S:g}-s clips, restyled as a video captioner's words"
    return _clipped(meta, captions, text_of, src)


def restyled_clear_of(text: str, steps: Sequence[str], key: str, *, clip: int) -> str:
    """A restyling that quotes no recipe step: other seeds, then the scene moved inside."""
    for attempt in range(RESTYLE_TRIES):
        for place in SCENE_PLACES:
            out = restyle(text, random.Random(f"{key}:{attempt}"), clip=clip, scene_at=place)
            if not any(contains_verbatim(out, s) for s in steps):
                return out
    raise VariantError(
        f"cannot restyle {text!r} without quoting the recipe; extend evaluation/captioner_style.py"
    )


def as_list(meta: dict[str, Any], captions: list[dict[str, Any]]) -> list[dict]:
    """The task as the wearer's own list: no recipe named, no graph, the steps in listed order."""
    steps = listed_steps(meta)
    if len(steps) < 2:
        raise VariantError(f"stream {meta.get('session_id')} lists no recipe steps in its task context")
    kept = {k: v for k, v in meta.items() if k not in ("recipe", "task", "task_context", "source")}
    listed = {
        **kept,
        "task_context": "Steps: " + "; ".join(f"{n}. {s}" for n, s in enumerate(steps, start=1)),
        "task_list": True,
        "source": f"{meta.get('source', '')}; the recipe given as a plain list (no task graph)",
    }
    return [{"meta": listed}, *({"t0": c["t0"], "t1": c["t1"], "text": c["text"]} for c in captions)]


def derive(variant: str, source: Path) -> list[dict]:
    """The derived stream (meta line first) from its stored per-step stream."""
    meta, captions = read_lines(source)
    if variant == "clips":
        return clips(meta, captions)
    if variant == "captioner":
        return captioner(meta, captions)
    if variant == "list":
        return as_list(meta, captions)
    raise VariantError(f"{variant!r} is not a derived variant ({', '.join(DERIVED)})")


def _rules() -> str:
    """The derivation's own code: a cached stream written by other rules is not reused."""
    code = Path(__file__).read_bytes() + Path(captioner_style.__file__).read_bytes()
    return hashlib.sha256(code).hexdigest()


def derived_path(root: Path, split: str, variant: str, rid: str, cache_dir: Path | None = None) -> Path:
    """The derived stream's file, written into the cache when missing (same input, same file)."""
    source = root / split / SOURCE_OF[variant] / f"{rid}.jsonl"
    if not source.exists():
        raise VariantError(f"{source} is missing; the {variant!r} variant is derived from it")
    digest = hashlib.sha256(source.read_bytes() + f"{variant}:{SEED}:{_rules()}".encode()).hexdigest()
    out = (cache_dir or default_cache_dir()) / split / variant / f"{rid}.{digest[:16]}.jsonl"
    if not out.exists():
        tmp = out.with_suffix(f".{os.getpid()}.tmp")
        write_jsonl(tmp, derive(variant, source))
        tmp.replace(out)  # atomic: parallel runs may write the same file
    return out


def check(per_step: Path, derived: Path, gt: Sequence[GTEvent], *, same_text: bool) -> list[str]:
    """What is wrong with a clip stream against its per-step stream (nothing: []).

    Every step has its clips (as many as its window holds), each inside the step's window,
    the first starting at the step's start and the last ending at its end; the session is
    the same, so the same ground truth applies; every ground-truth window is a step's
    window. `same_text`: every clip carries its step's caption (`clips`).
    """
    meta, steps = read_lines(per_step)
    dmeta, rows = read_lines(derived)
    where = derived.name
    problems = []
    if dmeta.get("session_id") != meta.get("session_id"):
        problems.append(f"{where}: session {dmeta.get('session_id')!r} is not {meta.get('session_id')!r}")
    of_step: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        i = r.get("step")
        if not isinstance(i, int) or not 0 <= i < len(steps):
            problems.append(f"{where}: clip at {r.get('t0')} names no step of the per-step stream")
            continue
        of_step.setdefault(i, []).append(r)
    for i, s in enumerate(steps):
        cs, (t0, t1) = of_step.get(i, []), (float(s["t0"]), float(s["t1"]))
        want = len(clip_windows(t0, t1))
        if len(cs) != want:
            problems.append(f"{where}: step {i} [{t0}, {t1}] has {len(cs)} clips, not {want}")
            continue
        if any(c["t0"] < t0 or c["t1"] > t1 or c["t1"] < c["t0"] for c in cs):
            problems.append(f"{where}: a clip of step {i} lies outside [{t0}, {t1}]")
        if cs[0]["t0"] != t0 or cs[-1]["t1"] != t1:
            problems.append(f"{where}: the clips of step {i} do not span [{t0}, {t1}]")
        if same_text and any(c["text"] != s["text"] for c in cs):
            problems.append(f"{where}: a clip of step {i} does not carry the step's caption")
    windows = {(float(s["t0"]), float(s["t1"])) for s in steps}
    sid = meta.get("session_id")
    for g in gt:
        if g.session_id == sid and (g.t0, g.t1) not in windows:
            problems.append(f"{where}: ground truth at [{g.t0}, {g.t1}] is no step's window")
    return problems
