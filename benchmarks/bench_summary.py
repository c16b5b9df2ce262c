"""The bench run's figures, from each benchmark's own JSON, and their Markdown page.

`summarise` reads what `run_all` collected (one entry per benchmark: its exit, wall time, peak
RSS and JSON) and puts every figure beside its baseline measured in the same run. A benchmark
that failed or changed shape leaves its figures out instead of failing the whole summary.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks import bench_cold_start as cold_start

CLIP_S = 10.0


def _r(x: float | None, nd: int = 2) -> float | None:
    return None if x is None else round(float(x), nd)


def _inference(inf: dict[str, Any], s: dict[str, Any]) -> None:
    lat, rtf = s["latency_ms"], s["realtime_factor"]
    llm = inf.get("llm", {})
    lat["llm_first_token"] = {
        "median": _r(1000 * llm.get("time_to_first_token_s", 0.0)),
        "same_prompt_again": _r(1000 * (llm.get("time_to_first_token_same_prompt_s") or 0.0)),
        "note": f"{llm.get('prompt_tokens_approx')} prompt tokens, each prompt new; "
        f"{llm.get('generation_tokens_per_s')} generated tokens/s",
    }
    te = inf.get("text_encoder", {})
    if te.get("per_s_batch1"):
        lat["text_embedding"] = {
            "median": _r(1000 / te["per_s_batch1"]),
            "batch32_speedup": te.get("batch32_over_batch1"),
        }
    vlm = inf.get("vlm", {})
    if vlm:
        lat["caption_vlm"] = {
            "median": _r(1000 * vlm.get("caption_latency_s_median", 0.0)),
            "max": _r(1000 * vlm.get("caption_latency_s_max", 0.0)),
            "note": "tiny generated projector: pipeline overhead, not a real VLM"
            if vlm.get("generated_tiny_projector")
            else "",
        }
        rtf["captioner"] = _r(vlm.get("caption_latency_s_median", 0.0) / CLIP_S, 3)
    s["resident_mb"]["models_loaded"] = inf.get("rss_end_mb")


def _ingest(ing: dict[str, Any], s: dict[str, Any]) -> None:
    lat, rtf = s["latency_ms"], s["realtime_factor"]
    # One run per entity path (lexical: the default, none, llm, llm-batch); "on" is the default's.
    by = {r.get("entity_extractor", "llm" if r.get("extract_entities") else "none"): r for r in ing["runs"]}
    on = by.get(ing.get("default_entity_extractor", "lexical"), ing["runs"][0])
    off = by.get("none", on)
    lat["memory_ingest_per_caption"] = {
        "median": _r(1000 * on["seconds_per_caption"]),
        "without_graph": _r(1000 * off["seconds_per_caption"]),
        "entity_path": on.get("entity_extractor", ""),
        "ratio_graph_on_off": ing.get("entity_graph_cost_ratio"),
    }
    if "llm" in by:
        lat["memory_ingest_per_caption"]["with_llm_entities"] = _r(1000 * by["llm"]["seconds_per_caption"])
    rtf["memory_ingest"] = _r(on["per_hour"]["compute_share_of_realtime"], 3)
    rtf["memory_ingest_without_graph"] = _r(off["per_hour"]["compute_share_of_realtime"], 3)
    disk = s["disk"]
    disk["store_text_vectors_bytes_per_hour"] = sum(
        on["per_hour"]["bytes_per_level_text_plus_vectors"].values()
    )
    disk["sqlite_file_bytes_per_hour_extrapolated"] = on["per_hour"]["sqlite_file_bytes"]
    disk["graph_file_bytes_per_hour_extrapolated"] = on["per_hour"]["graph_file_bytes"]
    disk["note"] = on.get("note", "")


def _scale_row(r: dict[str, Any]) -> dict[str, Any]:
    return {
        "n": r["n"],
        "index_p50": r["ivf_p50_ms"],
        "index_p95": r["ivf_p95_ms"],
        "recall10": r["ivf_recall10"],
        "numpy_p95": r["numpy_p95_ms"],
        "sqlite_vec_exact_p95": r["sqlite_vec_exact_p95_ms"],
        "ratio_index_over_numpy": r["ivf_vs_numpy_p95"],
        "ratio_index_over_sqlite_vec": r["ivf_vs_sqlite_vec_exact_p95"],
        "index": f"IVF {r['index']['active']['lists']} lists, probe {r['index']['probe']}"
        if r["index"].get("active")
        else "exact (below memory.ann_min_items)",
        "db_mb": r.get("db_mb"),
        "index_longest_tx_s": r.get("index_longest_tx_s_cumulative"),
    }


def _scale(sc: dict[str, Any], s: dict[str, Any]) -> None:
    s["search_vs_size"] += [_scale_row(r) for r in sc.get("rows", [])]
    if not sc.get("rows"):
        return
    big = sc["rows"][-1]
    s["latency_ms"]["temporal_search"] = {
        "median": big["ivf_p50_ms"],
        "p95": big["ivf_p95_ms"],
        "at_n": big["n"],
        "recall10": big["ivf_recall10"],
        "baseline_numpy_p95": big["numpy_p95_ms"],
        "ratio_over_numpy": big["ivf_vs_numpy_p95"],
    }
    s["disk"]["text_store_bytes_per_clip_at_max_n"] = int(big["db_mb"] * 2**20 / big["n"])
    s["disk"]["text_store_bytes_per_hour_at_10s_clips"] = int(big["db_mb"] * 2**20 / big["n"] * 3600 / CLIP_S)


def _graph_and_bridge(d: dict[str, dict[str, Any]], s: dict[str, Any]) -> None:
    lat = s["latency_ms"]
    g = d.get("memory_graph", {})
    if g:
        lat["graph_path"] = {
            "median": g["neighbourhood_p50_ms"],
            "p95": g["neighbourhood_p95_ms"],
            "graph": g["graph"],
        }
    br = d.get("bridge", {})
    for link in ("hud_ack_udp", "hud_ack_serial_pty"):
        if br.get(link):
            lat[link] = {"median": br[link]["p50_ms"], "p95": br[link]["p95_ms"], "max": br[link]["max_ms"]}


QUANTISED_KEYS = (
    "n",
    "dim",
    "numpy_ms",
    "sqlite_vec_float_ms",
    "sqlite_vec_int8_rescore_ms",
    "sqlite_vec_int8_rescore_recall10",
    "sqlite_vec_bit_rescore_ms",
    "sqlite_vec_bit_rescore_recall10",
    "sqlite_vec_float_vs_numpy",
)


def _pipeline(e2e: dict[str, Any], s: dict[str, Any]) -> None:
    lat, rtf = s["latency_ms"], s["realtime_factor"]
    w, wo = e2e["with_retrieval"], e2e["without_retrieval"]
    lat["clip_end_to_first_word"] = {
        "median": _r(1000 * w["clip_end_to_first_word_s"]["p50"]),
        "p95": _r(1000 * w["clip_end_to_first_word_s"]["p95"]),
        "without_retrieval_median": _r(1000 * wo["clip_end_to_first_word_s"]["p50"]),
        "ratio_with_over_without": e2e.get("p50_ratio_with_over_without"),
    }
    lat["pipeline_step"] = {
        "median": _r(1000 * w["step_latency_s"]["p50"]),
        "p95": _r(1000 * w["step_latency_s"]["p95"]),
    }
    rtf["pipeline_step_decide"] = _r(w["step_latency_s"]["p50"] / CLIP_S, 3)
    rtf["pipeline_wall_over_stream"] = _r(w["wall_s"] / w["stream_s"], 3)


def _shares(d: dict[str, dict[str, Any]], rtf: dict[str, Any]) -> None:
    for opt, share in d.get("memory_ingest", {}).get("share_of_realtime", {}).items():
        rtf[f"memory_ingest_cpu_{opt}"] = share  # CPU time, each entity path in the same run
    for name, share in d.get("realtime", {}).get("cpu_share_of_realtime", {}).items():
        rtf[f"full_pipeline_cpu_{name}"] = share
    if "memory_ingest" in rtf and "pipeline_step_decide" in rtf:
        # The writer and the decision path share the device: their shares add up.
        rtf["all_without_captioner"] = _r(rtf["memory_ingest"] + rtf["pipeline_step_decide"], 3)
        if "captioner" in rtf:
            rtf["all"] = _r(rtf["all_without_captioner"] + rtf["captioner"], 3)


def summarise(runs: dict[str, dict[str, Any]], quick: bool) -> dict[str, Any]:
    """The run's figures, from the benchmarks' own JSON; left out where a benchmark failed."""
    d = {k: v.get("data", {}) for k, v in runs.items()}
    s: dict[str, Any] = {
        "latency_ms": {},
        "realtime_factor": {},
        "search_vs_size": [],
        "disk": {},
        "resident_mb": {},
    }
    if d.get("inference"):
        _inference(d["inference"], s)
    if d.get("memory_ingest", {}).get("runs"):
        _ingest(d["memory_ingest"], s)
    _scale(d.get("memory_scale", {}), s)
    _graph_and_bridge(d, s)
    rows = d.get("memory_search", {}).get("rows", [])
    s["sqlite_vec_quantised"] = [{k: r[k] for k in QUANTISED_KEYS if k in r} for r in rows]
    e2e = d.get("pipeline", {}).get("end_to_end", {})
    if e2e:
        _pipeline(e2e, s)
    _shares(d, s["realtime_factor"])
    s["resident_mb"].update({k: v["peak_rss_mb"] for k, v in runs.items()})
    s["benchmarks"] = {
        k: {"exit": v["exit"], "wall_s": v["wall_s"], "command": v["command"]} for k, v in runs.items()
    }
    if d.get("cold_start", {}).get("cases"):
        s["cold_start_s"] = cold_start.summary(d["cold_start"])
    s["mode"] = "quick" if quick else "full"
    return s


def _round(x: Any) -> Any:
    """Three significant figures are what a loaded 2-core machine can tell apart."""
    if isinstance(x, float):
        return float(f"{x:.3g}") if abs(x) < 1000 else round(x)
    if isinstance(x, dict):
        return {k: _round(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_round(v) for v in x]
    return x


def _search_md(s: dict[str, Any]) -> list[str]:
    L = [
        "",
        "## Temporal search against memory size (real caption vectors, ms)",
        "",
        "| vectors | index | p50 | p95 | recall@10 | numpy p95 | sqlite-vec exact p95 | index / numpy "
        "| index / sqlite-vec |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in s["search_vs_size"]:
        L.append(
            f"| {r['n']:,} | {r['index']} | {r['index_p50']} | {r['index_p95']} | {r['recall10']} "
            f"| {r['numpy_p95']} | {r['sqlite_vec_exact_p95']} | {r['ratio_index_over_numpy']} "
            f"| {r['ratio_index_over_sqlite_vec']} |"
        )
    held = [
        (r["n"], r["index_longest_tx_s"])
        for r in s["search_vs_size"]
        if r.get("index_longest_tx_s") is not None
    ]
    if held:
        L += [
            "",
            "Longest transaction of index upkeep so far (s; ingest waits behind it, k-means runs outside): "
            + ", ".join(f"{v} at {n:,}" for n, v in held),
        ]
    return L


def _quantised_md(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    L = [
        "",
        "## sqlite-vec brute force: float32, int8 and bit columns with re-ranking "
        "(synthetic clustered vectors, median ms)",
        "",
        "| n | dim | numpy | float | int8+rescore (recall) | bit+rescore (recall) | float / numpy |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        L.append(
            f"| {r['n']:,} | {r['dim']} | {r['numpy_ms']} | {r['sqlite_vec_float_ms']} | "
            f"{r['sqlite_vec_int8_rescore_ms']} ({r['sqlite_vec_int8_rescore_recall10']}) | "
            f"{r['sqlite_vec_bit_rescore_ms']} ({r['sqlite_vec_bit_rescore_recall10']}) | "
            f"{r['sqlite_vec_float_vs_numpy']} |"
        )
    return L


def markdown(s: dict[str, Any], head: dict[str, Any]) -> str:
    """summary.md: `head` is the run's stamp (results_io.stamp) with its load and total time."""
    s = _round(s)
    m = head["machine"]
    L = [
        f"# Benchmarks on {m['hostname']} ({head['date'][:10]}, {s['mode']})",
        "",
        f"`{head['command']}` at {head.get('commit') or 'an unknown commit'} — {m['cpus']} CPUs "
        f"({m.get('cpu_model') or 'model unknown'}), {m['platform']}, Python {m.get('python')}, "
        f"load {head['load_start']:.1f} at start, {head['total_s']:.0f} s in all. "
        "Raw JSON and logs: `raw.tar.gz`.",
        "",
        "## Latency per stage (ms)",
        "",
        "| stage | median | p95 | baseline / notes |",
        "|---|---|---|---|",
    ]
    for k, v in s["latency_ms"].items():
        rest = {a: b for a, b in v.items() if a not in ("median", "p95")}
        L.append(f"| {k} | {v.get('median', '')} | {v.get('p95', '')} | {json.dumps(rest)[1:-1]} |")
    L += ["", "## Real-time factor (compute seconds per second of stream; 10-s clips)", ""]
    L += [f"- {k}: {v}" for k, v in s["realtime_factor"].items()]
    L += _search_md(s) + _quantised_md(s["sqlite_vec_quantised"])
    L += ["", "## Disk", ""] + [f"- {k}: {v}" for k, v in s["disk"].items()]
    L += ["", "## Peak resident memory per benchmark process (MB)", ""]
    L += [f"- {k}: {v}" for k, v in s["resident_mb"].items()]
    L += cold_start.markdown_lines(s.get("cold_start_s", {}))
    L += ["", "## Benchmarks run", ""]
    L += [f"- {k}: exit {v['exit']}, {v['wall_s']} s — `{v['command']}`" for k, v in s["benchmarks"].items()]
    return "\n".join(L) + "\n"
