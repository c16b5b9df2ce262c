"""Model runtime benchmark: load times, LLM prompt/generation tokens per second, text and
image embeddings per second at batch 1 and 32, VLM caption latency, resident memory.

    python -m benchmarks.bench_inference [--config edge-assist.toml] [--quick]

Uses the configured models (offline defaults: SmolLM2-135M Q4_1, MiniLM-L6 int8). When no
VLM / image encoder is configured, it measures llama.cpp's real multimodal path and the
ONNX CLIP path with tiny generated models (random weights) and says so in the JSON:
those numbers show the pipeline overhead, not a real model's cost.
Writes benchmarks/results/bench_inference.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks.results_io import command_line, write
from edge_assist.config import Config, load_config
from edge_assist.events import Clip, Keyframe
from edge_assist.inference.base import LLM, VLM, ImageEncoder, Message, TextEncoder
from edge_assist.inference.loader import load_image_encoder, load_llm, load_text_encoder, load_vlm
from edge_assist.inference.manifest import get_entry, resolve_file
from edge_assist.perception.vlm_captioner import VLMCaptioner

OUT = Path(__file__).parent / "results" / "bench_inference.json"


def rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def timed_load(fn: Any) -> tuple[Any, dict[str, float]]:
    before = rss_mb()
    t = time.perf_counter()
    obj = fn()
    return obj, {"load_s": round(time.perf_counter() - t, 4), "rss_added_mb": round(rss_mb() - before, 1)}


def scene(i: int) -> np.ndarray:
    img = np.full((480, 640, 3), 180, np.uint8)
    cv2.rectangle(img, (100 + 10 * i, 120), (400, 380), (30 * i % 255, 90, 200), -1)
    cv2.putText(img, f"step {i}", (150, 260), cv2.FONT_HERSHEY_SIMPLEX, 2, (0, 0, 0), 3)
    return img


def bench_llm(llm: LLM, gen_tokens: int, repeats: int) -> dict[str, Any]:
    """Time to first token of a fresh ~500-token prompt, generation speed, and the same prompt again.

    llama.cpp keeps the last prompt's evaluated tokens and evaluates only what differs, so a
    prompt sent twice costs almost no prefill the second time: every timed prompt begins with
    its own words (nothing to reuse), after one untimed call that pays the first call's set-up.
    The identical prompt sent again is reported beside it (`..._same_prompt_s`), as the
    reasoner's prompts that share their beginning partly get it."""

    def prompt(i: int) -> list[Message]:
        # A prompt of realistic reasoner size (~500 tokens): captions of the last minutes.
        captions = " ".join(
            f"[{10 * j}s] The wearer cuts a tomato on the board and puts it in the bowl." for j in range(24)
        )
        return [
            {"role": "system", "content": f"Session {i}. You are a proactive assistant."},
            {"role": "user", "content": captions},
        ]

    def timed(msgs: list[Message]) -> tuple[float | None, float | None]:
        stamps: list[float] = []
        t0 = time.perf_counter()
        llm.chat(
            msgs,
            max_tokens=gen_tokens,
            temperature=0.0,
            on_token=lambda _tok: stamps.append(time.perf_counter()),
        )
        if len(stamps) < 2:
            return None, None
        return stamps[0] - t0, (len(stamps) - 1) / (stamps[-1] - stamps[0])

    llm.chat(prompt(-1), max_tokens=2, temperature=0.0)  # warm-up, untimed
    count_tokens = getattr(llm, "count_tokens", None)
    prompt_tokens = count_tokens(str(prompt(0))) if count_tokens else 0
    ttft, gen_tps, prompt_tps, again = [], [], [], []
    for i in range(repeats):
        first, tps = timed(prompt(i))
        if first is not None and tps is not None:
            ttft.append(first)
            gen_tps.append(tps)
            if prompt_tokens:
                prompt_tps.append(prompt_tokens / first)
        same, _ = timed(prompt(i))  # the same prompt again: its prefill is reused
        if same is not None:
            again.append(same)
    med = statistics.median
    return {
        "prompt_tokens_approx": prompt_tokens,
        "time_to_first_token_s": round(med(ttft), 4) if ttft else None,
        "time_to_first_token_same_prompt_s": round(med(again), 4) if again else None,
        "prompt_tokens_per_s": round(med(prompt_tps), 1) if prompt_tps else None,
        "generation_tokens_per_s": round(med(gen_tps), 1) if gen_tps else None,
        "generated_tokens": gen_tokens,
        "repeats": repeats,
    }


def rate(fn: Any, n_items: int, min_s: float) -> float:
    fn()  # warm-up: onnxruntime allocates on the first run
    done, t0 = 0, time.perf_counter()
    while True:
        fn()
        done += n_items
        if time.perf_counter() - t0 >= min_s:
            return done / (time.perf_counter() - t0)


def bench_text(enc: TextEncoder, min_s: float) -> dict[str, Any]:
    texts = [
        f"The wearer picks up the {w} and walks to the sink." for w in ("knife", "mug", "pan", "bowl")
    ] * 8
    b1 = rate(lambda: enc.encode(texts[:1]), 1, min_s)
    b32 = rate(lambda: enc.encode(texts), 32, min_s)
    return {
        "dim": enc.dim,
        "per_s_batch1": round(b1, 1),
        "per_s_batch32": round(b32, 1),
        "batch32_over_batch1": round(b32 / b1, 2),
    }


def bench_images(enc: ImageEncoder, min_s: float) -> dict[str, Any]:
    imgs = [scene(i) for i in range(32)]
    b1 = rate(lambda: enc.encode_images(imgs[:1]), 1, min_s)
    b32 = rate(lambda: enc.encode_images(imgs), 32, min_s)
    t32 = rate(lambda: enc.encode_texts(["a knife on a cutting board"] * 32), 32, min_s)
    return {
        "dim": enc.dim,
        "images_per_s_batch1": round(b1, 1),
        "images_per_s_batch32": round(b32, 1),
        "batch32_over_batch1": round(b32 / b1, 2),
        "texts_per_s_batch32": round(t32, 1),
    }


def bench_vlm(vlm: VLM, cfg: Config, repeats: int) -> dict[str, Any]:
    cap = VLMCaptioner(vlm, cfg.captioner)
    kfs = tuple(
        Keyframe(stream_t=float(i), image=scene(i), reason="even") for i in range(cfg.captioner.max_images)
    )
    clip = Clip(
        t=0.0, session_id="bench", index=0, t0=0.0, t1=cfg.segmenter.clip_s, keyframes=kfs, frame_count=50
    )
    lat = []
    for _ in range(repeats):
        t = time.perf_counter()
        cap.caption(clip)
        lat.append(time.perf_counter() - t)
    return {
        "images_per_clip": cap.last_image_count,
        "image_size_px": cfg.captioner.image_size_px,
        "max_tokens": cfg.captioner.max_tokens,
        "caption_latency_s_median": round(statistics.median(lat), 3),
        "caption_latency_s_max": round(max(lat), 3),
        "clip_s": cfg.segmenter.clip_s,
        "realtime_factor": round(cfg.segmenter.clip_s / statistics.median(lat), 2),
    }


def tiny_models(cfg: Config, workdir: Path, need_vlm: bool, need_clip: bool) -> Config:
    from edge_assist.inference.tiny_models import write_manifest, write_tiny_clip, write_tiny_mmproj

    entries: dict[str, dict[str, object]] = {}
    overrides: dict[str, Any] = {"models.dir": str(workdir)}
    if need_vlm:
        llm_path = resolve_file(cfg, get_entry(cfg, cfg.models.llm, "llm"), "model")
        mmproj = write_tiny_mmproj(workdir / "tiny-mmproj.gguf")
        entries["tiny-vlm"] = {"role": "vlm", "files": {"model": llm_path, "mmproj": mmproj}}
        overrides["models.vlm"] = "tiny-vlm"
    if need_clip:
        image, text = write_tiny_clip(workdir, dim=32)
        tok = resolve_file(cfg, get_entry(cfg, cfg.models.text_encoder, "text-encoder"), "tokenizer")
        entries["tiny-clip"] = {
            "role": "image-encoder",
            "image_size_px": 32,
            "files": {"image": image, "text": text, "tokenizer": tok},
        }
        overrides["models.image_encoder"] = "tiny-clip"
    # The configured models keep resolving: copy the existing local manifest entries over.
    write_manifest(workdir, entries)
    return cfg.replace(**overrides)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", "-c", default=None)
    ap.add_argument("--quick", action="store_true", help="fewer repeats (smoke run)")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    cfg = load_config(args.config)
    repeats, min_s, gen_tokens = (1, 0.5, 16) if args.quick else (3, 3.0, 64)
    result: dict[str, Any] = {
        "config": {
            "llm": cfg.models.llm,
            "text_encoder": cfg.models.text_encoder,
            "threads": cfg.models.threads,
            "context_tokens": cfg.models.context_tokens,
            "backend": cfg.models.backend,
        },
        "rss_start_mb": round(rss_mb(), 1),
        # Other work on the machine slows llama.cpp badly (its threads spin-wait): read the
        # numbers together with the load.
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
    }
    llm, result["llm_load"] = timed_load(lambda: load_llm(cfg))
    result["llm"] = bench_llm(llm, gen_tokens, repeats)
    text, result["text_encoder_load"] = timed_load(lambda: load_text_encoder(cfg))
    result["text_encoder"] = bench_text(text, min_s)

    with tempfile.TemporaryDirectory() as tmp:
        need_vlm, need_clip = not cfg.models.vlm, not cfg.models.image_encoder
        bcfg = (
            tiny_models(cfg, Path(tmp), need_vlm, need_clip)
            if (need_vlm or need_clip) and cfg.models.backend == "local"
            else cfg
        )
        img_enc, load = timed_load(lambda: load_image_encoder(bcfg))
        if img_enc is not None:
            result["image_encoder_load"] = load
            result["image_encoder"] = {"generated_tiny_model": need_clip, **bench_images(img_enc, min_s)}
        vlm, load = timed_load(lambda: load_vlm(bcfg))
        if vlm is not None:
            result["vlm_load"] = load
            result["vlm"] = {"generated_tiny_projector": need_vlm, **bench_vlm(vlm, bcfg, repeats)}
            close = getattr(vlm, "close", None)
            if close is not None:
                close()
    result["rss_end_mb"] = round(rss_mb(), 1)
    result["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    t = result["text_encoder"]
    result["ratios"] = {
        "text_batch32_over_batch1": t["batch32_over_batch1"],
        "llm_prompt_over_generation_tps": (
            round(result["llm"]["prompt_tokens_per_s"] / result["llm"]["generation_tokens_per_s"], 2)
            if result["llm"]["prompt_tokens_per_s"] and result["llm"]["generation_tokens_per_s"]
            else None
        ),
    }
    out = write(args.out, result, command_line(argv))
    print(json.dumps(result, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
