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
from benchmarks.soak_markdown import markdown

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
    keep_empty: bool = False,
) -> dict[str, Any]:
    """First / last hour and first / last day mean of each key (rows without it are skipped;
    a key no first hour or first day has is left out, unless keep_empty)."""
    out: dict[str, Any] = {}
    for key in keys:
        first, last = get(hours[0], key), get(hours[-1], key)
        d1, dn = _mean([get(h, key) for h in day1]), _mean([get(h, key) for h in dayn])
        if first is None and d1 is None and not keep_empty:
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


def _search(
    hours: list[dict[str, Any]], day1: list[dict[str, Any]], dayn: list[dict[str, Any]]
) -> dict[str, Any]:
    """Search latency, its parts, and its course after the first day."""
    search = _parts(
        hours,
        day1,
        dayn,
        ("cpu_p50", "cpu_p95", "wall_p50", "wall_p95"),
        lambda h, k: h["search"][k],
        keep_empty=True,  # the verdicts read these
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
    after: dict[str, Any] = {}
    if len(later) >= 2:
        day2 = [h for h in later if h["day"] == later[0]["day"]]
        d2 = _mean([h["search"]["cpu_p50"] for h in day2])
        after = {
            "second_day_mean": d2,
            "last_day_mean": search["cpu_p50"]["last_day_mean"],
            "ratio_last_over_second_day": _ratio(search["cpu_p50"]["last_day_mean"], d2),
            "slope_ms_per_day": _slope_per_day(later, lambda h: h["search"]["cpu_p50"] * 1e3),
        }
    return {"search": search, "search_parts": search_parts, "search_after_day1": after}


def _decision(cks: list[dict[str, Any]]) -> dict[str, Any]:
    if len(cks) < 2:
        return {}
    a, b = cks[0], cks[-1]
    return {
        key: {
            "first": a[key],
            "last": b[key],
            "ratio_p50": _ratio(b[key]["p50"], a[key]["p50"]),
            "ratio_p95": _ratio(b[key]["p95"], a[key]["p95"]),
        }
        for key in ("proactive_latency_s", "answer_latency_s")
    }


def _disk(soak: Any, dayn: list[dict[str, Any]]) -> dict[str, Any]:
    total_h, last = soak.stream_h, soak.hours[-1]
    end_disk = last["disk"]["store"] + last["disk"]["graph"]
    disk = {
        "store_plus_graph_bytes_end": end_disk,
        "keyframe_bytes_end": last["disk"]["keyframes"],
        "mb_per_hour": round(end_disk / 1e6 / total_h, 3),
        # Apart: Kùzu preallocates ~24 MB in its first few hundred clips (a fixed cost a short run
        # overstates).
        "store_mb_per_hour": round(last["disk"]["store"] / 1e6 / total_h, 3),
        "graph_mb_per_hour": round(last["disk"]["graph"] / 1e6 / total_h, 3),
    }
    if len(soak.days) >= 2:
        d0, d1 = soak.days[-2]["disk"], soak.days[-1]["disk"]
        disk["mb_per_hour_last_day"] = round(
            (d1["store"] + d1["graph"] - d0["store"] - d0["graph"]) / 1e6 / max(1, len(dayn)), 3
        )
    return disk


def _rss_by_kind(
    hours: list[dict[str, Any]],
    day1: list[dict[str, Any]],
    dayn: list[dict[str, Any]],
    half: list[dict[str, Any]],
) -> dict[str, Any]:
    """By where it lives (/proc/self/smaps): Kùzu's pool is bounded by memory.graph_buffer_mb,
    the code by what the libraries hold; a creep shows in the heap."""
    kinds = sorted({k for h in hours for k in h.get("rss_by_kind", {})})
    by_kind = _parts(hours, day1, dayn, tuple(kinds), lambda h, k: h.get("rss_by_kind", {}).get(k))
    for k in kinds:
        by_kind[k]["max"] = max(h.get("rss_by_kind", {}).get(k, 0.0) for h in hours)
        if len(half) >= 2:
            by_kind[k]["mb_per_day_second_half"] = _slope_per_day(
                half, lambda h, k=k: h.get("rss_by_kind", {}).get(k)
            )
    return by_kind


def _rss(
    soak: Any, day1: list[dict[str, Any]], dayn: list[dict[str, Any]], peak_rss: float
) -> dict[str, Any]:
    hours = soak.hours
    rss = [h["rss_mb"] for h in hours]
    after_warmup = rss[len(day1) :] or rss
    info = {
        "bulk_process_mb_by_day": {d["day"]: d["rss_mb"] for d in soak.days},
        "bulk_first_day_max": max(h["rss_mb"] for h in day1),
        "bulk_last_day_max": max(h["rss_mb"] for h in dayn),
        "bulk_max_after_day1": max(after_warmup),
        "bulk_peak_mb": round(peak_rss, 1),
        "checkpoint_peak_mb": {c["label"]: c["peak_rss_mb"] for c in soak.checkpoints},
    }
    enc = getattr(soak, "enc", None)  # the harness's clip-text vectors, in the RSS from the first hour
    if enc is not None and hasattr(enc, "nbytes"):
        info["harness_encoder_cache_mb"] = round(enc.nbytes / 1e6, 1)
    info["ratio_last_day_over_first_day"] = _ratio(info["bulk_last_day_max"], info["bulk_first_day_max"])
    # Beside the ratio: how fast RSS still grows in the second half of the week (least squares
    # over the hourly rows, MB per simulated day), while memory keeps growing at the same pace.
    half = [h for h in hours if h["day"] > (hours[-1]["day"] + 1) / 2]
    if len(half) >= 2:
        info["mb_per_day_second_half"] = _slope_per_day(half, lambda h: h["rss_mb"])
    if any(h.get("rss_by_kind") for h in hours):
        info["by_kind"] = _rss_by_kind(hours, day1, dayn, half)
    return info


def _retention(soak: Any, retention_days: float) -> tuple[list[dict[str, Any]], bool]:
    slack_days = 1.5 / 24  # a sweep runs every 360 captions (about 1.2 h of stream) and at each day's end
    ret = [{"day": d["day"], **d["keyframes"]} for d in soak.days]
    ok = all(
        (r["oldest_file_days"] is None or r["oldest_file_days"] <= retention_days + slack_days)
        and not r.get("deleted_too_early")
        for r in ret
    )
    if len(soak.days) > retention_days + 1:
        ok = ok and ret[-1]["deleted"] > 0
    return ret, ok


def _held(s: dict[str, Any], retention_ok: bool, consistency: dict[str, Any]) -> dict[str, bool]:
    search, decision, rss = s["search"], s["decision"], s["rss"]
    heap = rss.get("by_kind", {}).get("heap")
    held = {
        "search_flat_cpu_p50_hour": (search["cpu_p50"]["ratio_last_over_first_hour"] or 99) <= FLAT,
        "search_flat_cpu_p50_day": (search["cpu_p50"]["ratio_last_over_first_day"] or 99) <= FLAT,
        "decision_flat_p50": bool(decision) and (decision["proactive_latency_s"]["ratio_p50"] or 99) <= FLAT,
        "rss_bounded": (rss["ratio_last_day_over_first_day"] or 99) <= RSS_GROWTH,
        **(
            {"rss_heap_flat_second_half": (heap.get("mb_per_day_second_half") or 99) <= HEAP_MB_PER_DAY}
            if heap is not None
            else {}
        ),
        "disk_mb_per_hour": s["disk"]["mb_per_hour"] <= DISK_MB_PER_H,
        "retention": retention_ok,
        "consistent": bool(consistency.get("ok")),
        "pipeline_under_half_realtime": all(
            v is not None and v <= 0.5 for v in s["checkpoint_cpu_share_of_realtime"].values()
        ),
    }
    held["all"] = all(held.values())
    return held


def summarise(soak: Any, args: Any, wall_s: float, peak_rss: float) -> dict[str, Any]:
    hours = soak.hours
    day1 = [h for h in hours if h["day"] == hours[0]["day"]]
    dayn = [h for h in hours if h["day"] == hours[-1]["day"]]
    retention, retention_ok = _retention(soak, args.retention_days)
    figures = {
        **_search(hours, day1, dayn),
        "decision": _decision(soak.checkpoints),
        "disk": _disk(soak, dayn),
        "rss": _rss(soak, day1, dayn, peak_rss),
        "retention": retention,
        "checkpoint_cpu_share_of_realtime": {
            c["label"]: c["cpu_share_of_realtime"] for c in soak.checkpoints
        },
    }
    return {
        "benchmark": "soak",
        "days": args.days,
        "hours_per_day": args.hours,
        "session_h": args.session_h,
        "stream_hours": soak.stream_h,
        "clips": soak.ingested,
        "retention_days": args.retention_days,
        "keyframe_every": args.keyframe_every,
        "wall_s": round(wall_s, 1),
        "bulk_cpu_s": round(soak.bulk_cpu, 1),
        "held": _held(figures, retention_ok, soak.consistency),
        "search": figures["search"],
        "search_parts": figures["search_parts"],
        "search_after_day1": figures["search_after_day1"],
        "decision": figures["decision"],
        "disk": figures["disk"],
        "rss": figures["rss"],
        "retention": retention,
        "consistency": soak.consistency,
        "checkpoint_cpu_share_of_realtime": figures["checkpoint_cpu_share_of_realtime"],
        "checkpoints": soak.checkpoints,
        "hours": hours,
        "per_day": soak.days,
    }


def write_report(out: Path, s: dict[str, Any]) -> None:
    s = {**results_io.stamp(s.get("command")), **s}  # the Markdown names the machine too
    results_io.write(out / "summary.json", s, indent=1)
    (out / "summary.md").write_text(markdown(s))


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
