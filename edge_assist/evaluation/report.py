"""Paper-style Markdown tables from the results JSON: our rows and the baselines side by side."""

from __future__ import annotations

from typing import Any

from edge_assist.evaluation import alerts
from edge_assist.events import Decision, SubType
from edge_assist.reasoning.held_alerts import behind_weaker, spoken_after_held


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def _num(v: float | None, fmt: str = "{:.2f}") -> str:
    return "–" if v is None else fmt.format(v)


def _active_sub_types(rows: list[dict[str, Any]]) -> list[str]:
    seen = {st for r in rows for st in r.get("per_sub_type", {})}
    return [st.value for st in SubType if st.value in seen]


def policy_counts(decisions: dict[str, list[Decision]]) -> dict[str, int]:
    """What the intervention policy did to wanted alerts, over every recording's decisions: held
    back at all, held back behind a weaker alert ("strong held behind weak": only a cap may
    still do it), and said later when the cooldown that held them ended."""
    out = {"suppressed": 0, "strong_held_behind_weak": 0, "spoken_after_held": 0}
    for d in (d for ds in decisions.values() for d in ds):
        out["suppressed"] += bool(d.suppressed_by)
        out["strong_held_behind_weak"] += behind_weaker(d.suppressed_by)
        out["spoken_after_held"] += d.speak and spoken_after_held(d.reason)
    return out


def _held(policy: dict[str, Any] | None) -> str:
    """ "0 (3 said later)": alerts held behind a weaker one, and held alerts said when free."""
    if not policy:
        return "–"
    return f"{policy.get('strong_held_behind_weak', 0)} ({policy.get('spoken_after_held', 0)} said later)"


def table(rows: list[dict[str, Any]]) -> str:
    subs = _active_sub_types(rows)
    head = [
        "system",
        *[f"{s} F1" for s in subs],
        "overall F1",
        "P/R (ER)",
        "false alarms / h",
        "content match",
        "judge R / E",
        "recall revealable / unrevealable",
        "strong held behind weak",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        per = r.get("per_sub_type", {})
        er = per.get("ER", {})
        judge = r.get("judge") or {}
        rev = r.get("revealable", {})
        cm = r.get("content_match", {})
        cells = [
            r["name"],
            *[_pct(per[s]["f1"]) if s in per else "–" for s in subs],
            _pct(r.get("macro_f1")),
            f"{_pct(er.get('precision'))} / {_pct(er.get('recall'))}" if er else "–",
            _num(r.get("false_alarms", {}).get("per_hour"), "{:.1f}"),
            f"{_pct(cm.get('rate'))} ({cm.get('matched', 0)}/{cm.get('pairs', 0)})",
            f"{_num(judge.get('rationality'))} / {_num(judge.get('effectiveness'))}" if judge else "–",
            f"{_pct(rev.get('revealable', {}).get('recall'))} / "
            f"{_pct(rev.get('unrevealable', {}).get('recall'))}",
            _held(r.get("policy")),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render(results: dict[str, Any]) -> str:
    """The whole report as Markdown."""
    ds = results["dataset"]
    out = [
        f"# edge-assist on {ds['name']} ({results['split']}, {results['variant']} captions)",
        "",
        f"{results['recordings']} recordings, {results['gt_events']} ground-truth services "
        f"({results['recordings_without_errors']} recordings without errors measure false alarms); "
        f"δ = {results['delta_s']:g} s; models: {results['models']}.",
        "",
        "F1, P, R, content match and recall in %. Content match: share of correctly matched responses whose "
        f"text-encoder cosine with the annotated error reaches {results['content_threshold']}. "
        "Judge: mean 1–5 rationality / effectiveness of correctly matched pairs "
        f"(at most {results['judge_max_pairs']} per row). Strong held behind weak: alerts the policy "
        "held back because a weaker one was spoken (only a cap may); said later: alerts a cooldown "
        "held back, said when it ended because they still stood.",
        "",
        table(results["rows"]),
    ]
    vc = results.get("variant_check")
    if vc:
        out += [
            "",
            f"Clip streams checked against the per-step streams: {vc['steps']} steps cut into "
            f"{vc['clips']} clips, every clip inside its step's window, the same ground truth.",
        ]
    if any(r.get("alerts") for r in results["rows"]):
        out += [
            "",
            "## What was said (per hour of recording; without ground truth every alert is a false alarm)",
            "",
            alerts.table(results["rows"]),
        ]
    if results.get("ablations"):
        out += ["", "## Ablations (one retrieval switch off at a time)", "", table(results["ablations"])]
    if results.get("problems"):
        out += ["", "## Annotation problems (records skipped)", ""] + [f"- {p}" for p in results["problems"]]
    if results.get("command"):
        out += ["", "Command:", "", "```", results["command"], "```"]
    return "\n".join(out) + "\n"
