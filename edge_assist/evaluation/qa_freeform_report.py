"""report.md of the free-form question benchmark: each question file (part) reported apart."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from edge_assist.evaluation.qa_bench import settings_line
from edge_assist.evaluation.qa_freeform_score import KINDS, RIGHT

# Parts whose answers are not listed one by one: a held-back part is measured, never read for tuning.
_UNLISTED = ("heldback", "held-back", "heldout")


def commit_of(where: Path) -> str:
    """The checkout's commit, with "+changes" when its tracked files differ from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"], cwd=where, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if dirty else "")


def _cell(x: object) -> str:
    return "–" if x is None else str(x)


def report_md(result: dict[str, Any], command: str, settings: dict[str, Any]) -> str:
    s: dict[str, dict[str, Any]] = result["summary"]
    parts = list(s)
    head = "| | " + " | ".join(parts) + " |"
    rule = "|---|" + "---|" * len(parts)
    lines = [
        f"# Free-form question benchmark: {result['variant']} streams",
        "",
        f"{result['recordings']} recordings; answerer `{result['answerer']}`; a follow-up is asked in "
        "its conversation, after the question before it."
        + f" Commit `{result.get('commit', 'unknown')}`. Command:",
        "",
        f"```\n{command}\n```",
        "",
        settings_line(settings),
        "",
        head,
        rule,
        "| questions | " + " | ".join(str(s[p]["questions"]) for p in parts) + " |",
        "| **right %** | " + " | ".join(f"**{_cell(s[p]['right_pct'])}**" for p in parts) + " |",
        "| answerable: right % | " + " | ".join(_cell(s[p]["answerable"]["right_pct"]) for p in parts) + " |",
        "| answerable: abstained % | "
        + " | ".join(_cell(s[p]["answerable"]["abstained_pct"]) for p in parts)
        + " |",
        "| **never seen: right abstentions %** | "
        + " | ".join(
            f"**{_cell(s[p]['never_seen']['right_pct'])}** (n={s[p]['never_seen']['n']})" for p in parts
        )
        + " |",
        '| **confident wrong "No"** | '
        + " | ".join(f"**{s[p]['confident_wrong_no']}**" for p in parts)
        + " |",
        "| answer time median / p95 (s) | "
        + " | ".join(f"{s[p]['latency_s']['median']} / {s[p]['latency_s']['p95']}" for p in parts)
        + " |",
        "",
        "Right % per kind (n; wrong Nos where any):",
        "",
        head,
        rule,
        *_per_kind(s, parts),
    ]
    lines += ["", f"Wall time {result['wall_s']} s (models loaded before).", ""]
    lines += _misses(result["records"])
    return "\n".join(lines)


def _per_kind(s: dict[str, dict[str, Any]], parts: list[str]) -> list[str]:
    lines = []
    for k in KINDS:
        cells = []
        for p in parts:
            c = s[p]["per_kind"].get(k)
            if c is None:
                cells.append("–")
                continue
            txt = f"{_cell(c['right_pct'])} ({c['n']})"
            cells.append(txt + (f", {c['wrong_no']} wrong No" if c["wrong_no"] else ""))
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return lines


def _misses(records: list[dict[str, Any]]) -> list[str]:
    """The answers that were not right, for the parts that may be read (not a held-back part)."""
    shown = [r for r in records if r["outcome"] != RIGHT and not any(u in r["part"] for u in _UNLISTED)]
    if not shown:
        return []
    out = [
        "## Answers not right (readable parts only)",
        "",
        "| id | question | said | outcome |",
        "|---|---|---|---|",
    ]
    for r in shown:
        said = r["answer"].replace("|", "/").replace("\n", " ")
        tag = r["outcome"] + (", wrong No" if r["wrong_no"] else "")
        out.append(f"| {r['id']} | {r['question']} | {said} | {tag}: {r.get('why', '')} |")
    return out + [""]
