"""Ego4D Goal-Step as clip streams with no task named: unscripted home activity.

Ego4D Goal-Step (Song et al., NeurIPS 2023), MIT License. Each video is cut into 10-s clips
from its annotated start; each clip is captioned from the substeps overlapping it (the
step itself where none of its substeps does), in a captioner's words
(`goalstep_captions.py`). A clip that overlaps no segment is left out of the stream, not
captioned: what the wearer did there is unknown, and a sentence made up for it ("The
person continues ...") would be the builder's words, not the wearer's; its time still
counts in the video's hours, since glasses would be running.

Nothing here is labelled a mistake. In the `clips` variant no task is named: the stream's
meta carries no `task`, `recipe` or `task_context`, and the video's goal lies under `truth`, a
key the assistant does not read, for reports only. The `list` variant is the same stream with
the task named as the wearer's own plain list, written from the steps the person really did
(`own_list`): a list that was followed, in a real person's order, with their repeats,
interruptions and asides. In both, every spoken alert is a false alarm, so the ground truth of
each split is empty. Videos go to `train` or `val` by a hash of their id.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation.annotations import write_jsonl
from edge_assist.evaluation.goalstep_captions import clause, sentence
from edge_assist.evaluation.scorer import DELTA_S

DATASET = "ego4d-goalstep"
CREDIT = "Ego4D Goal-Step (Song et al., NeurIPS 2023), MIT License"
SOURCE = "Ego4D Goal-Step annotations, 10-s clips captioned from the substeps overlapping them"
DATA_FILE = "goalstep_dev.json"
VARIANT = "clips"
# The same clip streams with a task named as the wearer's own plain list (see `own_list`).
LIST_VARIANT = "list"
VARIANTS = (VARIANT, LIST_VARIANT)
# A list someone writes for their own task is short: the first distinct steps they did.
MAX_LISTED = 15
SPLITS = ("train", "val")
CLIP_S = 10.0
# A segment belongs to a clip when it covers at least this much of it (or lies wholly in it):
# a substep that ends 0.2 s into a clip is not what the camera shows there.
MIN_OVERLAP_S = 1.0
# A 10-s clip shows a few actions at most; more names would read like the annotation, not a caption.
MAX_ACTIONS = 3


class GoalStepError(EdgeAssistError):
    """The Goal-Step annotations are missing or not in the published form."""


@dataclass(frozen=True)
class Segment:
    start: float
    end: float
    description: str
    substeps: tuple[Segment, ...] = ()
    relevance: str = ""  # a step's `is_relevant`: essential, optional, irrelevant, unsure

    def overlap(self, t0: float, t1: float) -> float:
        return min(self.end, t1) - max(self.start, t0)

    def shown_in(self, t0: float, t1: float) -> bool:
        o = self.overlap(t0, t1)
        return o > 0 and o >= min(MIN_OVERLAP_S, self.end - self.start)


@dataclass(frozen=True)
class Video:
    uid: str
    start: float
    end: float
    goal_category: str
    goal_description: str
    steps: tuple[Segment, ...]

    @property
    def session_id(self) -> str:
        return f"goalstep-{self.uid}"

    @property
    def duration_s(self) -> float:
        return self.end - self.start

    @property
    def split(self) -> str:
        return split_of(self.uid)


@dataclass(frozen=True)
class Clip:
    t0: float
    t1: float
    text: str  # "" when no segment is shown in it (left out of the stream)


def split_of(uid: str) -> str:
    """`train` or `val`, by the video id's hash: fixed whatever else the file holds."""
    return SPLITS[int(hashlib.sha256(uid.encode("utf-8")).hexdigest(), 16) % 2]


def _bad(path: Path, where: str, what: str) -> GoalStepError:
    return GoalStepError(f"{path}: {where}: {what}; re-copy {DATA_FILE} from the Goal-Step release")


def _segment(path: Path, where: str, raw: Any, child: str = "substep") -> Segment:
    if not isinstance(raw, dict):
        raise _bad(path, where, "a segment is not an object")
    try:
        start, end = float(raw["start_time"]), float(raw["end_time"])
        desc = str(raw.get("step_description") or "")
        subs = raw.get("segments") or []
    except (KeyError, TypeError, ValueError) as e:
        raise _bad(path, where, f"a segment has no valid {e}") from None
    if not (math.isfinite(start) and math.isfinite(end)) or end < start:
        raise _bad(path, where, f"a segment ends before it starts ({start} to {end})")
    if not isinstance(subs, list):
        raise _bad(path, where, "'segments' is not a list")
    inner = tuple(_segment(path, f"{where}, {child} {i}", s) for i, s in enumerate(subs))
    return Segment(start, end, desc, inner, str(raw.get("is_relevant") or ""))


def _video(path: Path, i: int, raw: Any) -> Video:
    where = f"video {i}"
    if not isinstance(raw, dict) or not isinstance(raw.get("video_uid"), str) or not raw["video_uid"]:
        raise _bad(path, where, "a video has no 'video_uid'")
    where = f"video {i} ({raw['video_uid']})"
    seg = _segment(path, where, {**raw, "step_description": raw.get("goal_description", "")}, "step")
    if not seg.substeps:
        raise _bad(path, where, "a video has no annotated steps")
    return Video(
        raw["video_uid"],
        seg.start,
        seg.end,
        str(raw.get("goal_category") or ""),
        str(raw.get("goal_description") or ""),
        tuple(sorted(seg.substeps, key=lambda s: (s.start, s.end))),
    )


def load(data: str | Path) -> list[Video]:
    """The videos of `data` (a directory holding goalstep_dev.json, or the file itself), by id."""
    p = Path(data)
    path = p / DATA_FILE if p.is_dir() else p
    if not path.exists():
        raise GoalStepError(f"{path} is missing; point --data at the Goal-Step annotations directory")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise GoalStepError(f"{path} is not valid JSON ({e}); re-copy it from the dataset") from None
    videos = doc.get("videos") if isinstance(doc, dict) else None
    if not isinstance(videos, list) or not videos:
        raise GoalStepError(f"{path} holds no 'videos' list; is it a Goal-Step annotation file?")
    out = [_video(path, i, v) for i, v in enumerate(videos)]
    uids = [v.uid for v in out]
    if len(set(uids)) != len(uids):
        dup = next(u for u in uids if uids.count(u) > 1)
        raise GoalStepError(f"{path}: video {dup} is listed twice; re-copy it from the dataset")
    return sorted(out, key=lambda v: v.uid)


def shown(steps: Sequence[Segment], t0: float, t1: float) -> list[str]:
    """The descriptions a clip is captioned from: the substeps shown in it, else the step, in time
    order; at most MAX_ACTIONS, those covering most of the clip."""
    picked: list[Segment] = []
    for step in steps:
        if not step.shown_in(t0, t1):
            continue
        subs = [s for s in step.substeps if s.shown_in(t0, t1) and clause(s.description)]
        picked += subs or [step]
    if len(picked) > MAX_ACTIONS:
        picked = sorted(picked, key=lambda s: (-s.overlap(t0, t1), s.start))[:MAX_ACTIONS]
    return [s.description for s in sorted(picked, key=lambda s: (s.start, s.end))]


def clips(video: Video, clip_s: float = CLIP_S) -> list[Clip]:
    """The video cut into clips of `clip_s` from its start (the last one may be shorter)."""
    n = max(1, math.ceil(video.duration_s / clip_s - 1e-9))
    out = []
    for k in range(n):
        t0 = video.start + k * clip_s
        t1 = min(t0 + clip_s, video.end)
        out.append(Clip(round(t0, 3), round(t1, 3), sentence(shown(video.steps, t0, t1))))
    return out


def stream(video: Video, cut: Sequence[Clip]) -> list[dict[str, Any]]:
    """Meta line, then one caption per clip that shows something. No task is named."""
    meta = {
        "session_id": video.session_id,
        "recording": video.uid,
        "source": SOURCE,
        "credit": CREDIT,
        # For reports only: the assistant reads `task`, `recipe` and `task_context`, never this.
        "truth": {"goal_category": video.goal_category, "goal_description": video.goal_description},
    }
    return [{"meta": meta}] + [{"t0": c.t0, "t1": c.t1, "text": c.text} for c in cut if c.text]


_LIST_FILLER = frozenset("a an the some of".split())


def _step_key(text: str) -> str:
    """Two step descriptions a wearer would write once ("Remove pancake from a pan", "Remove the
    pancake from the pan"): lower case, without articles, each word without a plural -s."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in _LIST_FILLER)


def own_list(video: Video, max_steps: int = MAX_LISTED) -> list[str]:
    """The task as the wearer could have written it before starting: the essential steps, each
    once, in the order first done, at most `max_steps`. What the person really did then differs
    from it the way a day differs from a plan: steps repeated in batches, taken up again after
    an interruption, done out of the written order, and others not on the list."""
    out: list[str] = []
    seen: set[str] = set()
    for step in video.steps:
        key = _step_key(step.description)
        if step.relevance != "essential" or not key or key in seen:
            continue
        seen.add(key)
        out.append(step.description.strip().rstrip("."))
        if len(out) == max_steps:
            break
    return out


def listed_stream(video: Video, cut: Sequence[Clip]) -> list[dict[str, Any]]:
    """`stream` with the wearer's own list named as the task (no list when no step is essential)."""
    lines = stream(video, cut)
    steps = own_list(video)
    if steps:
        lines[0]["meta"].update(
            task_context="Steps: " + "; ".join(f"{i}. {s}" for i, s in enumerate(steps, 1)),
            task_list=True,
            source=f"{SOURCE}; the task named as a plain list of the video's own essential steps",
        )
    return lines


def _manifest_head() -> dict[str, Any]:
    return {
        "dataset": DATASET,
        "credit": CREDIT,
        "source": SOURCE,
        "data_file": DATA_FILE,
        "delta_s": DELTA_S["all-day"],
        "clip_s": CLIP_S,
        "variants": list(VARIANTS),
        "ground_truth": "none: nothing is labelled a mistake, every spoken alert is a false alarm",
        "list_variant": (
            f"the '{VARIANT}' streams with the task named as a plain list: the video's essential steps, "
            f"each once, in the order first done, at most {MAX_LISTED}"
        ),
        "idle_clips": "left out of the stream (no annotated segment shown); their time counts in hours",
        "split_rule": "sha256(video_uid) mod 2: 0 train, 1 val",
        "layout": {
            "streams": "<split>/<variant>/<video_uid>.jsonl",
            "ground_truth": "<split>/gt.jsonl (empty)",
        },
        "splits": {},
        "hours": {},
        "captioned_hours": {},
        "clips": {},
        "recordings": {},
    }


def build(data: str | Path, out_dir: str | Path, *, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    """Write the clip streams, empty ground truth and manifest.json; returns the manifest."""
    bad = [s for s in splits if s not in SPLITS]
    if bad:
        raise GoalStepError(f"split {bad[0]!r} is not one of {', '.join(SPLITS)}")
    videos = load(data)
    out = Path(out_dir)
    manifest = _manifest_head()
    for split in splits:
        mine = [v for v in videos if v.split == split]
        seconds = captioned = 0.0
        n_clips = 0
        for v in mine:
            cut = clips(v)
            lines = stream(v, cut)
            write_jsonl(out / split / VARIANT / f"{v.uid}.jsonl", lines)
            write_jsonl(out / split / LIST_VARIANT / f"{v.uid}.jsonl", listed_stream(v, cut))
            spoken = [c for c in cut if c.text]
            manifest["recordings"][v.uid] = {
                "split": split,
                "session_id": v.session_id,
                "duration_s": round(v.duration_s, 3),
                "clips": len(spoken),
                "idle_clips": len(cut) - len(spoken),
                "captioned_s": round(sum(c.t1 - c.t0 for c in spoken), 3),
                "truth": lines[0]["meta"]["truth"],
            }
            seconds += v.duration_s
            captioned += manifest["recordings"][v.uid]["captioned_s"]
            n_clips += len(spoken)
        write_jsonl(out / split / "gt.jsonl", [])
        manifest["splits"][split] = [v.uid for v in mine]
        manifest["hours"][split] = round(seconds / 3600, 3)
        manifest["captioned_hours"][split] = round(captioned / 3600, 3)
        manifest["clips"][split] = n_clips
    lic = (Path(data) if Path(data).is_dir() else Path(data).parent) / "LICENSE"
    if lic.exists():
        shutil.copyfile(lic, out / "LICENSE-Ego4D-GoalStep")
    (out / "manifest.json").write_text(
        json.dumps(manifest, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )
    return manifest
