"""`edge-assist memory stats | export | forget | ingest`: the wearer's memory store.

`stats`, `export` and `forget` open the configured store without loading any model;
`ingest` replays a caption file (JSONL: a {"meta": {...}} line, then {"t0","t1","text"}
lines) through the same synchronous path the background writer uses, resuming where
the store ends for that session.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from edge_assist.commands.options import config_from_args
from edge_assist.config.input_sections import LimitsConfig
from edge_assist.errors import StoreError
from edge_assist.events import Caption


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "memory",
        help="inspect, export, forget or fill the wearer's memory",
        description="The wearer's memory store (SQLite + Kùzu + keyframes).",
    )
    msub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    stats = msub.add_parser("stats", help="sizes on disk and counts per level")
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    stats.set_defaults(func=_stats)
    export = msub.add_parser(
        "export", help="the wearer's memory as JSONL (captions, summaries, entities, keyframe files)"
    )
    export.add_argument("--out", "-o", metavar="PATH", help="write here instead of stdout")
    export.set_defaults(func=_export)
    forget = msub.add_parser(
        "forget", help="delete everything written before a date: rows, vectors, graph, keyframes"
    )
    forget.add_argument(
        "--before",
        required=True,
        metavar="DATE",
        help="ISO date or time, local time unless it carries an offset (2025-01-31, 2025-01-31T12:00)",
    )
    forget.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    forget.set_defaults(func=_forget)
    ingest = msub.add_parser(
        "ingest", help="replay a caption JSONL file into memory (resumes where the store ends)"
    )
    ingest.add_argument("file", help="caption stream (.jsonl)")
    ingest.add_argument("--session", help="session id (default: the file's meta.session_id, else its name)")
    ingest.add_argument("--no-flush", action="store_true", help="do not summarise the last, partial windows")
    ingest.set_defaults(func=_ingest)


def _open_existing(args: argparse.Namespace) -> Any:
    from edge_assist.memory.memory import Memory

    return Memory.open_existing(config_from_args(args))


def _stats(args: argparse.Namespace) -> int:
    with _open_existing(args) as mem:
        s = mem.stats()
    if args.json:
        print(json.dumps(s, indent=2, sort_keys=True))
        return 0
    kb = 1024.0
    print(f"store        {s['path']}  {s['bytes'] / kb:.1f} KiB (+ graph {s['graph_bytes'] / kb:.1f} KiB)")
    print(f"encoders     {encoders_line(s['meta'])}")
    print(f"sessions     {s['sessions']}")
    for lv, n in s["items"].items():
        print(
            f"{lv:<12} {n:>8} items  {s['text_bytes'][lv] / kb:8.1f} KiB text  "
            f"{s['text_vector_bytes'][lv] / kb:8.1f} KiB vectors"
        )
    kf = s["keyframes"]
    print(f"keyframes    {kf['count']:>8} vectors  {kf['files']} files {kf['jpeg_bytes'] / kb:.1f} KiB JPEG")
    g = s["graph"]
    print(
        f"graph        {g['entities']} entities, {g['clips']} clips, {g['seen_in']} mentions, "
        f"{g['relations']} relations"
        f"; {s['graph_pending']} captions pending"
    )
    return 0


def encoders_line(meta: dict[str, Any]) -> str:
    """One row for both roles; a store without an image encoder has no dimension to show.

    e.g. "text: minilm-l6-int8 (384-d); image: none".
    """

    def one(role: str) -> str:
        name = meta.get(f"{role}_encoder")
        dim = meta.get(f"{role}_dim")
        return f"{role}: {name} ({dim}-d)" if name and dim else f"{role}: {name or 'none'}"

    return f"{one('text')}; {one('image')}"


def _export(args: argparse.Namespace) -> int:
    with _open_existing(args) as mem:
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
        try:
            n = 0
            for row in mem.export():
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                n += 1
        finally:
            if args.out:
                out.close()
    if args.out:
        print(f"exported {n} records to {args.out}", file=sys.stderr)
    return 0


def parse_date(text: str) -> float:
    try:
        dt = datetime.fromisoformat(text.strip())
    except ValueError:
        raise StoreError(
            f"--before {text!r} is not an ISO date; write e.g. 2025-01-31 or 2025-01-31T12:00"
        ) from None
    if dt.tzinfo is None:
        dt = dt.astimezone()  # local time, as the wearer means it
    return dt.astimezone(timezone.utc).timestamp()


def _forget(args: argparse.Namespace) -> int:
    cutoff = parse_date(args.before)
    if cutoff > time.time():
        raise StoreError(
            f"--before {args.before} is in the future; that would forget everything: pass a past date"
        )
    if not args.yes:
        if not sys.stdin.isatty():
            raise StoreError("forget deletes for good; pass --yes to confirm when not running interactively")
        answer = input(f"delete everything remembered before {args.before}? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing deleted")
            return 1
    from edge_assist.outputs.feedback import FILE as FEEDBACK_FILE
    from edge_assist.outputs.forget_logs import Forgotten, check_not_busy, scrub_jsonl
    from edge_assist.outputs.trace_format import TRACES_FILE

    cfg = config_from_args(args)
    # The wearer's labels name the alert they answered (its clip, its words): they go too.
    logs = list(
        dict.fromkeys(
            [cfg.data_path(cfg.output.decision_log), cfg.data_path(TRACES_FILE), cfg.data_path(FEEDBACK_FILE)]
        )
    )
    with _open_existing(args) as mem:
        check_not_busy(logs)
        # The logs first: a kill between the two leaves the memory whole, and forgetting
        # again finishes the job; the other order would leave logs nobody knows to clean.
        clips, texts, sessions = mem.forgettable(cutoff)
        forgotten = Forgotten(frozenset(clips), tuple(texts), frozenset(sessions))
        removed = sum(scrub_jsonl(p, forgotten)[1] for p in logs)
        res = mem.forget_before(cutoff)
    print(
        f"forgot {res['clips']} clips and the summaries that covered them; deleted {res['keyframe_files']} "
        f"keyframe "
        f"files and {removed} log and label lines that told of them; copies made with `memory export` "
        "are yours to delete"
    )
    return 0


def read_caption_file(
    path: Path, session: str | None = None, limits: LimitsConfig | None = None
) -> tuple[str, list[tuple[float, float, str]]]:
    """(session id, [(t0, t1, text)]) from a caption stream; the replay's parser, so the same
    file is refused the same way everywhere (bad lines, NaN, time order: one line naming it)."""
    from edge_assist.sources.caption_stream import load_caption_stream

    stream = load_caption_stream(path, limits)
    return session or stream.session_id, [(c.t0, c.t1, c.text) for c in stream.captions]


def _ingest(args: argparse.Namespace) -> int:
    from edge_assist.inference.loader import load_image_encoder, load_llm, load_text_encoder
    from edge_assist.memory.memory import Memory

    cfg = config_from_args(args)
    sid, rows = read_caption_file(Path(args.file), args.session, cfg.limits)
    enc = load_text_encoder(cfg)
    llm = load_llm(cfg)
    with Memory.open(cfg, llm, enc, load_image_encoder(cfg)) as mem:
        mem.catch_up()
        start = mem.next_clip_index(sid)
        print(f"session {sid}: {len(rows)} captions, resuming at clip {start}", flush=True)
        for i in range(start, len(rows)):
            t0, t1, text = rows[i]
            res = mem.ingest(Caption(t=t1, session_id=sid, index=i, t0=t0, t1=t1, text=text))
            # One line per clip, flushed: a supervisor (or a test) can follow progress.
            print(
                f"clip {i} stored={int(res.stored)} llm={sum(res.llm_calls.values())} "
                f"summaries={','.join(f'{lv}:{w}' for lv, w in res.summaries) or '-'}",
                flush=True,
            )
        if not args.no_flush:
            flushed = mem.flush([sid])
            print(f"flushed {len(flushed)} partial windows", flush=True)
        print(f"done: llm calls {mem.llm_calls}", flush=True)
    return 0
