"""What a row said, without ground truth: spoken alerts per hour, by sub-type and by the
tracker finding behind each, which tasks the tracker named, and strong alerts held behind weak.

On unscripted streams (nothing labelled, no task named) every spoken alert is a false alarm,
so these are the numbers; on labelled sets they say where the false alarms come from. All of
it is read from each decision's trace, which a decision read back from a log no longer has
(its kind is then "unknown").
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from edge_assist.events import Decision, SubType
from edge_assist.reasoning.gate_decider import SAY_ORDER

HAZARD = "hazard"
NO_FINDING = "no finding"
UNKNOWN = "unknown (no trace)"
# The policy module that marks a suppression caused by a weaker alert (in `suppressed_by`,
# its `BEHIND_WEAKER` words). Without it the policy does not say, and the count reads 0.
HELD_ALERTS_MODULE = "edge_assist.reasoning.held_alerts"


def _behind_weaker_marker() -> str | None:
    try:
        marker = importlib.import_module(HELD_ALERTS_MODULE).BEHIND_WEAKER
    except (ImportError, AttributeError):
        return None
    return str(marker)


def spoken(decisions: Iterable[Decision]) -> list[Decision]:
    return [d for d in decisions if d.speak and d.sub_type is not None and d.trigger == "proactive"]


def finding_kind(d: Decision) -> str:
    """The tracker finding an alert was about: a hazard, the finding the gate phrases (most
    specific first), or none (the gate spoke on timing and history alone)."""
    if not d.trace:
        return UNKNOWN
    if HAZARD in (d.trace.get("gate") or {}):
        return HAZARD
    kinds = {f.get("kind") for f in (d.trace.get("task") or {}).get("findings", [])}
    return next((k for k in SAY_ORDER if k in kinds), NO_FINDING)


def _per_hour(n: int, hours: float) -> float | None:
    return round(n / hours, 3) if hours > 0 else None


def recognition(decisions: Mapping[str, Sequence[Decision]]) -> dict[str, Any]:
    """How often the tracker had a task, how it got it (named by the stream, or recognised), and
    which: per task, the captions it was current at and the recordings it was named in."""
    captions = with_task = 0
    sources: Counter[str] = Counter()
    by_task: dict[str, dict[str, int]] = {}
    recordings: set[str] = set()
    for rid, decs in decisions.items():
        named_here: set[str] = set()
        for d in decs:
            if d.trigger != "proactive":
                continue
            captions += 1
            task = d.trace.get("task") or {}
            if not task.get("task"):
                continue
            with_task += 1
            sources[str(task.get("task_source", "?"))] += 1
            entry = by_task.setdefault(str(task["task"]), {"captions": 0, "recordings": 0})
            entry["captions"] += 1
            named_here.add(str(task["task"]))
        for name in named_here:
            by_task[name]["recordings"] += 1
        if named_here:
            recordings.add(rid)
    return {
        "captions": captions,
        "captions_with_task": with_task,
        "recordings": len(decisions),
        "recordings_with_task": len(recordings),
        "source": dict(sorted(sources.items())),
        "by_task": dict(sorted(by_task.items(), key=lambda kv: (-kv[1]["captions"], kv[0]))),
    }


def held_behind_weak(decisions: Iterable[Decision]) -> dict[str, Any]:
    """Stronger alerts held back behind weaker ones: as the policy reports it (its marker in
    `suppressed_by`; 0 and `policy_reports: false` when this policy has none), and as derived
    here from the gate's probabilities: an alert held back by a cooldown whose P(ER helps)
    beat that of the alert of its sub-type spoken last in the same session."""
    marker = _behind_weaker_marker()
    reported = derived = 0
    last_p: dict[tuple[str, str], float] = {}
    for d in decisions:
        if marker is not None and marker in d.suppressed_by:
            reported += 1
        if d.sub_type is None or d.trigger != "proactive":
            continue
        p = (d.trace.get("gate") or {}).get("ER")
        key = (d.session_id, d.sub_type.value)
        if d.speak and p is not None:
            last_p[key] = float(p)
        elif d.suppressed_by.startswith("cooldown") and p is not None and key in last_p:
            derived += float(p) > last_p[key]
    return {"count": reported, "policy_reports": marker is not None, "derived_from_gate": derived}


def alert_profile(decisions: Mapping[str, Sequence[Decision]], hours: float) -> dict[str, Any]:
    """The row's spoken alerts per hour (of `hours`, the recordings' whole length) and why."""
    said = [d for decs in decisions.values() for d in spoken(decs)]
    subs = Counter(d.sub_type.value for d in said if d.sub_type is not None)
    kinds = Counter(finding_kind(d) for d in said)
    return {
        "hours": round(hours, 4),
        "spoken": len(said),
        "per_hour": _per_hour(len(said), hours),
        "by_sub_type": {s: {"spoken": n, "per_hour": _per_hour(n, hours)} for s, n in sorted(subs.items())},
        "by_finding": {k: {"spoken": n, "per_hour": _per_hour(n, hours)} for k, n in sorted(kinds.items())},
        "recognition": recognition(decisions),
        "held_behind_weak": held_behind_weak(d for decs in decisions.values() for d in decs),
    }


def _rate(section: Mapping[str, Any], key: str, hours: float) -> str:
    """Per hour; a kind this row never spoke is 0 per hour (– only when there are no hours)."""
    v = section.get(key, {}).get("per_hour", 0.0 if hours > 0 else None)
    return "–" if v is None else f"{v:.2f}"


def table(rows: Sequence[Mapping[str, Any]]) -> str:
    """Alerts per hour by sub-type and finding kind, and the tasks named, one line per row."""
    with_alerts = [r for r in rows if r.get("alerts")]
    subs = sorted({s for r in with_alerts for s in r["alerts"]["by_sub_type"]}, key=_sub_order)
    kinds = sorted({k for r in with_alerts for k in r["alerts"]["by_finding"]})
    head = ["system", "hours", "alerts / h", *[f"{s} / h" for s in subs], *[f"{k} / h" for k in kinds]]
    head += ["captions with a task", "tasks named (captions)", "strong held behind weak"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in with_alerts:
        a = r["alerts"]
        rec = a["recognition"]
        named = ", ".join(f"{t} ({v['captions']})" for t, v in list(rec["by_task"].items())[:4]) or "none"
        held = a["held_behind_weak"]
        cells = [
            str(r["name"]),
            f"{a['hours']:.2f}",
            "–" if a["per_hour"] is None else f"{a['per_hour']:.2f}",
            *[_rate(a["by_sub_type"], s, a["hours"]) for s in subs],
            *[_rate(a["by_finding"], k, a["hours"]) for k in kinds],
            f"{rec['captions_with_task']}/{rec['captions']} "
            f"({rec['recordings_with_task']}/{rec['recordings']} rec.)",
            named,
            f"{held['count'] if held['policy_reports'] else '0 (not reported)'}; "
            f"derived {held['derived_from_gate']}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _sub_order(value: str) -> int:
    order = [s.value for s in SubType]
    return order.index(value) if value in order else len(order)
