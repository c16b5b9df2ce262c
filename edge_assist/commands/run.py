"""`edge-assist run` (live, from a camera) and `edge-assist replay PATH` (a file)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import sys
from typing import TYPE_CHECKING, Any

from edge_assist.commands.options import config_from_args
from edge_assist.errors import EdgeAssistError
from edge_assist.events import UserQuery

if TYPE_CHECKING:
    from edge_assist.config import Config
    from edge_assist.runtime.app import Pipeline, RunResult


def register(sub: argparse._SubParsersAction) -> None:
    run = sub.add_parser(
        "run",
        help="watch the camera and assist live",
        description="Run the assistant live on the configured camera (source.kind: opencv or picamera2). "
        "Type a question and press Enter to ask; Ctrl-C stops cleanly.",
    )
    run.add_argument(
        "--headless", action="store_true", help="no terminal UI: plain log lines for journald (systemd)"
    )
    run.add_argument(
        "--stats",
        action="store_true",
        help="print latency histograms, real-time factor and drop counts at the end",
    )
    run.add_argument("--no-stdin", action="store_true", help="do not read questions from standard input")
    run.set_defaults(func=_run)

    rp = sub.add_parser(
        "replay",
        help="replay a video file or a caption stream through the pipeline",
        description="Replay recorded footage (a video file, captioned by the configured VLM) or a caption "
        "stream (.jsonl with t0/t1/text per line, or .srt) through the whole pipeline. As fast as possible "
        "on virtual time unless --realtime.",
    )
    rp.add_argument("path", help="video file (.mp4, .avi, ...) or caption stream (.jsonl, .srt)")
    rp.add_argument("--realtime", action="store_true", help="pace the replay at real time, as live")
    rp.add_argument("--no-progress", action="store_true", help="no progress bar")
    rp.add_argument("--stats", action="store_true", help="print latency histograms and counters at the end")
    rp.add_argument("--summary-json", metavar="FILE", help="also write the run summary as JSON to FILE")
    rp.add_argument(
        "--ask",
        metavar="SECONDS:QUESTION",
        action="append",
        default=[],
        help="ask a question as the wearer would, at that point of the recording (repeatable), "
        "e.g. --ask '200:what did I do with the muffin?'",
    )
    rp.set_defaults(func=_replay)


def _print_summary(result: Any, pipeline_stats: dict[str, Any] | None, log_path: str, stats: bool) -> None:
    print("", file=sys.stderr)
    for line in result.stats.summary_lines():
        print(line)
    print(f"decision log: {log_path}")
    if stats and pipeline_stats is not None:
        print(json.dumps(pipeline_stats, indent=2))


def _replay(args: argparse.Namespace) -> int:
    from edge_assist.runtime.app import run_sync
    from edge_assist.runtime.assembly import build_pipeline, default_sinks

    extra: dict[str, Any] = {"source.realtime": True} if args.realtime else {}
    cfg = config_from_args(args, **extra)
    bar = None
    if not args.no_progress and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=None, unit="s", desc="replay", dynamic_ncols=True, file=sys.stderr, leave=False)

    def on_progress(t: float) -> None:
        if bar is not None:
            bar.update(max(0.0, round(t, 1) - bar.n))

    # Speech in a replay faster than real time would lag further and further behind.
    sinks = default_sinks(cfg, speech=bool(args.realtime or cfg.source.realtime))
    if bar is not None:
        from tqdm import tqdm

        for s in sinks:
            if hasattr(s, "write_hook"):
                s.write_hook = tqdm.write
    questions = [_parse_ask(item) for item in args.ask]
    pipeline: Pipeline
    pipeline, close = build_pipeline(cfg, live=False, path=args.path, sinks=sinks, on_progress=on_progress)
    if questions:
        pipeline.extra_tasks.append(("planted-questions", lambda inbox: _plant(pipeline, questions)))
    _warn_missing_task(pipeline, cfg)
    what = f"{len(pipeline.captions.captions)} captions" if pipeline.captions is not None else "video"
    print(f"replaying {args.path} ({what}, session {pipeline.session_id})", file=sys.stderr, flush=True)
    if bar is not None:
        total = (
            pipeline.captions.duration_s
            if pipeline.captions is not None
            else (pipeline.frames.duration_s if pipeline.frames else None)
        )
        bar.total = round(total, 1) if total else None
        bar.refresh()
    try:
        result = run_sync(_with_signals(pipeline))
        if not result.stats.stopped_early:
            _answer_from_memory(pipeline, result, questions)
    finally:
        if bar is not None:
            bar.close()
        close()
    rec = pipeline.stats_record()
    if args.summary_json:
        with open(args.summary_json, "w", encoding="utf-8") as fh:
            json.dump(rec, fh, indent=2)
    _print_summary(result, rec, str(cfg.data_path(cfg.output.decision_log)), args.stats)
    return 130 if result.stats.stopped_early else 0


def _warn_missing_task(pipeline: Pipeline, cfg: Config) -> None:
    """A stream naming a task this data folder's library lacks would run with no task at all."""
    from edge_assist.runtime.assistant import EgoMemoAssistant

    assistant = pipeline.assistant
    if not pipeline.task or not isinstance(assistant, EgoMemoAssistant):
        return
    if assistant.tasks.library.get(pipeline.task) is not None:
        return
    print(
        f"warning: the stream names task {pipeline.task!r}, which is not in the task library of "
        f"{cfg.data_dir}: no step will be followed unless the captions match a task it has. "
        f"Add it with `edge-assist tasks add FILE --set general.data_dir={cfg.data_dir}`",
        file=sys.stderr,
    )


def _answer_from_memory(pipeline: Pipeline, result: RunResult, questions: list[tuple[float, str]]) -> None:
    """A question the replay never reached (memory already held the stream up to past its time,
    or it was planted after the stream's end): answered over memory, as `edge-assist ask`
    would at that time, instead of dropped."""
    from edge_assist.outputs.console import clock_text
    from edge_assist.runtime.app import run_sync
    from edge_assist.runtime.assistant import EgoMemoAssistant

    asked = {d.question for d in result.decisions if d.trigger == "query"}
    left = [(t, q) for t, q in questions if q not in asked]
    if not left:
        return
    assistant = pipeline.assistant
    if not isinstance(assistant, EgoMemoAssistant):
        return
    why = (
        f"the stream was already in memory up to clip {result.stats.resumed_at}"
        if result.stats.resumed_at
        else "asked after the stream's end"
    )
    print(f"{why}: answering --ask from memory", file=sys.stderr)
    for t, question in left:
        ans = run_sync(
            assistant.answer(
                question,
                before_t=t,
                session_id=pipeline.session_id,
                task=pipeline.task,
                task_context=pipeline.task_context,
            )
        )
        print(f"[{clock_text(t)}] ANSWER: {ans.text}")


def _parse_ask(item: str) -> tuple[float, str]:
    when, sep, question = item.partition(":")
    try:
        t = float(when)
    except ValueError:
        t = -1.0
    # A NaN or infinite time would never come round on the clock: the question would wait forever.
    if not sep or not math.isfinite(t) or t < 0 or not question.strip():
        raise EdgeAssistError(
            f"--ask {item!r} must look like SECONDS:QUESTION, e.g. --ask '120:where is the knife?'"
        )
    return t, question.strip()


async def _plant(pipeline: Pipeline, questions: list[tuple[float, str]]) -> None:
    """Ask each question when the replay reaches its time, as the wearer would."""
    for t, question in sorted(questions):
        await pipeline.clock.sleep_until(t)
        pipeline.inbox.put_query(
            UserQuery(t=pipeline.clock.now(), text=question, source="replay", stream_t=t)
        )


async def _with_signals(pipeline: Pipeline) -> RunResult:
    from edge_assist.runtime.app import install_signal_handlers

    remove = install_signal_handlers(pipeline)
    try:
        return await pipeline.run()
    finally:
        remove()


async def _stdin_questions(pipeline: Pipeline) -> None:
    """Each line typed on standard input is a wearer's question."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    try:
        while True:
            line = await reader.readline()
            if not line:
                return
            text = line.decode("utf-8", "replace").strip()
            if text:
                pipeline.ask(text, source="stdin")
    finally:
        transport.close()


def _run(args: argparse.Namespace) -> int:
    from edge_assist.runtime.app import run_sync
    from edge_assist.runtime.assembly import build_pipeline, default_sinks

    cfg = config_from_args(args)
    if args.headless:
        # journald stamps time and unit itself: one plain line per event.
        logging.getLogger().handlers.clear()
        logging.basicConfig(
            level=cfg.general.log_level.upper(),
            format="%(levelname)s %(name)s: %(message)s",
            stream=sys.stderr,
        )
    sinks = default_sinks(cfg)
    pipeline, close = build_pipeline(cfg, live=True, sinks=sinks)
    if not args.no_stdin and not args.headless and sys.stdin is not None and sys.stdin.isatty():
        pipeline.extra_tasks.append(("stdin-questions", lambda _inbox: _stdin_questions(pipeline)))
    try:
        result = run_sync(_with_signals(pipeline))
    finally:
        close()
    _print_summary(result, pipeline.stats_record(), str(cfg.data_path(cfg.output.decision_log)), args.stats)
    return 0
