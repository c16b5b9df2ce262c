"""How the assistant reads what kind of question it was asked, on questions people wrote in their
own words: a procedure question (next, missed, progress, which task), a follow-up that leans on
the last answer (after, before, where, ago, amount, another thing, another time, a pointer), or
a question for memory. The reading is the one every answer path makes before it answers
(`answers/offline.py`, `runtime/steps/questions.py`): the follow-up forms on the question said
plain, then the tracker's intents and the task question on the wearer's wording.

    .venv/bin/python -m benchmarks.question_kinds edge_assist/data/questions/kinds-writerA.jsonl
    .venv/bin/python -m benchmarks.question_kinds --out DIR FILE [FILE ...]

Each line of a FILE: {"id", "question", "intent", "accept": [...], "previous", "style"}. A reading
is right when it is one of `accept`. Results: DIR/results.json and report.md (right % per intent
and per style, and the confusions), and DIR/questions.tar.gz (<file stem>.json: one line per
question with its reading).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import tarfile
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from edge_assist.answers import follow_up_kinds
from edge_assist.answers.conversation import follow_up
from edge_assist.answers.procedure import ProcedureQuestions
from edge_assist.clock import RealClock
from edge_assist.config import load_config
from edge_assist.inference.loader import load_text_encoder
from edge_assist.tasks import question_kinds
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.question_kinds import QuestionKinds
from edge_assist.tasks.session import TaskSession
from edge_assist.text.question_voice import as_wearers
from edge_assist.text.spoken_questions import plain

OUT = Path(__file__).resolve().parent / "results" / "qa" / "question-kinds"
PROCEDURE = ("next", "missed", "progress", "task")
FOLLOW_UPS = ("after", "before", "where", "ago", "amount", "object", "occurrence", "pointer")
# Follow-up forms the reader has beyond the labels: "what for?" and "and the egg, is it in?"
# (a whole question once its thing is put in); "what about that one?" points at nothing.
READ_AS = {"purpose": "purpose", "named": "memory", "vague": "vague"}


def read(questions: ProcedureQuestions, kinds: QuestionKinds, question: str, previous: str) -> str:
    """The kind of question the answer paths take `question` for, `previous` asked before it
    ("" when nothing was)."""
    said = plain(question)
    follow = follow_up(said)
    if follow is None and previous:
        follow = follow_up_kinds.by_meaning(said, kinds, plain(previous))
    if follow is not None:
        return READ_AS.get(follow.kind, follow.kind)
    return questions.asks(as_wearers(said)) or "memory"


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def pct(group: list[dict[str, Any]]) -> dict[str, Any]:
        right = sum(r["right"] for r in group)
        return {"n": len(group), "right": right, "right_pct": round(100.0 * right / max(1, len(group)), 1)}

    by: dict[str, dict[str, list[dict[str, Any]]]] = {"intent": defaultdict(list), "style": defaultdict(list)}
    for r in rows:
        by["intent"][r["intent"]].append(r)
        by["style"][r.get("style", "")].append(r)
    group = {
        "procedure": [r for r in rows if r["intent"] in PROCEDURE],
        "follow-up": [r for r in rows if r["intent"] in FOLLOW_UPS],
        "memory": [r for r in rows if r["intent"] == "memory"],
    }
    confusions = Counter((r["intent"], r["read"]) for r in rows if not r["right"])
    return {
        "all": pct(rows),
        "groups": {k: pct(v) for k, v in group.items()},
        "per_intent": {k: pct(v) for k, v in sorted(by["intent"].items())},
        "per_style": {k: pct(v) for k, v in sorted(by["style"].items())},
        "confusions": [{"intent": a, "read": b, "n": n} for (a, b), n in confusions.most_common()],
    }


def without_model() -> None:
    """Reads as the fixed forms and phrasings alone would: the model never reaches its bar."""
    d = json.loads(question_kinds.MODEL.read_text(encoding="utf-8"))
    path = Path(tempfile.mkdtemp(prefix="question-kinds-")) / "fixed-forms-only.json"
    path.write_text(json.dumps({**d, "min_p": 2.0}), encoding="utf-8")
    question_kinds.MODEL = path


def run(files: list[Path], out: Path) -> dict[str, Any]:
    cfg = load_config(None)
    encoder = load_text_encoder(cfg)
    questions = ProcedureQuestions(TaskSession(TaskLibrary.load(), encoder, RealClock()))
    kinds = QuestionKinds(questions.probe.vectors)
    out.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {}
    per_question: dict[str, str] = {}
    for f in files:
        items = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines() if x.strip()]
        rows, started, cpu = [], time.perf_counter(), time.process_time()
        for q in items:
            got = read(questions, kinds, q["question"], q.get("previous") or "")
            accept = q.get("accept") or [q["intent"]]
            rows.append({**q, "read": got, "right": got in accept})
        elapsed, cpu_s = time.perf_counter() - started, time.process_time() - cpu
        per_question[f"{f.stem}.json"] = "\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n"
        results[f.stem] = {
            **score(rows),
            "seconds_per_question": round(elapsed / max(1, len(rows)), 4),
            "cpu_s_per_question": round(cpu_s / max(1, len(rows)), 4),
        }
    archive(out / "questions.tar.gz", per_question)
    return results


def archive(path: Path, files: dict[str, str]) -> None:
    """The run's per-question readings, one archive per run."""
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def report(results: dict[str, Any], command: str, commit: str) -> str:
    parts = list(results)
    lines = [
        "# Question kinds: how each question is read before it is answered",
        "",
        f"Commit `{commit}`, load {os.getloadavg()[0]:.1f}. Command: `{command}`",
        "",
        "| | " + " | ".join(parts) + " |",
        "|---|" + "---|" * len(parts),
    ]

    def row(name: str, get: Any) -> None:
        cells = []
        for p in parts:
            g = get(results[p])
            cells.append(f"{g['right_pct']} ({g['right']}/{g['n']})" if g else "-")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")

    row("**all**", lambda r: r["all"])
    for g in ("procedure", "follow-up", "memory"):
        row(f"**{g}**", lambda r, g=g: r["groups"].get(g))
    for k in (*PROCEDURE, *FOLLOW_UPS):
        row(k, lambda r, k=k: r["per_intent"].get(k))
    styles = sorted({s for r in results.values() for s in r["per_style"]})
    for s in styles:
        row(f"style: {s}", lambda r, s=s: r["per_style"].get(s))
    for p in parts:
        top = ", ".join(
            f"{c['intent']} read as {c['read']} ({c['n']})" for c in results[p]["confusions"][:12]
        )
        lines += ["", f"{p}, most common misreadings: {top or 'none'}."]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--fixed-forms-only", action="store_true", help="without the question-kind model")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    if a.fixed_forms_only:
        without_model()
    results = run(a.files, a.out)
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout
    flag = "--fixed-forms-only " if a.fixed_forms_only else ""
    command = f"python -m benchmarks.question_kinds {flag}" + " ".join(str(f) for f in a.files)
    (a.out / "results.json").write_text(
        json.dumps({"command": command, "commit": commit.strip(), "results": results}, indent=1) + "\n",
        encoding="utf-8",
    )
    text = report(results, command, commit.strip())
    (a.out / "report.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
