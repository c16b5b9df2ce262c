"""The soak's verdicts and its summary files (JSON + Markdown).

Latency "flat within 1.2x" is judged on the first against the last simulated hour, and
also on the first against the last day's hours (one hour holds only 12 questions, and the
machine is shared, so single hours are noisy). Search is judged on CPU time per question
(what the device spends, whatever else runs here) with wall time beside it; decisions on
the checkpoint replays' proactive step latency (day 1's first hour against the last day's
last hour).
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from benchmarks import results_io

FLAT = 1.2
DISK_MB_PER_H = 5.0
RSS_GROWTH = 1.2
# Bounded means no slope once warm: the heap (everything resident but Kùzu's pool, which its own
# setting bounds, and the libraries' code) may grow at most this much per simulated day in the
# week's second half (a week is too short to tell a smaller slope from noise).
HEAP_MB_PER_DAY = 1.0


def _ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b <= 0:
        return None
    return round(a / b, 3)


def _mean(xs: list[float | None]) -> float | None:
    ys = [x for x in xs if x is not None]
    return statistics.fmean(ys) if ys else None


def _slope_per_day(rows: list[dict[str, Any]], value: Any) -> float | None:
    """Least-squares growth of value(row) per simulated day over these hourly rows."""
    pts = [(h["hour"] / 24.0, value(h)) for h in rows]
    pts = [(x, y) for x, y in pts if y is not None]
    if len(pts) < 2:
        return None
    mx, my = statistics.fmean(x for x, _ in pts), statistics.fmean(y for _, y in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return round(sum((x - mx) * (y - my) for x, y in pts) / sxx, 2) if sxx > 0 else None


def _parts(
    hours: list[dict[str, Any]],
    day1: list[dict[str, Any]],
    dayn: list[dict[str, Any]],
    keys: tuple[str, ...],
    get: Any,
) -> dict[str, Any]:
    """First / last hour and first / last day mean of each key (rows without it are skipped)."""
    out: dict[str, Any] = {}
    for key in keys:
        first, last = get(hours[0], key), get(hours[-1], key)
        d1, dn = _mean([get(h, key) for h in day1]), _mean([get(h, key) for h in dayn])
        if first is None and d1 is None:
            continue
        out[key] = {
            "first_hour": first,
            "last_hour": last,
            "ratio_last_over_first_hour": _ratio(last, first),
            "first_day_mean": d1,
            "last_day_mean": dn,
            "ratio_last_over_first_day": _ratio(dn, d1),
        }
    return out


def summarise(soak: Any, args: Any, wall_s: float, peak_rss: float) -> dict[str, Any]:
    hours = soak.hours
    first, last = hours[0], hours[-1]
    day1 = [h for h in hours if h["day"] == hours[0]["day"]]
    dayn = [h for h in hours if h["day"] == hours[-1]["day"]]
    search = {}
    for key in ("cpu_p50", "cpu_p95", "wall_p50", "wall_p95"):
        search[key] = {
            "first_hour": first["search"][key],
            "last_hour": last["search"][key],
            "ratio_last_over_first_hour": _ratio(last["search"][key], first["search"][key]),
            "first_day_mean": _mean([h["search"][key] for h in day1]),
            "last_day_mean": _mean([h["search"][key] for h in dayn]),
        }
        search[key]["ratio_last_over_first_day"] = _ratio(
            search[key]["last_day_mean"], search[key]["first_day_mean"]
        )
    # Where a question's time goes: the encoding is the same work every hour, so its own ratio
    # shows how much of a change is the machine (another job on the other core) and not memory.
    search_parts = _parts(
        hours,
        day1,
        dayn,
        ("encode_cpu_p50", "knn_cpu_p50", "temporal_p50", "graph_p50"),
        lambda h, k: h["search"].get(k),
    )
    # A step or a slope? The first day's search does less by construction (one session, no index:
    # the graph path has one session to return, the KNN a few hundred vectors); from the second
    # day on, a search does the same work on an ever larger memory, so its slope is the creep.
    # Information beside the verdicts, which stay first hour / first day against the last.
    later = [h for h in hours if h["day"] > hours[0]["day"]]
    if len(later) >= 2:
        day2 = [h for h in later if h["day"] == later[0]["day"]]
        d2 = _mean([h["search"]["cpu_p50"] for h in day2])
        search_after_day1 = {
            "second_day_mean": d2,
            "last_day_mean": search["cpu_p50"]["last_day_mean"],
            "ratio_last_over_second_day": _ratio(search["cpu_p50"]["last_day_mean"], d2),
            "slope_ms_per_day": _slope_per_day(later, lambda h: h["search"]["cpu_p50"] * 1e3),
        }
    else:
        search_after_day1 = {}
    cks = soak.checkpoints
    decision: dict[str, Any] = {}
    if len(cks) >= 2:
        a, b = cks[0], cks[-1]
        for key in ("proactive_latency_s", "answer_latency_s"):
            decision[key] = {
                "first": a[key],
                "last": b[key],
                "ratio_p50": _ratio(b[key]["p50"], a[key]["p50"]),
                "ratio_p95": _ratio(b[key]["p95"], a[key]["p95"]),
            }
    total_h = soak.stream_h
    end_disk = last["disk"]["store"] + last["disk"]["graph"]
    disk = {
        "store_plus_graph_bytes_end": end_disk,
        "keyframe_bytes_end": last["disk"]["keyframes"],
        "mb_per_hour": round(end_disk / 1e6 / total_h, 3),
        # Apart: Kùzu preallocates ~24 MB in its first few hundred clips (a fixed cost a short run overstates).
        "store_mb_per_hour": round(last["disk"]["store"] / 1e6 / total_h, 3),
        "graph_mb_per_hour": round(last["disk"]["graph"] / 1e6 / total_h, 3),
    }
    if len(soak.days) >= 2:
        d0, d1 = soak.days[-2]["disk"], soak.days[-1]["disk"]
        hours_last_day = len(dayn)
        disk["mb_per_hour_last_day"] = round(
            (d1["store"] + d1["graph"] - d0["store"] - d0["graph"]) / 1e6 / max(1, hours_last_day), 3
        )
    rss = [h["rss_mb"] for h in hours]
    rss_day = {d["day"]: d["rss_mb"] for d in soak.days}
    after_warmup = rss[len(day1) :] or rss
    rss_info = {
        "bulk_process_mb_by_day": rss_day,
        "bulk_first_day_max": max(h["rss_mb"] for h in day1),
        "bulk_last_day_max": max(h["rss_mb"] for h in dayn),
        "bulk_max_after_day1": max(after_warmup),
        "bulk_peak_mb": round(peak_rss, 1),
        "checkpoint_peak_mb": {c["label"]: c["peak_rss_mb"] for c in cks},
    }
    enc = getattr(soak, "enc", None)  # the harness's clip-text vectors, in the RSS from the first hour
    if enc is not None and hasattr(enc, "nbytes"):
        rss_info["harness_encoder_cache_mb"] = round(enc.nbytes / 1e6, 1)
    rss_info["ratio_last_day_over_first_day"] = _ratio(
        rss_info["bulk_last_day_max"], rss_info["bulk_first_day_max"]
    )
    # Beside the ratio: how fast RSS still grows in the second half of the week (least squares
    # over the hourly rows, MB per simulated day), while memory keeps growing at the same pace.
    half = [h for h in hours if h["day"] > (hours[-1]["day"] + 1) / 2]
    if len(half) >= 2:
        rss_info["mb_per_day_second_half"] = _slope_per_day(half, lambda h: h["rss_mb"])
    # By where it lives (/proc/self/smaps): Kùzu's pool is bounded by memory.graph_buffer_mb,
    # the code by what the libraries hold; a creep shows in the heap.
    kinds = sorted({k for h in hours for k in h.get("rss_by_kind", {})})
    if kinds:
        rss_info["by_kind"] = _parts(
            hours, day1, dayn, tuple(kinds), lambda h, k: h.get("rss_by_kind", {}).get(k)
        )
        for k in kinds:
            rss_info["by_kind"][k]["max"] = max(h.get("rss_by_kind", {}).get(k, 0.0) for h in hours)
            if len(half) >= 2:
                rss_info["by_kind"][k]["mb_per_day_second_half"] = _slope_per_day(
                    half, lambda h, k=k: h.get("rss_by_kind", {}).get(k)
                )
    slack_days = 1.5 / 24  # a sweep runs every 360 captions (about 1.2 h of stream) and at each day's end
    ret = [{"day": d["day"], **d["keyframes"]} for d in soak.days]
    retention_ok = all(
        (r["oldest_file_days"] is None or r["oldest_file_days"] <= args.retention_days + slack_days)
        and not r.get("deleted_too_early")
        for r in ret
    )
    if len(soak.days) > args.retention_days + 1:
        retention_ok = retention_ok and ret[-1]["deleted"] > 0
    ck_share = {c["label"]: c["cpu_share_of_realtime"] for c in cks}
    held = {
        "search_flat_cpu_p50_hour": (search["cpu_p50"]["ratio_last_over_first_hour"] or 99) <= FLAT,
        "search_flat_cpu_p50_day": (search["cpu_p50"]["ratio_last_over_first_day"] or 99) <= FLAT,
        "decision_flat_p50": bool(decision) and (decision["proactive_latency_s"]["ratio_p50"] or 99) <= FLAT,
        "rss_bounded": (rss_info["ratio_last_day_over_first_day"] or 99) <= RSS_GROWTH,
        **(
            {
                "rss_heap_flat_second_half": (rss_info["by_kind"]["heap"].get("mb_per_day_second_half") or 99)
                <= HEAP_MB_PER_DAY
            }
            if "heap" in rss_info.get("by_kind", {})
            else {}
        ),
        "disk_mb_per_hour": disk["mb_per_hour"] <= DISK_MB_PER_H,
        "retention": retention_ok,
        "consistent": bool(soak.consistency.get("ok")),
        "pipeline_under_half_realtime": all(v is not None and v <= 0.5 for v in ck_share.values()),
    }
    held["all"] = all(held.values())
    return {
        "benchmark": "soak",
        "days": args.days,
        "hours_per_day": args.hours,
        "session_h": args.session_h,
        "stream_hours": total_h,
        "clips": soak.ingested,
        "retention_days": args.retention_days,
        "keyframe_every": args.keyframe_every,
        "wall_s": round(wall_s, 1),
        "bulk_cpu_s": round(soak.bulk_cpu, 1),
        "held": held,
        "search": search,
        "search_parts": search_parts,
        "search_after_day1": search_after_day1,
        "decision": decision,
        "disk": disk,
        "rss": rss_info,
        "retention": ret,
        "consistency": soak.consistency,
        "checkpoint_cpu_share_of_realtime": ck_share,
        "checkpoints": cks,
        "hours": hours,
        "per_day": soak.days,
    }


def _f(x: Any) -> str:
    return "" if x is None else f"{x:.4g}" if isinstance(x, float) else str(x)


def write_report(out: Path, s: dict[str, Any]) -> None:
    s = {**results_io.stamp(s.get("command")), **s}  # the Markdown names the machine too
    results_io.write(out / "summary.json", s, indent=1)
    part = f" — PARTIAL: {s.get('completed_days')} of {s['days']} days done" if s.get("partial") else ""
    L = [
        f"# Soak: {s['days']} simulated days of {s['hours_per_day']:g} h ({s['stream_hours']:.4g} h of stream){part}",
        "",
        f"`{s['command']}` — {s['machine'].get('cpus')} CPUs, load {s['machine'].get('load_avg_1m')}, "
        f"{s['wall_s']:.0f} s wall, {s['clips']} clips.",
        "",
        "## What held",
        "",
    ]
    L += [f"- {k}: {'yes' if v else 'NO'}" for k, v in s["held"].items()]
    L += [
        "",
        "## Search latency per question (s; real retriever, temporal + graph, all earlier sessions)",
        "",
        "| measure | first hour | last hour | last/first hour | first-day mean | last-day mean | last/first day |",
        "|---|---|---|---|---|---|---|",
    ]
    for k, v in s["search"].items():
        L.append(
            f"| {k} | {_f(v['first_hour'])} | {_f(v['last_hour'])} | {_f(v['ratio_last_over_first_hour'])} | "
            f"{_f(v['first_day_mean'])} | {_f(v['last_day_mean'])} | {_f(v['ratio_last_over_first_day'])} |"
        )
    if s.get("search_parts"):
        L += [
            "",
            "Its parts (p50, s; encoding and KNN on this thread's CPU clock, the paths' wall time): the "
            "encoding is the same work every hour, so its ratio is the machine's share of a change.",
            "",
            "| part | first hour | last hour | last/first hour | first-day mean | last-day mean | last/first day |",
            "|---|---|---|---|---|---|---|",
        ]
        for k, v in s["search_parts"].items():
            L.append(
                f"| {k} | {_f(v['first_hour'])} | {_f(v['last_hour'])} | {_f(v['ratio_last_over_first_hour'])} | "
                f"{_f(v['first_day_mean'])} | {_f(v['last_day_mean'])} | {_f(v['ratio_last_over_first_day'])} |"
            )
    if s.get("search_after_day1"):
        a = s["search_after_day1"]
        L += [
            "",
            "After the first day (step or slope; not a verdict): CPU p50 second-day mean "
            f"{_f(a['second_day_mean'])} s, last-day mean {_f(a['last_day_mean'])} s, ratio "
            f"{_f(a['ratio_last_over_second_day'])}; least-squares slope from day 2 on "
            f"{_f(a['slope_ms_per_day'])} ms per simulated day.",
        ]
    L += [
        "",
        "## Checkpoints: an hour through the full default pipeline",
        "",
        "| checkpoint | captions | CPU share of real time | proactive p50 / p95 (s) | answers p50 / p95 (s) | "
        "retrieval p50 (s) | peak RSS (MB) |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in s["checkpoints"]:
        p, a = c["proactive_latency_s"], c["answer_latency_s"]
        L.append(
            f"| {c['label']} | {c['captions']} | {_f(c['cpu_share_of_realtime'])} | {_f(p['p50'])} / {_f(p['p95'])} | "
            f"{_f(a['p50'])} / {_f(a['p95'])} | {_f(c['retrieval_s']['p50'])} | {_f(c['peak_rss_mb'])} |"
        )
    if s["decision"]:
        d = s["decision"]["proactive_latency_s"]
        L += [
            "",
            f"Decision latency, last checkpoint over first: p50 ×{_f(d['ratio_p50'])}, p95 ×{_f(d['ratio_p95'])}.",
        ]
    r = s["rss"]
    L += [
        "",
        "## Resident memory (MB)",
        "",
        f"- bulk process by day end: {r['bulk_process_mb_by_day']}",
        f"- last day max / first day max: {_f(r['bulk_last_day_max'])} / {_f(r['bulk_first_day_max'])} "
        f"= ×{_f(r['ratio_last_day_over_first_day'])}; peak {_f(r['bulk_peak_mb'])}",
        f"- growth in the second half of the week: {_f(r.get('mb_per_day_second_half'))} MB per simulated day",
        f"- checkpoint processes (peak): {r['checkpoint_peak_mb']}",
    ]
    if r.get("harness_encoder_cache_mb") is not None:
        L.append(
            f"- of which the harness's clip-text vectors, fixed from the first hour: {r['harness_encoder_cache_mb']} MB"
        )
    if r.get("by_kind"):
        L += [
            "",
            "By where it lives (/proc/self/smaps; graph_pool is bounded by memory.graph_buffer_mb):",
            "",
            "| kind | first hour | last hour | max | MB per simulated day, second half |",
            "|---|---|---|---|---|",
        ]
        L += [
            f"| {k} | {_f(v['first_hour'])} | {_f(v['last_hour'])} | {_f(v['max'])} | "
            f"{_f(v.get('mb_per_day_second_half'))} |"
            for k, v in r["by_kind"].items()
        ]
    L += [
        "",
        "## Disk",
        "",
        f"- store + graph at the end: {s['disk']['store_plus_graph_bytes_end'] / 1e6:.1f} MB = "
        f"{_f(s['disk']['mb_per_hour'])} MB per hour of stream (last day alone: {_f(s['disk'].get('mb_per_hour_last_day'))})",
        f"- keyframes (synthetic, retention only): {s['disk']['keyframe_bytes_end'] / 1e6:.2f} MB",
        "",
        f"## Retention (memory.keyframe_retention_days = {s['retention_days']:g})",
        "",
        "| day | keyframe files kept | deleted | deleted before their time | oldest kept (days) |",
        "|---|---|---|---|---|",
    ]
    L += [
        f"| {x['day']} | {x['files']} | {x['deleted']} | {_f(x.get('deleted_too_early'))} | {_f(x['oldest_file_days'])} |"
        for x in s["retention"]
    ]
    L += [
        "",
        f"Consistency at the end: {s['consistency']}",
        "",
        "Per-hour rows (search, RSS, disk) and the checkpoints' full figures are in summary.json.",
    ]
    (out / "summary.md").write_text("\n".join(L) + "\n")


class _Replay:
    """A finished soak as summary.json holds it: what `summarise` reads from a live `Soak`."""

    def __init__(self, s: dict[str, Any]) -> None:
        self.hours, self.days, self.checkpoints = s["hours"], s["per_day"], s["checkpoints"]
        self.consistency, self.stream_h, self.ingested = s["consistency"], s["stream_hours"], s["clips"]
        self.bulk_cpu = s["bulk_cpu_s"]


def main(argv: list[str] | None = None) -> int:
    """Write summary.md / summary.json again from a run's summary.json (after the report changed)."""
    import argparse
    from types import SimpleNamespace

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("summary", help="a soak run's summary.json")
    ap.add_argument("--out", required=True, help="directory for the new summary files")
    a = ap.parse_args(argv)
    old = json.loads(Path(a.summary).read_text())
    args = SimpleNamespace(
        days=old["days"],
        hours=old["hours_per_day"],
        session_h=old["session_h"],
        retention_days=old["retention_days"],
        keyframe_every=old["keyframe_every"],
    )
    new = summarise(_Replay(old), args, old["wall_s"], old["rss"]["bulk_peak_mb"])
    # The run's stamp (its machine and load, its commit), not this one's.
    for k in (*results_io.STAMP_KEYS, "completed_days", "partial"):
        if k in old:
            new[k] = old[k]
    write_report(Path(a.out), new)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
