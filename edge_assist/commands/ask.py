"""`edge-assist ask "question"`: ask the wearer's memory, or a finished recording.

Without `--recording` the question goes to the configured wearer's live store, as asked
now: the latest session is "today" and the sessions before it are its past, so a moment
of an earlier day is told with its age ("Yesterday you put the keys in the blue bowl.")
and today's moment comes first when today holds one. With
`--recording` it goes to a recording: a memory store file (`NAME.sqlite`, as `run` or
`memory ingest` leave it) or a caption stream (`.jsonl`), which is first built into a
temporary memory in one pass. The answer is composed from the remembered moment the
model chose (or "I don't remember you doing that") and cites its clip time; with
`--choices` it is the option that moment supports. `reasoner.answerer = "free"` keeps the
earlier coarse-to-fine, free-written answers.

Every question and its answer are kept in the data folder (`conversation.json`, readable by
the wearer only); `--continue` asks on from them, so a follow-up ("and after that?", "how
long ago?", "and the salt?") leans on the last answer if it was given within two minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_assist.commands.options import config_from_args
from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError, SourceError, StoreError
from edge_assist.events import Caption

if TYPE_CHECKING:
    from edge_assist.answers.answered import Answer
    from edge_assist.answers.conversation import Conversation
    from edge_assist.clock import Clock
    from edge_assist.memory.memory import Memory


# Answers that rest on no remembered moment by design: the tracker's, a follow-up's.
TOLD_WITHOUT_MOMENT = ("task tracker", "conversation")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ask",
        help="ask a question about what the wearer did (live store or a recording)",
        description="Answer a question from memory: the moment that answers it, with its time, "
        "or 'I don't remember'.",
    )
    p.add_argument("question", help="the question, in quotes")
    p.add_argument(
        "--recording",
        "-r",
        metavar="DB",
        help="a finished recording: its memory store (NAME.sqlite) or a caption stream (.jsonl)",
    )
    p.add_argument(
        "--choices", nargs="+", metavar="OPTION", help="multiple choice: the answer is one of these"
    )
    p.add_argument(
        "--session",
        metavar="ID",
        help="ask as at the end of this session (default: the latest); the sessions before it are its past",
    )
    p.add_argument(
        "--only-session", action="store_true", help="search the session alone, not the sessions before it"
    )
    p.add_argument(
        "--continue",
        dest="continue_",
        action="store_true",
        help="ask on from the last question (within 2 minutes): 'and after that?', 'how long ago?'",
    )
    p.add_argument("--json", action="store_true", help="print the answer, citations and trace as JSON")
    p.set_defaults(func=_ask)


def _store_config(cfg: Config, db: Path) -> Config:
    """The config that opens `db`: the store is <data_dir>/<wearer>.sqlite."""
    return cfg.replace(**{"general.data_dir": str(db.resolve().parent), "general.wearer": db.stem})


def _ask(args: argparse.Namespace) -> int:
    question = " ".join(args.question.split())
    if not question:
        raise EdgeAssistError(
            'the question is empty; write it in quotes: edge-assist ask "where did I put the salt?"'
        )
    choices = tuple(dict.fromkeys(c.strip() for c in args.choices or () if c.strip()))
    if args.choices is not None and len(choices) < 2:
        raise EdgeAssistError("--choices needs at least two different options")
    cfg = config_from_args(args)
    from edge_assist.answers.conversation import FILE_NAME, Conversation

    # The wearer's conversation, in the wearer's data folder whatever the recording asked.
    kept, log = cfg.data_path(FILE_NAME), cfg.data_path(cfg.output.decision_log)
    conversation = Conversation.load(kept) if args.continue_ else Conversation(path=kept)
    with tempfile.TemporaryDirectory(prefix="edge-assist-ask-") as tmp:
        if args.recording:
            rec = Path(args.recording)
            if not rec.exists():
                raise SourceError(
                    f"recording {rec} does not exist; give a memory store (.sqlite) or a caption stream "
                    f"(.jsonl)"
                )
            if rec.suffix == ".jsonl":
                cfg = cfg.replace(**{"general.data_dir": tmp, "general.wearer": "recording"})
                build: Path | None = rec
            elif rec.suffix in (".sqlite", ".db"):
                cfg, build = _store_config(cfg, rec), None
            else:
                raise SourceError(
                    f"{rec}: unknown recording type; give a memory store (.sqlite) or a caption stream "
                    f"(.jsonl)"
                )
        else:
            from edge_assist.memory.memory import Paths

            build = None
            if not Paths.of(cfg).sqlite.exists():
                raise StoreError(
                    f"no memory for wearer {cfg.general.wearer!r} at {Paths.of(cfg).sqlite}; run "
                    f"`edge-assist run` "
                    "or `edge-assist memory ingest FILE` first, or pass --recording"
                )
        out = asyncio.run(
            _answer(cfg, question, choices, build, args.session, not args.only_session, conversation)
        )
    _keep(conversation, log, out)
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=2, default=str))
    else:
        print(out["answer"])
        if out["evidence"]:
            print(f"  {out['evidence']}")
        if out["citation"]:
            print(f"  ({out['citation']}; from {out['stage']})")
        elif out["stage"] in TOLD_WITHOUT_MOMENT:
            print(f"  (from the {out['stage']})")
        else:
            print(f"  (nothing in memory matched; from {out['stage']})")
    return 0


async def _answer(
    cfg: Config,
    question: str,
    choices: tuple[str, ...],
    build: Path | None,
    session: str | None,
    past: bool,
    conversation: Conversation,
) -> dict[str, Any]:
    from edge_assist.clock import RealClock
    from edge_assist.inference.loader import load_image_encoder, load_llm, load_text_encoder, load_vlm
    from edge_assist.memory.memory import Memory
    from edge_assist.runtime.assistant import build_assistant

    clock = RealClock()
    llm, enc, img = load_llm(cfg), load_text_encoder(cfg), load_image_encoder(cfg)
    vlm = load_vlm(cfg) if cfg.models.vlm else None
    memory = Memory.open(cfg, llm, enc, img)
    try:
        task, task_context = ("", "") if build is None else await _build(cfg, memory, clock, build)
        starts = memory.session_starts()
        named = session
        if session is None and starts:
            session = max(starts, key=lambda s: starts[s])  # the latest session is "today"
        elif session is not None and session not in starts:
            known = ", ".join(list(starts)[-5:]) or "none"
            raise StoreError(f"no session {session!r} in this memory; the latest are: {known}")
        # Asked now of the latest session; as at its end of a session named with --session.
        before_t = math.inf
        if named is not None:
            end = memory.store.frontier(named)
            before_t = end if end is not None else math.inf
        assistant = build_assistant(cfg, llm, enc, memory, vlm=vlm, image_encoder=img, clock=clock)
        ans = await assistant.answer(
            question,
            choices=choices,
            session_id=session,
            past_sessions=past,
            before_t=before_t,
            conversation=conversation,
            task=task,
            task_context=task_context,
        )
    finally:
        memory.close()
    return _output(question, session, ans)


async def _build(cfg: Config, memory: Memory, clock: Clock, path: Path) -> tuple[str, str]:
    """Memory built from a caption stream in one pass; the task the stream names (its name
    in the library and its task context), as a replay of it would follow."""
    from edge_assist.sources.caption_stream import load_caption_stream
    from edge_assist.tasks.library import stream_task

    stream = load_caption_stream(path, cfg.limits)
    sid, rows = stream.session_id, [(c.t0, c.t1, c.text) for c in stream.captions]
    if not rows:
        raise SourceError(f"{path} holds no captions; nothing to answer from")
    start = time.perf_counter()
    print(f"building memory from {len(rows)} captions of {path.name} ...", file=sys.stderr)
    for i, (t0, t1, text) in enumerate(rows):
        await clock.run_blocking(
            memory.ingest, Caption(t=t1, session_id=sid, index=i, t0=t0, t1=t1, text=text)
        )
    await clock.run_blocking(memory.flush)
    print(f"built in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return stream_task(stream.meta), stream.task_context


def _output(question: str, session: str | None, ans: Answer) -> dict[str, Any]:
    return {
        "question": question,
        "asked_at": _wall(ans.asked_at),
        "session": session,
        "answer": ans.text,
        "choice": ans.choice,
        "evidence": ans.trace.get("evidence", ""),
        "citation": ans.citation,
        "stage": ans.stage,
        "clips": [[c.session_id, c.clip_index, round(c.t0, 2), round(c.t1, 2)] for c in ans.context.clips],
        "timings_s": {k: round(v, 3) for k, v in ans.timings_s.items()},
        "trace": ans.trace,
    }


def _keep(conversation: Conversation, log: Path, out: dict[str, Any]) -> None:
    """The turn kept for `--continue`, and the question logged with its answer."""
    conversation.save()
    log_question(log, out)


def log_question(path: Path, out: dict[str, Any]) -> None:
    """The question and its answer appended to the wearer's decision log, as live questions are
    (a line of its own type, so readers of spoken decisions pass over it), stamped with when it
    was asked."""
    from datetime import datetime

    from edge_assist.outputs.decision_log import DecisionLog

    asked = out["asked_at"]
    record = {
        "type": "question",
        "t": None if asked is None else round(datetime.fromisoformat(asked).timestamp(), 3),
        "asked_at": asked,
        "session_id": out["session"],
        "question": out["question"],
        "text": out["answer"],
        "choice": out["choice"],
        "citation": out["citation"],
        "stage": out["stage"],
        "clips": out["clips"],
        "trigger": "ask",
        "latency_s": out["timings_s"].get("total"),
    }
    sink = DecisionLog(path)
    try:
        sink.write_record(record)
    finally:
        asyncio.run(sink.close())


def _wall(t: float | None) -> str | None:
    """When the question was asked, as an ISO time (the conversation's clock is the wall clock)."""
    from datetime import datetime, timezone

    return None if t is None else datetime.fromtimestamp(t, timezone.utc).isoformat(timespec="seconds")
