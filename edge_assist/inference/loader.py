"""Building the configured models: manifest name + config -> a loaded LLM, VLM or encoder.

This is the one place stages get models from. A model is loaded once per process for a
given configuration (the cache key holds the resolved files and every setting that
changes the loaded object), so the reasoner, the memory writer and retrieval share one
copy. `model_status` is what `edge-assist doctor` prints: found or missing, with the
command that fixes it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from edge_assist.config import Config
from edge_assist.errors import ModelError
from edge_assist.inference.base import LLM, VLM, ImageEncoder, TextEncoder
from edge_assist.inference.manifest import (
    ModelEntry,
    candidate_path,
    get_entry,
    missing_hint,
    resolve_file,
)

T = TypeVar("T")

_cache: dict[tuple[Any, ...], Any] = {}
_cache_lock = threading.Lock()
# One lock per key, so two stages asking for the same model at once load it once,
# while loading the LLM does not hold up loading the text encoder.
_key_locks: dict[tuple[Any, ...], threading.Lock] = {}


def _cached(key: tuple[Any, ...], build: Callable[[], T]) -> T:
    with _cache_lock:
        if key in _cache:
            return _cache[key]  # type: ignore[no-any-return]
        lock = _key_locks.setdefault(key, threading.Lock())
    with lock:
        with _cache_lock:
            if key in _cache:
                return _cache[key]  # type: ignore[no-any-return]
        obj = build()
        with _cache_lock:
            _cache[key] = obj
        return obj


def forget(obj: Any) -> None:
    """Take a closing model out of the cache, so nobody is handed a closed model."""
    with _cache_lock:
        for key in [k for k, v in _cache.items() if v is obj]:
            del _cache[key]


def close_all() -> None:
    """Close every model loaded through this module and forget it (a process about to exit:
    llama-cpp-python's destructors fail noisily once the interpreter is tearing down)."""
    with _cache_lock:
        held = list(_cache.values())
        _cache.clear()
    for obj in held:
        close = getattr(obj, "close", None)
        if close is not None:
            close()


def clear_cache() -> None:
    """Forget loaded models (tests; a config reload). Models in use stay valid."""
    with _cache_lock:
        _cache.clear()
        _key_locks.clear()


def _fix(entry: ModelEntry) -> str:
    f = entry.files[0] if entry.files else None
    return missing_hint(entry, f) if f is not None else "fix the manifest"


def _paths_key(cfg: Config, entry: ModelEntry) -> tuple[str, ...]:
    return tuple(str(candidate_path(cfg, entry, f)) for f in entry.files)


def load_llm(cfg: Config, *, copy: str = "") -> LLM:
    """The configured text model: llama.cpp in process, or the remote server.

    `copy` names a separate in-process instance of the same model (its own context and
    prompt cache): the memory writer uses one so that its calls between steps do not
    evict the reasoner's cached prompt prefix.
    """
    llm = _load_llm(cfg, copy)
    return _with_response_cache(cfg, llm) if cfg.models.response_cache else llm


def _with_response_cache(cfg: Config, llm: LLM) -> LLM:
    from edge_assist.inference.response_cache import CachedLLM, ResponseCache, model_identity

    path = Path(cfg.models.response_cache).expanduser()
    cache = _cached(("response-cache", str(path.resolve())), lambda: ResponseCache(path))
    if cfg.models.backend == "remote":
        r = cfg.remote
        identity = model_identity(llm.name, None, url=r.base_url, model=r.llm_model)
    else:
        entry = get_entry(cfg, cfg.models.llm, "llm")
        m = cfg.models
        identity = model_identity(
            entry.name, resolve_file(cfg, entry, "model"), context_tokens=m.context_tokens, seed=m.seed
        )
    return CachedLLM(llm, cache, identity)  # type: ignore[return-value]


def response_cache_stats(cfg: Config) -> dict[str, Any] | None:
    """Hits, misses and compute saved by this process's response cache, if it has one."""
    if not cfg.models.response_cache:
        return None
    key = ("response-cache", str(Path(cfg.models.response_cache).expanduser().resolve()))
    with _cache_lock:
        cache = _cache.get(key)
    return cache.stats() if cache is not None else None


def _load_llm(cfg: Config, copy: str) -> LLM:
    if cfg.models.backend == "remote":
        from edge_assist.inference.remote import RemoteLLM

        return _cached(("remote-llm", cfg.remote), lambda: RemoteLLM(cfg.remote))
    entry = get_entry(cfg, cfg.models.llm, "llm")
    m = cfg.models
    key = ("llm", entry.name, _paths_key(cfg, entry), m.threads, m.context_tokens, m.seed, copy)

    def build() -> LLM:
        from edge_assist.inference.llama_llm import LlamaLLM

        path = resolve_file(cfg, entry, "model")
        assert path is not None
        return LlamaLLM(
            path,
            name=entry.name,
            context_tokens=m.context_tokens,
            threads=m.threads,
            seed=m.seed,
            fix_hint=_fix(entry),
        )

    return _cached(key, build)


def load_vlm(cfg: Config) -> VLM | None:
    """The configured vision model, or None when no VLM is configured."""
    if cfg.models.backend == "remote":
        if not cfg.remote.vlm_model:
            return None
        from edge_assist.inference.remote import RemoteVLM

        return _cached(("remote-vlm", cfg.remote), lambda: RemoteVLM(cfg.remote))
    if not cfg.models.vlm:
        return None
    entry = get_entry(cfg, cfg.models.vlm, "vlm")
    m = cfg.models
    key = ("vlm", entry.name, _paths_key(cfg, entry), m.threads, m.context_tokens, m.seed)

    def build() -> VLM:
        from edge_assist.inference.llama_vlm import LlamaVLM

        model = resolve_file(cfg, entry, "model")
        mmproj = resolve_file(cfg, entry, "mmproj")
        assert model is not None and mmproj is not None
        return LlamaVLM(
            model,
            mmproj,
            name=entry.name,
            context_tokens=max(m.context_tokens, int(entry.options.get("min_context_tokens", 0))),
            threads=m.threads,
            seed=m.seed,
            image_format=str(entry.options.get("image_format", "jpeg")),
            fix_hint=_fix(entry),
        )

    return _cached(key, build)


def load_text_encoder(cfg: Config) -> TextEncoder:
    entry = get_entry(cfg, cfg.models.text_encoder, "text-encoder")
    key = ("text", entry.name, _paths_key(cfg, entry), cfg.models.threads)

    def build() -> TextEncoder:
        from edge_assist.inference.text_encoder import OnnxTextEncoder

        model = resolve_file(cfg, entry, "model")
        tok = resolve_file(cfg, entry, "tokenizer")
        assert model is not None and tok is not None
        enc = OnnxTextEncoder(
            model,
            tok,
            name=entry.name,
            max_length=int(entry.options.get("max_length", 256)),
            threads=cfg.models.threads,
            pooling=str(entry.options.get("pooling", "mean")),
            fix_hint=_fix(entry),
        )
        declared = entry.options.get("dim")
        if declared is not None and int(declared) != enc.dim:
            raise ModelError(
                f"text encoder {entry.name!r} gives {enc.dim}-d vectors but the manifest says {declared}; "
                f"fix the manifest"
            )
        return enc

    return _cached(key, build)


def load_image_encoder(cfg: Config) -> ImageEncoder | None:
    """The CLIP-style encoder, or None when none is configured (no visual path)."""
    if not cfg.models.image_encoder:
        return None
    entry = get_entry(cfg, cfg.models.image_encoder, "image-encoder")
    key = ("image", entry.name, _paths_key(cfg, entry), cfg.models.threads)

    def build() -> ImageEncoder:
        from edge_assist.inference.clip_encoder import OnnxClipEncoder

        image = resolve_file(cfg, entry, "image")
        text = resolve_file(cfg, entry, "text")
        tok = resolve_file(cfg, entry, "tokenizer")
        assert image is not None and text is not None and tok is not None
        o = entry.options
        return OnnxClipEncoder(
            image,
            text,
            tok,
            name=entry.name,
            image_size_px=int(o.get("image_size_px", 224)),
            mean=tuple(o.get("mean", (0.48145466, 0.4578275, 0.40821073))),
            std=tuple(o.get("std", (0.26862954, 0.26130258, 0.27577711))),
            context_length=int(o.get("context_length", 77)),
            threads=cfg.models.threads,
            fix_hint=_fix(entry),
        )

    return _cached(key, build)


def require_dim(encoder: TextEncoder | ImageEncoder, stored_dim: int, store: str) -> None:
    """Refuse to mix vectors of two models: a one-line error, the store left untouched."""
    if encoder.dim != stored_dim:
        raise ModelError(
            f"{store} holds {stored_dim}-d vectors but encoder {encoder.name!r} makes {encoder.dim}-d ones; "
            f"configure the encoder the store was built with, or start a new store"
        )


@dataclass(frozen=True)
class ModelStatus:
    name: str
    role: str
    found: bool
    path: str
    detail: str  # what is there, or the hint that fixes it


_ROLE_KEYS = (
    ("llm", "llm"),
    ("vlm", "vlm"),
    ("text_encoder", "text-encoder"),
    ("image_encoder", "image-encoder"),
)


def model_status(cfg: Config) -> list[ModelStatus]:
    """One row per configured role: is every file present? Loads nothing."""
    rows: list[ModelStatus] = []
    for key, role in _ROLE_KEYS:
        name = getattr(cfg.models, key)
        if cfg.models.backend == "remote" and role in ("llm", "vlm"):
            model = cfg.remote.llm_model if role == "llm" else cfg.remote.vlm_model
            rows.append(
                ModelStatus(
                    model or "(server default)",
                    role,
                    True,
                    cfg.remote.base_url,
                    "remote backend; not checked offline",
                )
            )
            continue
        if not name:
            detail = {
                "vlm": "no VLM configured: captions must come from a caption stream; set models.vlm "
                "(see `edge-assist models list`)",
                "image-encoder": "no image encoder configured: the visual retrieval path is off; "
                "set models.image_encoder",
            }.get(role, "not configured")
            rows.append(ModelStatus("", role, False, "", detail))
            continue
        try:
            entry = get_entry(cfg, name, role)
        except ModelError as e:
            rows.append(ModelStatus(name, role, False, "", str(e)))
            continue
        missing = [(f, candidate_path(cfg, entry, f)) for f in entry.files]
        missing = [(f, p) for f, p in missing if not p.is_file()]
        main = entry.file("model") or entry.file("image") or (entry.files[0] if entry.files else None)
        path = str(candidate_path(cfg, entry, main)) if main else ""
        if missing:
            f, p = missing[0]
            rows.append(ModelStatus(name, role, False, str(p), f"{f.name} missing; {missing_hint(entry, f)}"))
        else:
            size = sum(Path(candidate_path(cfg, entry, f)).stat().st_size for f in entry.files)
            rows.append(
                ModelStatus(name, role, True, path, f"{len(entry.files)} file(s), {size / 1e6:.1f} MB")
            )
    return rows
