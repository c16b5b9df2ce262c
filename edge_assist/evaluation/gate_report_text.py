"""The written report of `edge-assist gate train`: report.md and the curve plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def report(res: dict[str, Any]) -> str:
    lines = [
        "# The intervention gate (Error Recovery), CaptainCook4D",
        "",
        f"Command: `{res['command']}`",
        "",
        f"Trained on train ({', '.join(res['variants'])})"
        + (
            f" and on {res['error_free']['streams']} train ({res['error_free']['train_rows']} captions, "
            "none an error; its val streams are reported, all their alerts false, each 10-s clip over the "
            "threshold counted: what the policy speaks of them is in ../generalization/)"
            if "error_free" in res
            else ""
        )
        + "; for each chattiness the threshold is the "
        f"strictest that keeps the false-alarm budget per hour of error-free recordings "
        f"({res['budgets_false_alarms_per_hour']}) on each of val {', '.join(res['choose_on'])}. "
        "Every caption where the gate's probability passes the threshold is an ER prediction (before the "
        "intervention policy), scored by the EgoServe scorer (δ = 25 s).",
        "",
        "| row | chattiness | P | R | ER F1 | false alarms / h |",
        "|---|---|---|---|---|---|",
    ]
    for name, pts in res["rows"].items():
        for c, p in pts.items():
            lines.append(
                f"| {name} | {c} | {p['precision']} | {p['recall']} | {p['f1']} | "
                f"{p['false_alarms_per_hour']} |"
            )
    lines += _choice_lines(res)
    lro = res["leave_recipes_out"]
    lines += [
        "",
        f"## Leave recipes out ({len(lro['folds'])} folds of recipes over train+val, {lro['variant']})",
        "",
        "| chattiness | P | R | ER F1 | false alarms / h |",
        "|---|---|---|---|---|",
    ]
    for c, p in lro["mean"].items():
        lines.append(f"| {c} | {p['precision']} | {p['recall']} | {p['f1']} | {p['false_alarms_per_hour']} |")
    lines += [
        "",
        "## Safety alerts from the hazard detector on error-free recordings (their false-alarm cost)",
        "",
        "| recordings | alerts | hours | per hour |",
        "|---|---|---|---|",
    ]
    for k, h in res["hazards"].items():
        lines.append(f"| {k} | {h['alerts']} | {h['hours']} | {h['per_hour']} |")
    lines += ["", "## Weights (standardised features)", "", "| feature | weight |", "|---|---|"]
    for n, w in sorted(res["weights"].items(), key=lambda kv: -abs(kv[1])):
        lines.append(f"| {n} | {w} |")
    lines += [
        "",
        "The whole curve on val paraphrased: `curve.png` (F1 and false alarms per hour against the "
        "threshold).",
    ]
    return "\n".join(lines) + "\n"


def _choice_lines(res: dict[str, Any]) -> list[str]:
    """Both candidates on every val variant, and which one ships (gate_choice.py)."""
    lines = [
        "",
        f"## Which gate ships: {res['chosen']} "
        f"(best worst-case ER F1 over val {', '.join(res['choose_on'])})",
        "",
        "| candidate | val variant | chattiness | P | R | ER F1 | false alarms / h |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, c in res["candidates"].items():
        for v, pts in c["rows"].items():
            for ch, p in pts.items():
                lines.append(
                    f"| {name} | {v} | {ch} | {p['precision']} | {p['recall']} | {p['f1']} | "
                    f"{p['false_alarms_per_hour']} |"
                )
    lines += ["", "| candidate | worst-case F1 (mean of quiet and chatty) |", "|---|---|"]
    lines += [f"| {name} | {c['worst_case_f1']} |" for name, c in res["candidates"].items()]
    return lines


def plot(res: dict[str, Any], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # the eval extra is not installed: the numbers are in results.json
        return
    c = res["curve"]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([p["false_alarms_per_hour"] for p in c], [p["f1"] for p in c], marker=".", label="gate (ER F1)")
    for name, thr in res["thresholds"].items():
        t = float(thr)
        pt = min(c, key=lambda q: float(abs(q["threshold"] - t)))  # noqa: B023 (used at once)
        ax.annotate(name, (pt["false_alarms_per_hour"], pt["f1"]))
    ax.set_xlabel("false alarms per hour (error-free val recordings)")
    ax.set_ylabel("ER F1 (val, paraphrased)")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
