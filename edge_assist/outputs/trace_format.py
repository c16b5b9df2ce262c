"""Decision traces: one JSON line per step, and a readable rendering of them.

The app appends every decision's trace to cfg.data_path("traces.jsonl") with
`write_trace`; `edge-assist trace` reads them back. A line is the decision's public JSON
(`Decision.to_json()`) under "decision", next to the trace the assistant filled: what
each pass saw and answered, which path found which clips and when it ran, the
reconstructed context, the policy's verdict and the time of every section.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from edge_assist.errors import EdgeAssistError
from edge_assist.events import Decision
from edge_assist.text.stream_time import stream_clock

TRACE_VERSION = 2  # 2: "task" (the tracker's reading and findings) replaced "progress"
TRACES_FILE = "traces.jsonl"


def trace_record(decision: Decision) -> dict[str, Any]:
    return {"decision": decision.to_json(), **decision.trace}


def write_trace(path: str | Path, decision: Decision) -> None:
    """Append one decision's trace as a JSON line (the directory is created if needed)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    line = json.dumps(trace_record(decision), ensure_ascii=False, default=str)
    with open(p, "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def read_traces(path: str | Path) -> Iterator[dict[str, Any]]:
    """Every trace in the file, oldest first. A cut last line (a crash mid-write) is skipped."""
    p = Path(path)
    if not p.exists():
        raise EdgeAssistError(f"no trace file at {p}; run `edge-assist run` first, or pass --file PATH")
    with open(p, encoding="utf-8") as fh:
        lines = fh.readlines()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            if n == len(lines):
                return
            raise EdgeAssistError(
                f"{p} line {n} is not JSON; the trace file is damaged: move it away"
            ) from None
        if isinstance(rec, dict):
            yield rec


def _mmss(t: object) -> str:
    if not isinstance(t, int | float):
        return "?"
    return stream_clock(t)


def _short(text: object, n: int = 160) -> str:
    s = " ".join(str(text or "").split())
    return s if len(s) <= n else s[: n - 1] + "…"


def render(rec: dict[str, Any], *, verbose: bool = False) -> str:
    """One trace as indented text: header, passes, paths (with their timing), verdict."""
    d = rec.get("decision", {})
    out = _header(rec, d)
    out += _task_lines(rec.get("task"))
    out += _pass1_lines(rec.get("pass1"))
    out += _search_lines(rec.get("search"))
    out += _retrieval_lines(rec.get("retrieval"), verbose)
    ga = rec.get("answer")
    out += _grounded_lines(ga, verbose)
    p2 = rec.get("pass2") or (ga if not (isinstance(ga, dict) and ga.get("answerer")) else None)
    out += _pass2_lines(p2)
    out += _verdict_lines(rec.get("policy"), d)
    return "\n".join(out)


def _header(rec: dict[str, Any], d: dict[str, Any]) -> list[str]:
    verdict = "SPEAK" if d.get("decision") == "speak" else "silent"
    st = d.get("sub_type") or ""
    head = (
        f"clip {d.get('clip_index')} [{_mmss(d.get('t0'))}-{_mmss(d.get('t1'))}] {rec.get('session_id', '')}"
    )
    out = [f"{head}  {verdict} {st}  ({d.get('latency_s', 0):.2f} s, {d.get('trigger', '')})"]
    if rec.get("query"):
        out.append(f"  question: {_short(rec['query'])}")
    out.append(f"  caption: {_short(rec.get('caption'))}")
    return out


def _task_lines(task: object) -> list[str]:
    if not isinstance(task, dict):
        return []
    done = f"{task.get('k', 0)}/{task.get('n', 0)} done"
    line = f"  task: {task.get('task')} ({task.get('task_source', '')}), {done}"
    if task.get("step_text"):
        line += f"; now {_short(task['step_text'], 60)!r} (confidence {task.get('confidence', 0):.2f})"
    else:
        line += "; now no step of the task"
    out = [line]
    for f in task.get("findings", []):
        out.append(
            f"    finding {f.get('kind')} ({f.get('confidence', 0):.2f}): {_short(f.get('evidence'), 160)}"
        )
    return out


def _pass1_lines(p1: object) -> list[str]:
    if not isinstance(p1, dict):
        return []
    if "skipped" in p1:
        return [f"  pass 1: skipped ({p1['skipped']})"]
    raw = json.dumps(p1.get("raw") or {}, ensure_ascii=False)
    out = [f"  pass 1 ({p1.get('seconds', 0):.2f} s): {_short(raw, 300)}"]
    out.extend(f"    error: {_short(e)}" for e in p1.get("errors", []))
    return out


def _search_lines(s: object) -> list[str]:
    if not isinstance(s, dict):
        return []
    plan = s.get("plan", {})
    return [
        f"  search: {_short(s.get('query'))!r} because {_short(s.get('why'), 100)!r}",
        f"    plan: paths={','.join(plan.get('paths', []))} top_k={plan.get('top_k')} "
        f"reconstruction={plan.get('reconstruction')} -> {s.get('outcome', '')}",
    ]


def _retrieval_lines(r: object, verbose: bool) -> list[str]:
    if not isinstance(r, dict):
        return []
    out: list[str] = []
    for name, p in r.get("paths", {}).items():
        clips = p.get("clips", [])
        ids = ", ".join(
            f"{c['clip_index']}({c['score']:.2f} {c['via']})" for c in clips[: 8 if verbose else 4]
        )
        span = f"{p.get('start_s', 0):7.3f}-{p.get('end_s', 0):7.3f} s"
        out.append(f"    {name:8s} {span}  {len(clips)} clips  {ids}")
        if p.get("error"):
            out.append(f"      error: {_short(p['error'])}")
        if verbose and p.get("description"):
            out.append(f"      looks like: {_short(p['description'])}")
        if verbose and p.get("names"):
            out.append(f"      names: {', '.join(p['names'])}")
    for name, why in r.get("skipped", {}).items():
        out.append(f"    {name:8s} skipped: {why}")
    for name, acc in r.get("reconstruction", {}).items():
        out.append(
            f"    reconstruction {name} ({acc.get('by')}, {acc.get('seconds', 0):.2f} s): "
            f"{_short(acc.get('text'), 400 if verbose else 160)}"
        )
    if verbose and r.get("context"):
        out.append("    context:")
        out.extend(f"      {line}" for line in str(r["context"]).splitlines())
    return out


def _grounded_lines(ga: object, verbose: bool) -> list[str]:
    if not isinstance(ga, dict) or ga.get("answerer") != "grounded":
        return []
    looked_up = _short(ga.get("focus"), 80)
    out = [f"  grounded answer ({ga.get('kind')}; looked up {looked_up!r}): {ga.get('outcome', '')}"]
    for c in ga.get("candidates", [])[: 5 if verbose else 3]:
        # [session, clip, t0, t1, cosine, text, support]
        support = f", support {c[6]:.2f}" if len(c) > 6 else ""
        out.append(f"    clip {c[1]} [{_mmss(c[2])}] cosine {c[4]:.2f}{support}: {_short(c[5], 90)}")
    if isinstance(ga.get("choose"), dict):
        out.append(f"    model chose: {_short(json.dumps(ga['choose'].get('raw') or {}), 80)}")
    if isinstance(ga.get("rephrase"), dict):
        out.append(f"    rephrasing: {ga['rephrase'].get('check', ga['rephrase'].get('kept', ''))}")
    return out


def _pass2_lines(p2: object) -> list[str]:
    if not isinstance(p2, dict):
        return []
    raw = json.dumps(p2.get("raw") or {}, ensure_ascii=False)
    out = [f"  pass 2 ({p2.get('seconds', 0):.2f} s): {_short(raw, 300)}"]
    out.extend(f"    error: {_short(e)}" for e in p2.get("errors", []))
    return out


def _verdict_lines(pol: object, d: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if isinstance(pol, dict) and not pol.get("allowed", True):
        out.append(f"  policy: suppressed by {pol.get('reason')}")
    if d.get("text"):
        out.append(f"  says: {_short(d['text'], 300)}")
    elif d.get("reason"):
        out.append(f"  reason: {_short(d['reason'])}")
    timings = d.get("timings_s") or {}
    if timings:
        out.append("  timings: " + "  ".join(f"{k}={v:.3f}" for k, v in timings.items()))
    return out
