"""The soak's summary.md, from the summary `soak_report.summarise` made (stamped)."""

from __future__ import annotations

from typing import Any

COURSE = "| first hour | last hour | last/first hour | first-day mean | last-day mean | last/first day |"


def _f(x: Any) -> str:
    return "" if x is None else f"{x:.4g}" if isinstance(x, float) else str(x)


def _course_rows(rows: dict[str, Any]) -> list[str]:
    return [
        f"| {k} | {_f(v['first_hour'])} | {_f(v['last_hour'])} | {_f(v['ratio_last_over_first_hour'])} | "
        f"{_f(v['first_day_mean'])} | {_f(v['last_day_mean'])} | {_f(v['ratio_last_over_first_day'])} |"
        for k, v in rows.items()
    ]


def _head(s: dict[str, Any]) -> list[str]:
    part = f" — PARTIAL: {s.get('completed_days')} of {s['days']} days done" if s.get("partial") else ""
    m = s["machine"]
    L = [
        f"# Soak: {s['days']} simulated days of {s['hours_per_day']:g} h "
        f"({s['stream_hours']:.4g} h of stream){part}",
        "",
        f"`{s['command']}` — {m.get('cpus')} CPUs, load {m.get('load_avg_1m')}, "
        f"{s['wall_s']:.0f} s wall, {s['clips']} clips.",
        "",
        "## What held",
        "",
    ]
    return L + [f"- {k}: {'yes' if v else 'NO'}" for k, v in s["held"].items()]


def _search(s: dict[str, Any]) -> list[str]:
    L = [
        "",
        "## Search latency per question (s; real retriever, temporal + graph, all earlier sessions)",
        "",
        "| measure " + COURSE,
        "|---|---|---|---|---|---|---|",
        *_course_rows(s["search"]),
    ]
    if s.get("search_parts"):
        L += [
            "",
            "Its parts (p50, s; encoding and KNN on this thread's CPU clock, the paths' wall time): the "
            "encoding is the same work every hour, so its ratio is the machine's share of a change.",
            "",
            "| part " + COURSE,
            "|---|---|---|---|---|---|---|",
            *_course_rows(s["search_parts"]),
        ]
    if s.get("search_after_day1"):
        a = s["search_after_day1"]
        L += [
            "",
            "After the first day (step or slope; not a verdict): CPU p50 second-day mean "
            f"{_f(a['second_day_mean'])} s, last-day mean {_f(a['last_day_mean'])} s, ratio "
            f"{_f(a['ratio_last_over_second_day'])}; least-squares slope from day 2 on "
            f"{_f(a['slope_ms_per_day'])} ms per simulated day.",
        ]
    return L


def _checkpoints(s: dict[str, Any]) -> list[str]:
    L = [
        "",
        "## Checkpoints: an hour through the full default pipeline",
        "",
        "| checkpoint | captions | CPU share of real time | proactive p50 / p95 (s) "
        "| answers p50 / p95 (s) | retrieval p50 (s) | peak RSS (MB) |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in s["checkpoints"]:
        p, a = c["proactive_latency_s"], c["answer_latency_s"]
        L.append(
            f"| {c['label']} | {c['captions']} | {_f(c['cpu_share_of_realtime'])} | "
            f"{_f(p['p50'])} / {_f(p['p95'])} | {_f(a['p50'])} / {_f(a['p95'])} | "
            f"{_f(c['retrieval_s']['p50'])} | {_f(c['peak_rss_mb'])} |"
        )
    if s["decision"]:
        d = s["decision"]["proactive_latency_s"]
        L += [
            "",
            "Decision latency, last checkpoint over first: "
            f"p50 ×{_f(d['ratio_p50'])}, p95 ×{_f(d['ratio_p95'])}.",
        ]
    return L


def _rss(r: dict[str, Any]) -> list[str]:
    L = [
        "",
        "## Resident memory (MB)",
        "",
        f"- bulk process by day end: {r['bulk_process_mb_by_day']}",
        f"- last day max / first day max: {_f(r['bulk_last_day_max'])} / {_f(r['bulk_first_day_max'])} "
        f"= ×{_f(r['ratio_last_day_over_first_day'])}; peak {_f(r['bulk_peak_mb'])}",
        "- growth in the second half of the week: "
        f"{_f(r.get('mb_per_day_second_half'))} MB per simulated day",
        f"- checkpoint processes (peak): {r['checkpoint_peak_mb']}",
    ]
    if r.get("harness_encoder_cache_mb") is not None:
        L.append(
            "- of which the harness's clip-text vectors, fixed from the first hour: "
            f"{r['harness_encoder_cache_mb']} MB"
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
    return L


def _disk_and_retention(s: dict[str, Any]) -> list[str]:
    disk = s["disk"]
    L = [
        "",
        "## Disk",
        "",
        f"- store + graph at the end: {disk['store_plus_graph_bytes_end'] / 1e6:.1f} MB = "
        f"{_f(disk['mb_per_hour'])} MB per hour of stream "
        f"(last day alone: {_f(disk.get('mb_per_hour_last_day'))})",
        f"- keyframes (synthetic, retention only): {disk['keyframe_bytes_end'] / 1e6:.2f} MB",
        "",
        f"## Retention (memory.keyframe_retention_days = {s['retention_days']:g})",
        "",
        "| day | keyframe files kept | deleted | deleted before their time | oldest kept (days) |",
        "|---|---|---|---|---|",
    ]
    return L + [
        f"| {x['day']} | {x['files']} | {x['deleted']} | {_f(x.get('deleted_too_early'))} "
        f"| {_f(x['oldest_file_days'])} |"
        for x in s["retention"]
    ]


def markdown(s: dict[str, Any]) -> str:
    L = _head(s) + _search(s) + _checkpoints(s) + _rss(s["rss"]) + _disk_and_retention(s)
    L += [
        "",
        f"Consistency at the end: {s['consistency']}",
        "",
        "Per-hour rows (search, RSS, disk) and the checkpoints' full figures are in summary.json.",
    ]
    return "\n".join(L) + "\n"
