"""`edge-assist eval qa --questions FILE`: the free-form question benchmark, answered and scored.

Questions written by hand (`edge_assist/data/questions/`) are asked, per recording, over a
memory built causally from the chosen variant's caption stream, as the template benchmark
builds it (`qa_bench`): captions are ingested in time order and each question is asked once
memory holds exactly the captions that ended by its ask time, with `before_t` bounding every
read. They go through the public path `edge-assist ask` takes (`Assistant.answer`), in file
order within one ask time. Questions sharing a `conversation` id share one `Conversation`,
so a follow-up leans on the question before it.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edge_assist.config import Config
from edge_assist.errors import SourceError
from edge_assist.evaluation.qa_freeform_score import (
    ABSTAINED,
    KINDS,
    RIGHT,
    FreeQuestion,
    load_questions,
    score,
)
from edge_assist.evaluation.qa_questions import read_stream
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.runtime.percentiles import percentile
from edge_assist.tasks.library import stream_task

SPLITS = ("val", "train")  # where a recording's stream is looked for, in this order


@dataclass(frozen=True)
class Recording:
    recording: str
    session_id: str
    captions: list[tuple[float, float, str]]  # (t0, t1, text), time order
    # The task the stream names, passed as `ask --recording` passes it: a live replay of the
    # stream follows it, so procedure questions are answered on it, not on a recognised one.
    task: str = ""
    task_context: str = ""

    @property
    def end(self) -> float:
        return max((c[1] for c in self.captions), default=0.0)


@dataclass(frozen=True)
class Asked:
    part: str  # the question file's name: freeform-dev, freeform-heldback
    question: FreeQuestion


def part_name(path: Path) -> str:
    return path.stem


def find_recording(dataset: Path, recording: str, variant: str) -> Recording:
    """A recording's stream of `variant`, from the val split, else train."""
    for split in SPLITS:
        path = dataset / split / variant / f"{recording}.jsonl"
        if path.exists():
            meta, rows = read_stream(path)
            sid = str(meta.get("session_id", f"captaincook4d-{recording}"))
            return Recording(recording, sid, rows, stream_task(meta), str(meta.get("task_context", "")))
    raise SourceError(f"no {variant} stream for recording {recording} in {dataset} ({', '.join(SPLITS)})")


def run(
    cfg: Config,
    dataset: Path,
    files: Sequence[Path],
    variant: str,
    *,
    progress: Callable[[str], None] | None = None,
    models: tuple[LLM, TextEncoder] | None = None,
) -> dict[str, Any]:
    """Every file's questions answered and scored; the summary per file (part)."""
    asked = [Asked(part_name(f), q) for f in files for q in load_questions(f)]
    if len({a.part for a in asked}) != len({str(f) for f in files}):
        raise SourceError("two question files with the same name: parts are told apart by name")
    by_rec: dict[str, list[Asked]] = defaultdict(list)
    for a in asked:
        by_rec[a.question.recording].append(a)
    recordings = {rid: find_recording(dataset, rid, variant) for rid in by_rec}
    if models is None:
        from edge_assist.inference.loader import load_llm, load_text_encoder

        models = (load_llm(cfg), load_text_encoder(cfg))
    records: list[dict[str, Any]] = []
    start = time.perf_counter()
    for k, (rid, mine) in enumerate(by_rec.items(), 1):
        records += asyncio.run(_answer_recording(cfg, recordings[rid], mine, *models))
        if progress is not None:
            progress(f"[{k}/{len(by_rec)}] {rid}: {len(mine)} questions, {time.perf_counter() - start:.0f} s")
    order = {(a.part, a.question.qid): i for i, a in enumerate(asked)}
    records.sort(key=lambda r: order[(r["part"], r["id"])])
    return {
        "variant": variant,
        "files": [str(f) for f in files],
        "answerer": cfg.reasoner.answerer,
        "recordings": len(by_rec),
        "summary": {part: summarise([r for r in records if r["part"] == part]) for part in _parts(asked)},
        "records": records,
        "wall_s": round(time.perf_counter() - start, 1),
    }


def _parts(asked: list[Asked]) -> list[str]:
    return list(dict.fromkeys(a.part for a in asked))


async def _answer_recording(
    cfg: Config,
    rec: Recording,
    asked: list[Asked],
    llm: LLM,
    enc: TextEncoder,
) -> list[dict[str, Any]]:
    from edge_assist.answers.conversation import Conversation
    from edge_assist.clock import RealClock
    from edge_assist.events import Caption
    from edge_assist.memory.memory import Memory
    from edge_assist.runtime.assistant import build_assistant

    out: list[dict[str, Any]] = []
    clock = RealClock()
    conversations: dict[tuple[str, str], Conversation] = {}
    # causal: questions by ask time, file order within one ask time (a conversation shares one)
    timed = sorted(asked, key=lambda a: rec.end if a.question.ask_t is None else a.question.ask_t)
    with tempfile.TemporaryDirectory(prefix="edge-assist-qa-free-") as tmp:
        mcfg = cfg.replace(**{"general.data_dir": tmp, "general.wearer": rec.recording})
        memory = Memory.open(mcfg, llm, enc, None)
        try:
            assistant = build_assistant(mcfg, llm, enc, memory, clock=clock)
            i = 0
            for a in timed:
                q = a.question
                ask_t = rec.end if q.ask_t is None else q.ask_t
                while i < len(rec.captions) and rec.captions[i][1] <= ask_t:
                    t0, t1, text = rec.captions[i]
                    await clock.run_blocking(memory.ingest, Caption(t1, rec.session_id, i, t0, t1, text))
                    i += 1
                base: dict[str, Any] = {"part": a.part, "id": q.qid, "recording": q.recording, "kind": q.kind}
                base |= {"question": q.question, "ask_t": round(ask_t, 1), "conversation": q.conversation}
                conv = None
                if q.conversation is not None:
                    conv = conversations.setdefault((a.part, q.conversation), Conversation())
                began = time.perf_counter()
                ans = await assistant.answer(
                    q.question,
                    before_t=ask_t,
                    session_id=rec.session_id,
                    conversation=conv,
                    task=rec.task,
                    task_context=rec.task_context,
                )
                seconds = time.perf_counter() - began
                said = ans.spoken()
                v = score(q, said, ask_t)
                out.append(
                    base
                    | {"answer": said, "outcome": v.outcome, "wrong_no": v.wrong_no, "why": v.why}
                    | {"seconds": round(seconds, 3), "memory_captions": i}
                )
        finally:
            memory.close()
    return out


def _pct(n: int, d: int) -> float | None:
    return round(100.0 * n / d, 1) if d else None


def summarise(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One part's figures: right %, never-seen right %, wrong Nos, per kind, answer time."""
    ran = records
    never = [r for r in ran if r["kind"] == "never"]
    answerable = [r for r in ran if r["kind"] != "never"]
    secs = [r["seconds"] for r in ran]
    by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_kind[r["kind"]].append(r)
    return {
        "questions": len(records),
        "right_pct": _pct(sum(r["outcome"] == RIGHT for r in ran), len(ran)),
        "answerable": {
            "n": len(answerable),
            "right_pct": _pct(sum(r["outcome"] == RIGHT for r in answerable), len(answerable)),
            "abstained_pct": _pct(sum(r["outcome"] == ABSTAINED for r in answerable), len(answerable)),
        },
        "never_seen": {
            "n": len(never),
            "right_pct": _pct(sum(r["outcome"] == RIGHT for r in never), len(never)),
        },
        "confident_wrong_no": sum(bool(r["wrong_no"]) for r in ran),
        "per_kind": {
            k: {
                "n": len(v),
                "right_pct": _pct(sum(r["outcome"] == RIGHT for r in v), len(v)),
                "wrong_no": sum(bool(r["wrong_no"]) for r in v),
            }
            for k in KINDS
            if (v := by_kind.get(k, []))
        },
        "latency_s": {"median": percentile(secs, 50, 3) or 0.0, "p95": percentile(secs, 95, 3) or 0.0},
    }
