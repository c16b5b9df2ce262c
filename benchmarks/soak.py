"""Soak: simulated 16-hour days on the virtual clock with the real stores (issue 13, item 4).

    python -m benchmarks.soak [--days 7] [--hours 16] [--checkpoints 1,3,7] [--out benchmarks/results/soak]

The week (`soak_streams.Week`): real CaptainCook4D caption streams stitched into 2-hour
sessions, 07:00-23:00 of a simulated calendar, with a morning and an evening routine
repeated every day. 112 hours of stream cannot all go through SmolLM2 in one sitting, so:

- bulk fill: every caption goes through the real `Memory.ingest` (MiniLM vectors, SQLite
  with sqlite-vec and its IVF index, Kùzu graph, roll-ups, keyframe retention sweeps), with
  the entities from the caption's parse (`memory.entity_extractor = lexical`, the default)
  and extractive summaries (`memory.summaries = extractive`, the documented no-LLM path),
  in this process, the store's wall clock set to the simulated calendar;
- checkpoints: at day 1 (its first hour), the middle day (an hour at midday) and the last
  day (its last hour), one hour of stream runs through the full default pipeline with the
  offline models (`benchmarks.replay_cpu`, its own process: writer with LLM summaries,
  gate reasoner, planted questions answered by SmolLM2), on the same store;
- every simulated hour: search latency through the real retriever (temporal + graph, this
  session and every earlier one), resident memory, bytes on disk (store + graph apart from
  keyframes), and at each day's end the age of the keyframe files still on disk against
  `memory.keyframe_retention_days` (a small synthetic keyframe every `--keyframe-every`
  clips: the streams have no video; it exercises retention only).

Writes summary.json and summary.md to --out (with the command line).
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.soak_probes import (
    CachedEncoder,
    disk_bytes,
    keyframe_ages_days,
    peak_rss_mb,
    rss_by_kind,
    rss_mb,
    search_probe,
)
from benchmarks.soak_report import summarise, write_report
from benchmarks.soak_streams import DEFAULT_DATA, Session, Week
from edge_assist.config import Config
from edge_assist.events import Caption, Keyframe
from edge_assist.inference.loader import load_text_encoder
from edge_assist.memory import heap
from edge_assist.memory.heap import release_freed
from edge_assist.memory.lexical import extract_lexical
from edge_assist.memory.memory import Memory

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "results" / "soak"
SWEEP_EVERY = 360  # captions between keyframe retention sweeps and heap trims, as the writer does


class SimWall:
    """`time.time()` for the store: the simulated calendar (retention and session order count wall days)."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def write_stream(path: Path, s: Session, caps: list[Caption]) -> None:
    lines = [
        json.dumps(
            {
                "meta": {
                    "session_id": s.session_id,
                    "source": "soak: CaptainCook4D recordings " + ",".join(s.recordings),
                }
            }
        )
    ]
    lines += [json.dumps({"t0": c.t0, "t1": c.t1, "text": c.text}) for c in caps]
    path.write_text("\n".join(lines) + "\n")


def questions(caps: list[Caption], start_t: float, span_s: float, week: Week) -> list[str]:
    """Four questions in the checkpoint: an object of a few minutes ago, twice, a routine, yesterday."""
    out = []
    for frac in (0.25, 0.5):
        t = start_t + frac * span_s
        earlier = [c for c in caps if t - 600 <= c.t1 <= t - 60]
        keys = [k for c in earlier for k, _, _ in extract_lexical(c.text).entities]
        if keys:
            out.append(f"{t:.0f}:What did I do with the {keys[len(keys) // 2]}?")
    routine = week.recordings[week.morning].performed[0].caption
    out.append(
        f"{start_t + 0.75 * span_s:.0f}:When did I last {routine[0].lower() + routine[1:].rstrip('.')}?"
    )
    out.append(f"{start_t + 0.95 * span_s:.0f}:What did I cook yesterday evening?")
    return out


def checkpoint(
    args: argparse.Namespace,
    cfg: Config,
    s: Session,
    caps: list[Caption],
    start_t: float,
    week: Week,
    label: str,
) -> dict[str, Any]:
    stream = Path(cfg.data_dir) / "streams" / f"{s.session_id}.jsonl"
    write_stream(stream, s, caps)
    out = Path(cfg.data_dir) / "streams" / f"checkpoint-{label}.json"
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.replay_cpu",
        str(stream),
        "--data-dir",
        str(cfg.data_dir),
        "--wall-start",
        repr(s.wall_start),
        "--out",
        str(out),
        "--set",
        f"memory.keyframe_retention_days={args.retention_days}",
        "--set",
        "output.speech=off",
    ]
    for q in questions(caps, start_t, args.checkpoint_h * 3600.0, week):
        cmd += ["--ask", q]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"checkpoint {label} failed: {proc.stderr.strip()[-2000:]}")
    r: dict[str, Any] = json.loads(out.read_text())
    r["label"] = label
    r["process_wall_s"] = round(time.perf_counter() - t0, 1)
    r["command"] = shlex.join(cmd[1:])
    print(
        f"checkpoint {label}: "
        + json.dumps({k: r[k] for k in ("captions", "cpu_share_of_realtime", "proactive_latency_s")}),
        flush=True,
    )
    return r


def frame(n: int) -> np.ndarray:
    # A stand-in picture (the caption streams have no video): only retention is exercised.
    return np.full((48, 64, 3), (n * 37) % 256, dtype=np.uint8)


class Soak:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.work = Path(args.work)
        (self.work / "streams").mkdir(parents=True, exist_ok=True)
        self.cfg = Config().replace(
            **{
                "general.data_dir": str(self.work),
                "memory.summaries": "extractive",
                "memory.keyframe_retention_days": args.retention_days,
                "models.threads": 1,
            }
        )
        self.week = Week(Path(args.data))
        self.wall = SimWall(self.week.epoch)
        self.plain_enc = load_text_encoder(self.cfg)
        self.enc = CachedEncoder(self.plain_enc, self.week.clip_texts())
        self.mem: Memory | None = None
        # Each session's simulated wall start (retention's ages), not the session: its captions
        # would stay in the harness's heap all week.
        self.wall_starts: dict[str, float] = {}
        self.probed_t: dict[str, float] = {}  # stream time of each session's last probe
        self.hours: list[dict[str, Any]] = []
        self.days: list[dict[str, Any]] = []
        self.checkpoints: list[dict[str, Any]] = []
        self.ingested = 0
        self.stream_h = 0.0
        self.bulk_cpu = 0.0
        self.consistency: dict[str, Any] = {}
        self.on_day: Any = None

    def open(self) -> Memory:
        if self.mem is None:
            self.mem = Memory.open(self.cfg, None, self.enc, wall=self.wall)
        return self.mem

    def close(self) -> None:
        if self.mem is not None:
            self.mem.close()
            self.mem = None

    def wall_of(self, sid: str, t: float) -> float | None:
        start = self.wall_starts.get(sid)
        return None if start is None else start + t

    def bulk(self, s: Session, caps: list[Caption], *, flush: bool) -> None:
        mem = self.open()
        c0 = time.process_time()
        for c in caps:
            self.wall.now = s.wall_start + c.t1
            if c.index % self.args.keyframe_every == 0:
                c = Caption(
                    c.t,
                    c.session_id,
                    c.index,
                    c.t0,
                    c.t1,
                    c.text,
                    c.source,
                    keyframes=(Keyframe(c.t1 - 1.0, frame(self.ingested), "even"),),
                )
            res = mem.ingest(c)
            if res.index_pending:
                mem.maintain_index(0.5)  # the writer's idle-time step between two captions
            self.ingested += 1
            if self.ingested % SWEEP_EVERY == 0:
                mem.sweep_keyframes()
                release_freed()  # as the writer does with each sweep
        if flush:
            mem.flush([s.session_id])
        self.bulk_cpu += time.process_time() - c0

    def probe(self, s: Session, now_t: float, how: str) -> None:
        mem = self.open()
        # The writer is idle most of a 10-s clip, so index upkeep pending now would be done by a
        # question's time; finishing it first also keeps a k-means thread out of the search's CPU time.
        while mem.maintain_index(0.5):
            pass
        self.wall.now = s.wall_start + now_t
        self.stream_h += (now_t - self.probed_t.get(s.session_id, 0.0)) / 3600.0
        self.probed_t[s.session_id] = now_t
        search = search_probe(mem, self.cfg, self.plain_enc, s.session_id, now_t)
        row = {
            "hour": round(self.stream_h, 2),
            "day": s.day,
            "session": s.session_id,
            "filled_by": how,
            "clips": self.ingested,
            "rss_mb": round(rss_mb(), 1),
            "rss_by_kind": rss_by_kind(),
            "disk": disk_bytes(self.cfg),
            "search": search,
        }
        self.hours.append(row)
        print(json.dumps(row), flush=True)

    def run_session(self, s: Session, ck: str | None) -> None:
        """A session: bulk, or its first / last `--checkpoint-h` through the pipeline; a probe at each
        part's end."""
        self.wall_starts[s.session_id] = s.wall_start
        ck_s = self.args.checkpoint_h * 3600.0
        cut = ck_s if ck != "last" else s.length_s - ck_s
        if ck is None:
            cut = min(3600.0, s.length_s)
        head = [c for c in s.captions if c.t1 <= cut]
        tail = [c for c in s.captions if c.t1 > cut]
        label = f"day{s.day}"
        if ck == "first":
            self.close()
            self.checkpoints.append(checkpoint(self.args, self.cfg, s, head, 0.0, self.week, label))
            self.ingested += len(head)
            self.probe(s, cut, "pipeline")
            self.bulk(s, tail, flush=True)
        elif ck == "last":
            self.bulk(s, head, flush=False)
            self.probe(s, cut, "bulk")
            self.close()
            self.checkpoints.append(checkpoint(self.args, self.cfg, s, head + tail, cut, self.week, label))
            self.ingested += len(tail)
            self.probe(s, s.length_s, "pipeline")
            return
        else:
            self.bulk(s, head, flush=not tail)
            self.probe(s, cut, "bulk")
            if tail:
                self.bulk(s, tail, flush=True)
        if tail:
            self.probe(s, s.length_s, "bulk")

    def run(self) -> None:
        cks = sorted({int(x) for x in self.args.checkpoints.split(",") if x.strip()})
        for day in range(1, self.args.days + 1):
            sessions = list(self.week.day(day, hours=self.args.hours, session_h=self.args.session_h))
            where: dict[int, str] = {}
            if day in cks:
                if day == 1:
                    where[0] = "first"
                elif day == self.args.days:
                    where[len(sessions) - 1] = "last"
                else:
                    where[len(sessions) // 2] = "first"
            for k, s in enumerate(sessions):
                self.run_session(s, where.get(k))
            mem = self.open()
            self.wall.now = sessions[-1].wall_start + sessions[-1].length_s
            mem.sweep_keyframes()
            ages = keyframe_ages_days(mem, self.wall_of, self.wall.now, self.args.retention_days)
            st = mem.stats()
            self.days.append(
                {
                    "day": day,
                    "items": st["items"],
                    "graph": st["graph"],
                    "keyframes": ages,
                    "disk": disk_bytes(self.cfg),
                    "rss_mb": round(rss_mb(), 1),
                    "rss_by_kind": rss_by_kind(),
                }
            )
            print(json.dumps(self.days[-1]), flush=True)
            if self.on_day is not None:
                self.on_day(self)  # a partial summary after every day: a cut-short run still reports
        mem = self.open()
        self.consistency = mem.consistency()
        self.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--days", type=int, default=7)
    ap.add_argument("--hours", type=float, default=16.0, help="stream hours per day")
    ap.add_argument(
        "--session-h", type=float, default=2.0, help="hours per session (>= 1: a checkpoint is an hour)"
    )
    ap.add_argument("--checkpoints", default="1,3,7", help="days with an hour through the full pipeline")
    ap.add_argument(
        "--checkpoint-h", type=float, default=1.0, help="stream hours through the pipeline per checkpoint"
    )
    ap.add_argument(
        "--retention-days", type=float, default=2.0, help="memory.keyframe_retention_days for the soak"
    )
    ap.add_argument("--keyframe-every", type=int, default=30, help="a synthetic keyframe every N clips")
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="CaptainCook4D annotations directory")
    ap.add_argument("--work", default="", help="store directory (default: a new one under /tmp)")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    if (
        args.days < 1
        or args.hours <= 0
        or args.keyframe_every < 1
        or not 0 < args.checkpoint_h <= args.session_h
    ):
        ap.error("--days >= 1, --hours > 0, --keyframe-every >= 1 and 0 < --checkpoint-h <= --session-h")
    if not args.work:
        import tempfile

        args.work = tempfile.mkdtemp(prefix="soak_")
    t0 = time.perf_counter()
    command = "python -m benchmarks.soak " + shlex.join(argv if argv is not None else sys.argv[1:])

    def report(soak: Soak) -> dict[str, Any]:
        summary = summarise(soak, args, time.perf_counter() - t0, peak_rss_mb())
        summary["command"] = command
        summary["completed_days"] = len(soak.days)
        summary["partial"] = len(soak.days) < args.days or not soak.consistency
        write_report(Path(args.out), summary)
        return summary

    # As `edge-assist` does at start (edge_assist/memory/heap.py): the bulk process is the device's.
    heap.tune()
    soak = Soak(args)
    soak.on_day = report
    soak.run()
    summary = report(soak)
    print(f"wrote {args.out}/summary.json and summary.md")
    return 0 if summary["held"]["all"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
