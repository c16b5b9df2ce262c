"""The three retrieval paths on a real memory: concurrency, causality, empty memory,
and the ablation switches (each removes its component: checked in the trace)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from edge_assist.clock import RealClock
from edge_assist.config import Config
from edge_assist.inference.base import LLM, ImageEncoder, TextEncoder
from edge_assist.memory.memory import Memory
from edge_assist.retrieval.api import SearchPlan
from edge_assist.retrieval.paths import query_terms
from edge_assist.retrieval.retriever import Retriever
from tests.assistant_memory import FUTURE_T1, Built, built_memory

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def mem(
    tmp_path_factory: pytest.TempPathFactory, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> Built:
    return built_memory(tmp_path_factory.mktemp("assistant-memory"), llm, text_encoder, image_encoder)


def retriever(b: Built, llm: LLM, te: TextEncoder, ie: ImageEncoder | None, **overrides: object) -> Retriever:
    cfg = b.cfg.replace(**{f"retrieval.{k}": v for k, v in overrides.items()})
    return Retriever(cfg, b.memory, llm=llm, text_encoder=te, clock=RealClock(), image_encoder=ie)


def test_query_terms_are_content_words_pairs_and_singulars() -> None:
    terms = query_terms("Where did I leave the ramekin cups?")
    assert "ramekin cups" in terms and "ramekin" in terms and "cup" in terms
    assert "where" not in terms and "the" not in terms
    assert query_terms("what did I do?") == []


async def test_three_paths_run_concurrently(
    mem: Built, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> None:
    r = await retriever(mem, llm, text_encoder, image_encoder).retrieve(
        "where is the ramekin cup with the egg",
        before_t=mem.captions[-1].t1,
        session_id=mem.meta["session_id"],
    )
    paths = r.trace()["paths"]
    assert set(paths) == {"temporal", "graph", "visual"}
    starts = [p["start_s"] for p in paths.values()]
    ends = [p["end_s"] for p in paths.values()]
    # Every path had started before any finished: they were all in flight at once.
    assert max(starts) < min(ends), paths
    assert r.timings_s["retrieval"] < sum(r.timings_s[f"retrieval.{p}"] for p in paths)
    assert paths["temporal"]["clips"] and paths["visual"]["clips"]
    assert all(h["level"] in ("clip", "activity", "session") for h in paths["temporal"]["text_hits"])
    assert "ramekin" in r.context.text.lower()


async def test_no_path_reads_past_now(
    mem: Built, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> None:
    rtr = retriever(mem, llm, text_encoder, image_encoder, reconstruction=False)
    q = "where is the zebra-striped thermos on the windowsill"
    sid = mem.meta["session_id"]
    planted = mem.future.index
    # Control: once the planted caption is in the past, the temporal path finds it ...
    later = await rtr.retrieve(q, before_t=FUTURE_T1 + 1, session_id=sid)
    assert planted in [c.clip_index for c in later.paths["temporal"].clips]
    # ... but at an earlier step no path returns it, nor anything that ended after now.
    now = mem.captions[-1].t1
    early = await rtr.retrieve(q, before_t=now, session_id=sid)
    for name, res in early.paths.items():
        assert planted not in [c.clip_index for c in res.clips], name
        assert all(h.t1 <= now for h in res.text_hits), name
    assert all(c.t1 <= now for c in early.context.clips)
    assert "zebra" not in early.context.text.lower()


async def test_empty_memory_finds_nothing_and_does_not_fail(
    tmp_path: Path, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> None:
    cfg = Config().replace(**{"general.data_dir": str(tmp_path), "general.wearer": "nobody"})
    with Memory.open(cfg, llm, text_encoder, image_encoder) as memory:
        rtr = Retriever(
            cfg, memory, llm=llm, text_encoder=text_encoder, clock=RealClock(), image_encoder=image_encoder
        )
        r = await rtr.retrieve("where are my keys", before_t=math.inf, session_id=None)
    assert all(not p.clips and not p.error for p in r.paths.values())
    assert r.context.empty and r.context.citation() == "" and not r.accounts
    assert "reconstruction" not in r.timings_s  # nothing to rebuild: no model call


@pytest.mark.parametrize("switch", ["temporal", "graph", "visual"])
async def test_path_switch_removes_the_path(
    switch: str, mem: Built, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> None:
    rtr = retriever(mem, llm, text_encoder, image_encoder, reconstruction=False, **{switch: False})
    r = await rtr.retrieve("egg in the ramekin cup", before_t=mem.captions[-1].t1, session_id=None)
    assert switch not in r.paths and f"retrieval.{switch}" not in r.timings_s
    assert "off in config" in r.skipped[switch]
    assert set(r.paths) == {"temporal", "graph", "visual"} - {switch}
    assert not any(switch in c.paths for c in r.context.clips)


async def test_no_multiscale_searches_clip_level_only(
    mem: Built, llm: LLM, text_encoder: TextEncoder
) -> None:
    q = "what happened with the egg"
    full = await retriever(mem, llm, text_encoder, None, reconstruction=False).retrieve(
        q, before_t=math.inf, session_id=None
    )
    clip_only = await retriever(
        mem, llm, text_encoder, None, reconstruction=False, multiscale=False
    ).retrieve(q, before_t=math.inf, session_id=None)
    assert {h.level for h in full.paths["temporal"].text_hits} - {"clip"}  # summaries do come back normally
    assert clip_only.paths["temporal"].detail["levels"] == ["clip"]
    assert {h.level for h in clip_only.paths["temporal"].text_hits} == {"clip"}


@pytest.mark.heavy
async def test_reconstruction_switch(
    mem: Built, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder
) -> None:
    q = "what did I do with the ramekin cup"
    on = await retriever(mem, llm, text_encoder, image_encoder).retrieve(
        q, before_t=math.inf, session_id=None
    )
    assert "reconstruction" in on.timings_s and "reconstruction.visual" in on.timings_s
    assert {a.by for a in on.accounts} <= {"llm", "captions-fallback"} and on.accounts
    off = await retriever(mem, llm, text_encoder, image_encoder, reconstruction=False).retrieve(
        q, before_t=math.inf, session_id=None
    )
    assert not any(k.startswith("reconstruction") for k in off.timings_s)
    assert off.accounts and {a.by for a in off.accounts} == {"captions"}
    # A degraded plan from the scheduler turns it off for one search too.
    rtr = retriever(mem, llm, text_encoder, image_encoder)
    plan = SearchPlan(paths=("temporal",), top_k=2, reconstruction=False, note="degraded")
    small = await rtr.retrieve(q, before_t=math.inf, session_id=None, plan=plan)
    assert set(small.paths) == {"temporal"} and "not granted" in small.skipped["graph"]
    assert not any(k.startswith("reconstruction") for k in small.timings_s)
    assert len(small.paths["temporal"].text_hits) <= 2


async def test_reconstruction_with_a_vlm_sees_the_keyframes(
    mem: Built, llm: LLM, text_encoder: TextEncoder, image_encoder: ImageEncoder, tiny_vlm_dir: Path
) -> None:
    """The real llama.cpp multimodal path: SmolLM2 with a generated projector (random
    weights: the words mean nothing, but the keyframes do go through the VLM)."""
    from edge_assist.inference.loader import load_vlm

    vlm = load_vlm(Config().replace(**{"models.dir": str(tiny_vlm_dir), "models.vlm": "tiny-vlm"}))
    assert vlm is not None
    rcfg = mem.cfg.replace(**{"reasoner.reconstruction_max_tokens": 32})
    rtr = Retriever(
        rcfg,
        mem.memory,
        llm=llm,
        text_encoder=text_encoder,
        clock=RealClock(),
        vlm=vlm,
        image_encoder=image_encoder,
    )
    r = await rtr.retrieve(
        "the ramekin cup",
        before_t=mem.captions[-1].t1,
        session_id=None,
        plan=SearchPlan(paths=("visual",), top_k=2),
    )
    (acc,) = r.accounts
    assert acc.by == "vlm" and acc.images >= 1 and acc.records
    assert r.timings_s["reconstruction.visual"] > 0
