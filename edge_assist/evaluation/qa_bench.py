"""`edge-assist eval qa`: the question benchmark (questions from `qa_questions`), scored.

Per recording, memory is built causally: captions are ingested in time order and each
question is asked, through `assistant.answer`, once memory holds exactly the captions
that ended by its ask time (and `before_t` bounds every read). Every answerer row
(`grounded`, `free`) answers the same question over the same memory.

Scoring: `qa_scoring.py` (a time in the step's window, the right option, yes or no, the
quantity said; abstention for the unanswerable; confident wrong "No"s counted apart).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import numpy as np

from edge_assist.config import Config
from edge_assist.evaluation.annotations import write_jsonl
from edge_assist.evaluation.qa_questions import (
    TEMPLATES,
    Question,
    Stream,
    generate,
    load_streams,
)
from edge_assist.evaluation.qa_scoring import confident_wrong_no, score
from edge_assist.evaluation.workers import worker_pool
from edge_assist.inference.base import LLM, TextEncoder
from edge_assist.reasoning.answer_text import is_abstention
from edge_assist.runtime.percentiles import percentile

ROWS = ("grounded", "free")


async def _run_recording(
    cfg: Config, stream: Stream, questions: list[Question], rows: Sequence[str], llm: LLM, enc: TextEncoder
) -> list[dict[str, Any]]:
    from edge_assist.clock import RealClock
    from edge_assist.events import Caption
    from edge_assist.memory.memory import Memory
    from edge_assist.runtime.assistant import build_assistant

    out: list[dict[str, Any]] = []
    clock = RealClock()
    with tempfile.TemporaryDirectory(prefix="edge-assist-qa-") as tmp:
        mcfg = cfg.replace(**{"general.data_dir": tmp, "general.wearer": stream.recording})
        memory = Memory.open(mcfg, llm, enc, None)
        try:
            assistants = {
                r: build_assistant(mcfg.replace(**{"reasoner.answerer": r}), llm, enc, memory, clock=clock)
                for r in rows
            }
            i = 0
            for q in sorted(questions, key=lambda q: (q.ask_t, q.qid)):
                while i < len(stream.captions) and stream.captions[i][1] <= q.ask_t:
                    t0, t1, text = stream.captions[i]
                    await clock.run_blocking(memory.ingest, Caption(t1, stream.session_id, i, t0, t1, text))
                    i += 1
                for r, a in assistants.items():
                    start = time.perf_counter()
                    ans = await a.answer(
                        q.text, choices=q.choices, before_t=q.ask_t, session_id=stream.session_id
                    )
                    seconds = time.perf_counter() - start
                    said = ans.trace.get("evidence") or ans.text
                    vecs = np.asarray(enc.encode([said, q.reference]))
                    cos = float(vecs[0] @ vecs[1])
                    out.append(
                        {
                            "qid": q.qid,
                            "row": r,
                            "template": q.template,
                            "form": q.form,
                            "answerable": q.answerable,
                            "why": q.why,
                            "question": q.text,
                            "answer": said,
                            "choice": ans.choice,
                            "correct_choice": q.correct_choice,
                            "reference": q.reference,
                            "cosine": round(cos, 3),
                            "abstained": is_abstention(said),
                            "correct": score(q, said, ans.choice, cos),
                            "seconds": round(seconds, 3),
                            "memory_captions": i,
                            "candidates": [
                                [c[2], c[4], c[5], c[6]] for c in ans.trace.get("candidates", [])[:3]
                            ],
                            "outcome": ans.trace.get("outcome", ""),
                        }
                    )
        finally:
            memory.close()
    return out


def _pct(n: int, d: int) -> float | None:
    return round(100.0 * n / d, 1) if d else None


def summarise(records: list[dict[str, Any]], rows: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for r in rows:
        mine = [x for x in records if x["row"] == r]
        by: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for x in mine:
            key = x["template"] if x["template"] != "with" else f"with ({x['form']})"
            by[key].append(x)
        answerable = [x for x in mine if x["answerable"]]
        unans = [x for x in mine if not x["answerable"]]
        empty = [x for x in unans if x["why"] == "empty-memory"]
        secs = [x["seconds"] for x in mine]
        out[r] = {
            "questions": len(mine),
            "per_template": {
                k: {"n": len(v), "correct_pct": _pct(sum(x["correct"] for x in v), len(v))}
                for k, v in sorted(by.items())
            },
            "answerable": {
                "n": len(answerable),
                "correct_pct": _pct(sum(x["correct"] for x in answerable), len(answerable)),
                "abstained_pct": _pct(sum(x["abstained"] for x in answerable), len(answerable)),
            },
            "unanswerable": {
                "n": len(unans),
                "correct_abstention_pct": _pct(sum(x["correct"] for x in unans), len(unans)),
                "by_why": {
                    w: _pct(
                        sum(x["correct"] for x in unans if x["why"] == w),
                        sum(1 for x in unans if x["why"] == w),
                    )
                    for w in sorted({x["why"] for x in unans})
                },
            },
            "invented_over_empty_memory": sum(not x["abstained"] for x in empty),
            "confident_wrong_no": sum(confident_wrong_no(x) for x in mine),
            "yes_questions": sum(
                x["form"] == "yesno" and x.get("expect_yes", x["template"] == "did-yes") for x in mine
            ),
            "empty_memory_questions": len(empty),
            "latency_s": {
                "median": percentile(secs, 50, 3) or 0.0,
                "p95": percentile(secs, 95, 3) or 0.0,
            },
        }
    return out


def run(
    cfg: Config,
    dataset: Path,
    split: str,
    variant: str,
    rows: Sequence[str],
    *,
    limit: int = 0,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    out_dir: Path | None = None,
    read_back: bool = False,
    jobs: int = 1,
) -> dict[str, Any]:
    """Every recording's questions answered and scored.

    With `out_dir`, each recording's answers are written to answers/<recording>.jsonl as
    soon as it is done; with `read_back`, a recording whose file holds exactly its
    questions and rows is read, not answered again (resuming an interrupted run of the
    same code and configuration). With `jobs` > 1 recordings are answered in parallel
    worker processes, each with its own models; results keep recording order.
    """
    # Questions use the annotated wording (original streams); memory holds the variant's captions.
    annotated = load_streams(dataset, split, "original")
    memory_streams = {s.recording: s for s in load_streams(dataset, split, variant)}
    questions = generate(annotated, seed=seed)
    recordings = [s.recording for s in annotated]
    if limit:
        recordings = recordings[:limit]
    asked = {rid: [q for q in questions if q.recording == rid] for rid in recordings}
    kept = _answered(out_dir, asked, rows) if read_back and out_dir is not None else {}
    todo = [rid for rid in recordings if rid not in kept]
    models = None  # loaded here before the clock starts; a worker loads its own
    if jobs <= 1 and todo:
        from edge_assist.inference.loader import load_llm, load_text_encoder

        models = (load_llm(cfg), load_text_encoder(cfg))
    records: list[dict[str, Any]] = []
    start = time.perf_counter()
    with worker_pool(jobs) as pool:
        answers = _answers(cfg, memory_streams, asked, rows, todo, kept, out_dir, pool, models)
        for k, (rid, recs) in enumerate(answers, 1):
            records += recs
            if progress is not None:
                how = "read back" if rid in kept else f"{time.perf_counter() - start:.0f} s"
                progress(f"[{k}/{len(recordings)}] {rid}: {len(asked[rid])} questions, {how}")
    return {
        "split": split,
        "variant": variant,
        "rows": list(rows),
        "recordings": len(recordings),
        "seed": seed,
        "templates": list(TEMPLATES),
        "summary": summarise(records, rows),
        "records": records,
        "wall_s": round(time.perf_counter() - start, 1),
    }


def _answers(
    cfg: Config,
    streams: dict[str, Stream],
    asked: dict[str, list[Question]],
    rows: Sequence[str],
    todo: list[str],
    kept: dict[str, list[dict[str, Any]]],
    out_dir: Path | None,
    executor: Executor | None,
    models: tuple[LLM, TextEncoder] | None,
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(recording, its records) in recording order: read back, from a worker, or answered here."""
    files = {rid: out_dir / "answers" / f"{rid}.jsonl" if out_dir is not None else None for rid in todo}
    futures = (
        {
            rid: executor.submit(answer_recording, cfg, streams[rid], asked[rid], rows, files[rid])
            for rid in todo
        }
        if executor is not None
        else {}
    )
    for rid in asked:
        if rid in kept:
            yield rid, kept[rid]
        elif executor is not None:
            yield rid, futures[rid].result()
        else:
            yield rid, answer_recording(cfg, streams[rid], asked[rid], rows, files[rid], models)


_WORKER_MODELS: dict[str, tuple[LLM, TextEncoder]] = {}


def answer_recording(
    cfg: Config,
    stream: Stream,
    questions: list[Question],
    rows: Sequence[str],
    out_file: Path | None = None,
    models: tuple[LLM, TextEncoder] | None = None,
) -> list[dict[str, Any]]:
    """One recording's records, written whole to `out_file` when given.

    A top-level function so that a worker process can run it; without `models` it loads
    them once per process (a worker answers many recordings with one configuration).
    """
    if models is None:
        key = repr(cfg)
        if key not in _WORKER_MODELS:
            from edge_assist.inference.loader import load_llm, load_text_encoder

            _WORKER_MODELS[key] = (load_llm(cfg), load_text_encoder(cfg))
        models = _WORKER_MODELS[key]
    records = asyncio.run(_run_recording(cfg, stream, questions, rows, *models))
    if out_file is not None:
        write_jsonl(out_file, records)
    return records


def _answered(
    out_dir: Path, asked: dict[str, list[Question]], rows: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    """The records an earlier run wrote, per recording whose file answers its questions in these rows."""
    kept: dict[str, list[dict[str, Any]]] = {}
    for rid, qs in asked.items():
        f = out_dir / "answers" / f"{rid}.jsonl"
        if not f.exists():
            continue
        recs = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
        if sorted((x["qid"], x["row"]) for x in recs) == sorted((q.qid, r) for q in qs for r in rows):
            kept[rid] = recs
    return kept


def write_results(path: Path, result: dict[str, Any]) -> None:
    """results.json: the summary indented, then one line per answered question."""
    head = {k: v for k, v in result.items() if k != "records"}
    lines = ",\n".join(json.dumps(x, ensure_ascii=False) for x in result.get("records", []))
    text = json.dumps(head, indent=1)
    path.write_text(text[:-2] + ',\n "records": [\n' + lines + "\n ]\n}\n", encoding="utf-8")


def _wrong_no_row(s: dict[str, Any], rows: Sequence[str]) -> str:
    cells = " | ".join(f"**{s[r].get('confident_wrong_no')}**" for r in rows)
    return f'| **confident wrong "No"** (truth yes) | {s[rows[0]].get("yes_questions", "")} | {cells} |'


def settings_line(settings: dict[str, Any]) -> str:
    """The report's line naming the settings a run changed (both question benchmarks')."""
    return "Settings that differ from the defaults: " + (
        ", ".join(f"`{k} = {v}`" for k, v in settings.items()) or "none"
    )


def report_md(result: dict[str, Any], command: str, settings: dict[str, Any]) -> str:
    rows = result["rows"]
    s = result["summary"]
    keys = sorted({k for r in rows for k in s[r]["per_template"]})
    lines = [
        f"# Question benchmark: CaptainCook4D {result['split']}, {result['variant']} streams",
        "",
        f"{result['recordings']} recordings, {s[rows[0]]['questions']} questions per row (seed "
        f"{result['seed']}). "
        "Command:",
        "",
        f"```\n{command}\n```",
        "",
        settings_line(settings),
        "",
        "| template | n | " + " | ".join(rows) + " |",
        "|---|---|" + "---|" * len(rows),
    ]
    for k in keys:
        n = s[rows[0]]["per_template"].get(k, {}).get("n", 0)
        cells = [str(s[r]["per_template"].get(k, {}).get("correct_pct")) for r in rows]
        lines.append(f"| {k} | {n} | " + " | ".join(cells) + " |")
    lines += [
        "| **answerable, correct %** | "
        + str(s[rows[0]]["answerable"]["n"])
        + " | "
        + " | ".join(f"**{s[r]['answerable']['correct_pct']}**" for r in rows)
        + " |",
        "| answerable, abstained % |  | "
        + " | ".join(str(s[r]["answerable"]["abstained_pct"]) for r in rows)
        + " |",
        "| **unanswerable, correct abstention %** | "
        + str(s[rows[0]]["unanswerable"]["n"])
        + " | "
        + " | ".join(f"**{s[r]['unanswerable']['correct_abstention_pct']}**" for r in rows)
        + " |",
    ]
    whys = sorted({w for r in rows for w in s[r]["unanswerable"]["by_why"]})
    for w in whys:
        lines.append(
            f"| … {w} |  | " + " | ".join(str(s[r]["unanswerable"]["by_why"].get(w)) for r in rows) + " |"
        )
    lines += [
        "| **invented answers over an empty memory** | "
        + str(s[rows[0]]["empty_memory_questions"])
        + " | "
        + " | ".join(f"**{s[r]['invented_over_empty_memory']}**" for r in rows)
        + " |",
        _wrong_no_row(s, rows),
        "| latency median / p95 (s) |  | "
        + " | ".join(f"{s[r]['latency_s']['median']} / {s[r]['latency_s']['p95']}" for r in rows)
        + " |",
        "",
        "Targets (offline default models, val): answerable >= 80 %, correct abstentions >= 90 %, "
        '0 invented answers over an empty memory, 0 confident wrong "No".',
        "",
    ]
    return "\n".join(lines)
