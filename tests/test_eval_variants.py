"""The derived benchmark variants (clips, captioner, list) and the captioner restyler, on real
CaptainCook4D records copied into tests/data."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.errors import EdgeAssistError
from edge_assist.evaluation import harness
from edge_assist.evaluation.captaincook import build
from edge_assist.evaluation.captioner_style import restyle
from edge_assist.evaluation.paraphrase import contains_verbatim
from edge_assist.evaluation.qa_questions import load_streams
from edge_assist.evaluation.variants import CACHE_ENV, check, clip_windows, listed_steps
from edge_assist.sources.caption_stream import load_caption_stream

DATA = Path(__file__).parent / "data" / "captaincook4d"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> harness.Dataset:
    out = tmp_path_factory.mktemp("cc4d")
    build(DATA, out)
    return harness.Dataset.open(out, cache_dir=tmp_path_factory.mktemp("variant-cache"))


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_clip_windows_count_nest_and_end_at_the_step_end() -> None:
    assert clip_windows(2.0, 7.5) == [(2.0, 7.5)]  # shorter than a clip: one clip, the window
    assert clip_windows(0.0, 10.0) == [(0.0, 10.0)]
    cut = clip_windows(94.844, 183.102)  # 88.3 s: 8 clips, the last 18.3 s long
    assert len(cut) == 8 and cut[0][0] == 94.844 and cut[-1][1] == 183.102
    assert all(b[0] == a[1] for a, b in zip(cut, cut[1:], strict=False))  # back to back
    assert all(t1 - t0 == pytest.approx(10.0) for t0, t1 in cut[:-1])


def test_clip_streams_cut_every_step_inside_its_window(dataset: harness.Dataset) -> None:
    for split in ("train", "val"):
        gt, _ = dataset.ground_truth(split, dataset.recordings(split))
        for rid in dataset.recordings(split):
            steps = dataset.captions(split, "paraphrased", rid)
            for variant in ("clips", "captioner"):
                path = dataset.stream(split, variant, rid)
                clips = dataset.captions(split, variant, rid)
                want = sum(max(1, int((s["t1"] - s["t0"]) // 10)) for s in steps)
                assert len(clips) == want > len(steps)
                for c in clips:
                    step = steps[c["step"]]
                    assert step["t0"] <= c["t0"] <= c["t1"] <= step["t1"]
                for i, s in enumerate(steps):
                    own = [c for c in clips if c["step"] == i]
                    assert own[0]["t0"] == s["t0"] and own[-1]["t1"] == s["t1"]
                    if variant == "clips":
                        assert {c["text"] for c in own} == {s["text"]}
                per_step = dataset.stream(split, "paraphrased", rid)
                assert check(per_step, path, gt, same_text=variant == "clips") == []
                # The caption-stream reader takes the file as it is (time order, meta).
                assert load_caption_stream(path).session_id == f"captaincook4d-{rid}"


def test_check_finds_a_clip_outside_its_step(dataset: harness.Dataset, tmp_path: Path) -> None:
    path = dataset.stream("val", "clips", "1_37")
    lines = _lines(path)
    lines[2]["t1"] = lines[2]["t1"] + 30.0
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    gt, _ = dataset.ground_truth("val", ["1_37"])
    problems = check(dataset.stream("val", "paraphrased", "1_37"), broken, gt, same_text=True)
    assert problems and "outside" in problems[0]
    with pytest.raises(EdgeAssistError, match="per-step"):
        harness.variant_check(_with_stream(dataset, tmp_path, broken), "val", "clips", ["1_37"])
    assert harness.variant_check(dataset, "val", "list", ["1_37"]) == {}  # per step: nothing to check


def _with_stream(dataset: harness.Dataset, tmp_path: Path, clips: Path) -> harness.Dataset:
    """A copy of the dataset that holds `clips` as its own clips stream of 1_37."""
    root = tmp_path / "ds"
    for rel in ("manifest.json", "val/gt.jsonl", "val/paraphrased/1_37.jsonl"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes((dataset.root / rel).read_bytes())
    (root / "val" / "clips").mkdir(parents=True)
    (root / "val" / "clips" / "1_37.jsonl").write_bytes(clips.read_bytes())
    return harness.Dataset.open(root, tmp_path / "cache")


def test_captioner_streams_are_third_person_and_never_quote_the_recipe(dataset: harness.Dataset) -> None:
    for split in ("train", "val"):
        for rid in dataset.recordings(split):
            path = dataset.stream(split, "captioner", rid)
            steps = listed_steps(_lines(path)[0]["meta"])
            assert len(steps) > 5
            clips = dataset.captions(split, "captioner", rid)
            for c in clips:
                assert "the person" in c["text"].lower(), c["text"]
                assert not any(contains_verbatim(c["text"], s) for s in steps), c["text"]
            later = [c["text"] for i, c in enumerate(clips) if i and clips[i - 1]["step"] == c["step"]]
            assert later and all(any(w in t for w in ("still", "keeps", "continues")) for t in later), later[
                :3
            ]


def test_restyler_is_deterministic_and_seeded() -> None:
    caption = "Whisk the contents of bowl"
    first = [restyle(caption, random.Random(f"0:1_37:3:{k}"), clip=k) for k in range(4)]
    again = [restyle(caption, random.Random(f"0:1_37:3:{k}"), clip=k) for k in range(4)]
    assert first == again
    assert first[0].startswith(("The person", "At the", "On the")) and "whisk" in first[0]
    assert all("whisking" in t for t in first[1:])
    # Another seed may choose another phrasing, never other content.
    other = {restyle(caption, random.Random(f"{s}"), clip=1) for s in range(20)}
    assert len(other) > 1 and all("contents of bowl" in t for t in other)


def test_derived_streams_are_the_same_on_every_derivation(dataset: harness.Dataset, tmp_path: Path) -> None:
    fresh = harness.Dataset.open(dataset.root, tmp_path / "fresh-cache")
    for variant in ("clips", "captioner", "list"):
        a, b = dataset.stream("val", variant, "1_37"), fresh.stream("val", variant, "1_37")
        assert a != b and a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize(
    ("caption", "kept"),
    [
        # Real error captions of CaptainCook4D (1_37 and train recordings): what went wrong stays.
        ("Coat mug with cooking spray", ["mug", "cooking spray"]),
        ("Microwave the ramekin cup uncovered on high for 20 seconds", ["high", "20 seconds", "uncovered"]),
        ("Top cup with 2 tablespoon of salsa", ["2 tablespoon", "salsa"]),
        ("Continue to Microwave for 10 more seconds", ["10 more seconds"]),
        ("1/6 cup grated parmesan cheese, but spill", ["1/6 cup", "parmesan", "spill"]),
        ("Add 1/3 tsp salt to the bowl, but splashing some salt", ["1/3 teaspoon", "salt", "splashing"]),
        ("Do not peel 1 garlic cloves", ["skip", "peeling 1 garlic cloves"]),
        ("Peel 2 instead of 4 large garlic cloves", ["2 instead of 4"]),
    ],
)
def test_restyler_keeps_what_the_caption_says_happened(caption: str, kept: list[str]) -> None:
    for k in range(3):
        for seed in range(5):
            out = restyle(caption, random.Random(seed), clip=k).lower()
            assert all(w in out for w in kept), (caption, out)
    assert "ramekin" not in restyle("Coat mug with cooking spray", random.Random(0)).lower()


def test_list_stream_names_no_recipe_and_lists_the_steps(dataset: harness.Dataset) -> None:
    for rid in dataset.recordings("val"):
        para = _lines(dataset.stream("val", "paraphrased", rid))
        listed = _lines(dataset.stream("val", "list", rid))
        meta = listed[0]["meta"]
        assert "recipe" not in meta and "task" not in meta and meta["task_list"] is True
        assert meta["session_id"] == para[0]["meta"]["session_id"]
        steps = listed_steps(para[0]["meta"])
        assert meta["task_context"] == "Steps: " + "; ".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
        assert listed[1:] == para[1:]  # the paraphrased captions, the same windows
        stream = load_caption_stream(dataset.stream("val", "list", rid))
        assert stream.meta == meta and stream.task_context == meta["task_context"]


def test_question_benchmark_reads_a_derived_variant(
    dataset: harness.Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(dataset.cache_dir))
    clips = {s.recording: s for s in load_streams(dataset.root, "val", "clips")}
    assert sorted(clips) == ["1_10", "1_37"]
    assert len(clips["1_37"].captions) == len(dataset.captions("val", "clips", "1_37"))


@pytest.mark.slow
def test_eval_run_on_clip_streams_end_to_end(
    dataset: harness.Dataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    out = tmp_path / "run"
    args = ["eval", "run", "--dataset", str(dataset.root), "--split", "val", "--variant", "clips"]
    args += ["--rows", "ours", "--limit", "1", "--judge-max-pairs", "0", "--no-plots", "--out", str(out)]
    assert main(args) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["variant"] == "clips" and results["recordings"] == 1
    check_ = results["variant_check"]
    assert check_["clips"] > check_["steps"] == 11 and check_["problems"] == 0
    (log,) = (out / "decisions").glob("*/1_10.jsonl")
    decisions = log.read_text().splitlines()
    assert len(decisions) == check_["clips"]  # one decision per clip
    assert "Clip streams checked" in (out / "report.md").read_text()


def test_eval_command_offers_the_variants_the_harness_has() -> None:
    from edge_assist.commands import eval as eval_cmd

    assert eval_cmd.VARIANTS == harness.ALL_VARIANTS
