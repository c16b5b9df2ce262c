"""The settings of the models and of memory: which models, a remote server, and what memory keeps.

Every key is declared once with its default, its unit and its range (`setting`).
"""

from __future__ import annotations

from dataclasses import dataclass

from edge_assist.config.setting import setting


@dataclass(frozen=True)
class ModelsConfig:
    dir: str = setting(
        "models", "where downloaded models live (path; relative paths resolve from the config file)"
    )
    llm: str = setting("smollm2-135m-q4", "manifest name of the LLM (reasoner, summaries, entities)")
    vlm: str = setting(
        "", "manifest name of the VLM captioner; empty: captions must come from a caption stream"
    )
    text_encoder: str = setting("minilm-l6-int8", "manifest name of the sentence encoder")
    image_encoder: str = setting("", "manifest name of the CLIP-style encoder; empty: no visual path")
    backend: str = setting(
        "local", "where LLM/VLM run: in process, or an OpenAI-compatible server", choices=("local", "remote")
    )
    threads: int = setting(
        0, "CPU threads for llama.cpp and ONNX; 0 = all cores but one (count)", lo=0, hi=256
    )
    context_tokens: int = setting(2048, "llama.cpp context window (tokens)", lo=256, hi=131072)
    seed: int = setting(0, "sampling seed, so runs repeat (integer)", lo=0)
    memory_llm_copy: bool = setting(
        True,
        "give the memory writer its own copy of the LLM, so roll-ups do not evict the reasoner's "
        "cached prompt (pass 1 reads ~850 tokens: ~7 s cold, ~1 s cached on 2 cores); costs the model's RAM "
        "twice",
    )
    response_cache: str = setting(
        "",
        "evaluation and development only: SQLite file that replays the LLM's answer to an identical request "
        "(same model file, prompt, schema, limits); '' = off, as it must be on glasses",
    )


@dataclass(frozen=True)
class RemoteConfig:
    base_url: str = setting("http://127.0.0.1:8080/v1", "OpenAI-compatible endpoint (URL)")
    api_key_env: str = setting("EDGE_ASSIST_API_KEY", "environment variable that holds the API key, if any")
    llm_model: str = setting("", "model name the server expects for text")
    vlm_model: str = setting("", "model name the server expects for images")
    timeout_s: float = setting(30.0, "per-request timeout (seconds)", lo=0.1, hi=3600)
    retries: int = setting(2, "retries after a failed request (count)", lo=0, hi=10)


@dataclass(frozen=True)
class MemoryConfig:
    profile: str = setting(
        "short",
        "roll-up windows: short = 10 s / 1 min / 5 min, all-day = 30 s / 5 min / 1 h, custom = the keys "
        "below",
        choices=("short", "all-day", "custom"),
    )
    clip_s: float = setting(10.0, "clip level window when profile = custom (seconds)", lo=1)
    activity_s: float = setting(60.0, "activity summary window when profile = custom (seconds)", lo=1)
    session_s: float = setting(300.0, "session summary window when profile = custom (seconds)", lo=1)
    write_queue: int = setting(
        64, "captions waiting for the memory writer; the producer waits when full (count)", lo=1, hi=100000
    )
    keyframe_retention_days: float = setting(
        30.0, "keyframe JPEGs older than this are deleted; 0 keeps none (days)", lo=0
    )
    keyframe_jpeg_quality: int = setting(80, "JPEG quality of stored keyframes (0-100)", lo=1, hi=100)
    extract_entities: bool = setting(True, "build the entity graph from captions")
    entity_extractor: str = setting(
        "lexical",
        "how captions become graph entities: llm (one LLM call per caption), llm-batch (one call per "
        "memory.entity_batch captions), lexical (the caption's shallow parse, no LLM)",
        choices=("llm", "llm-batch", "lexical"),
    )
    summaries: str = setting(
        "llm",
        "activity and session summaries: llm (SmolLM2 writes them), extractive (the captions' own words "
        "joined, "
        "no LLM: what a summary falls back to when the LLM fails; for bulk imports and slow devices)",
        choices=("llm", "extractive"),
    )
    entity_batch: int = setting(
        6, "captions per LLM call when memory.entity_extractor = llm-batch (count)", lo=1, hi=64
    )
    max_store_mb: float = setting(
        0.0, "cap on the SQLite store size; ingest stops with an error when reached; 0 = no cap (MB)", lo=0
    )
    graph_buffer_mb: int = setting(
        64,
        "memory the entity graph (Kùzu) may keep for its pages; Kùzu's own default is 80 % of the machine's "
        "RAM, "
        "which it fills as the graph grows (MB)",
        lo=16,
        hi=1 << 20,
    )
    summary_max_tokens: int = setting(128, "longest activity or session summary (tokens)", lo=16, hi=1024)
    entity_max_tokens: int = setting(
        256, "longest entity-extraction answer per caption (tokens)", lo=32, hi=2048
    )
    ann_min_items: int = setting(
        10000,
        "a text search over fewer stored items stays exact; above, k-means lists in sqlite-vec answer; 0 = "
        "always exact (count)",
        lo=0,
    )
    ann_list_size: int = setting(
        100, "target vectors per k-means list of the text index (count)", lo=16, hi=1000000
    )
    ann_probe: int = setting(
        4, "k-means lists scanned per text search; more is slower and closer to exact (count)", lo=1, hi=4096
    )
