"""The free-form question benchmark: the question files, the scoring rules, and a real run
over the demo recording's memory through `edge-assist eval qa --questions`."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.errors import SourceError
from edge_assist.evaluation.qa_freeform import find_recording
from edge_assist.evaluation.qa_freeform_score import (
    ABSTAINED,
    KINDS,
    RIGHT,
    WRONG,
    FreeQuestion,
    durations_in,
    load_questions,
    parse_expect,
    said_no,
    score,
)
from tests.clip_level import CLIP_LEVEL_ARGS

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT / "edge_assist" / "data" / "questions"
DATASET = ROOT / "edge_assist" / "data" / "captaincook4d"
DEMO = "1_34"
# the later pairs: a tuning twin and its held-back set, written together
PAIRS = (*((f"dev{i}", f"heldback{i}") for i in range(3, 8)), ("dev8", "heldback9"), ("dev9", "heldback10"))
# held-back sets written alone, with no tuning twin
ALONE = ("heldback8",)


def _all() -> dict[str, list[FreeQuestion]]:
    parts = ("dev", "heldback", "heldback2", *(p for pair in PAIRS for p in pair), *ALONE)
    return {p: load_questions(QUESTIONS / f"freeform-{p}.jsonl") for p in parts}


def test_the_files_parse_and_cover_what_the_benchmark_promises() -> None:
    parts = _all()
    dev, held = parts["dev"], parts["heldback"]
    assert len(dev) + len(held) >= 150
    assert 0.28 <= len(held) / (len(dev) + len(held)) <= 0.4  # a third held back
    recs = {p: {q.recording for q in qs} for p, qs in parts.items()}
    val = recs["dev"] | recs["heldback"] - {DEMO}
    assert DEMO in recs["dev"] and len(val - {DEMO}) >= 15
    # Each held-back set is over recordings no other file uses.
    assert not (recs["dev"] & recs["heldback"]) and not (recs["heldback2"] & (recs["dev"] | recs["heldback"]))
    # later pairs: recordings no other file uses
    for p in (*(p for pair in PAIRS for p in pair), *ALONE):
        assert not recs[p] & set().union(*(r for q, r in recs.items() if q != p)), p
    recipes = json.loads((DATASET / "manifest.json").read_text())["recordings"]
    tuning = recs["dev"].union(*(recs[tune] for tune, _ in PAIRS))
    tuned = {recipes[r]["recipe"] for r in tuning if r in recipes}
    for tune, held in PAIRS:
        n, m = len(parts[tune]), len(parts[held])
        assert n + m >= 100 and 0.28 <= m / (n + m) <= 0.45, held
        # The tuning twin teaches no new recipe: its recipes are the dev file's.
        assert {recipes[r]["recipe"] for r in recs[tune]} <= {recipes[r]["recipe"] for r in recs["dev"]}, tune
        # Its held-back set's recipes are ones no tuning file asks about.
        assert not {recipes[r]["recipe"] for r in recs[held]} & tuned, held
    for held in ALONE:
        assert len(parts[held]) >= 50 and not {recipes[r]["recipe"] for r in recs[held]} & tuned, held
    for p, qs in parts.items():
        assert set(Counter(q.kind for q in qs)) == set(KINDS), p
        assert any(q.expect.about_what for q in qs) and any(q.expect.abstain for q in qs)
        assert any(q.expect.yes is True for q in qs) and any(q.expect.yes is False for q in qs)


def test_every_expected_moment_is_a_caption_of_its_recording() -> None:
    for qs in _all().values():
        convs: dict[str, set[tuple[str, float | None]]] = {}
        for q in qs:
            rec = find_recording(DATASET, q.recording, "original")
            starts = [c[0] for c in rec.captions]
            for t in q.expect.times:
                assert any(abs(t - s) <= 0.1 for s in starts), (q.qid, t)
            if q.ask_t is not None:
                assert 0 < q.ask_t < rec.end, q.qid  # mid-way: "end" says the end
            if q.conversation is not None:
                convs.setdefault(q.conversation, set()).add((q.recording, q.ask_t))
        assert all(len(v) == 1 for v in convs.values())  # a conversation: one recording, one time


def test_the_spec_table_rows_are_in_the_dev_part() -> None:
    asked = {q.question for q in _all()["dev"] if q.recording == DEMO and q.ask_t is None}
    for row in (
        "did I add cheese?",
        "did I add lettuce?",
        "did I crack an egg?",
        "did I skip anything?",
        "when did I add the cheese?",
        "how many eggs did I use?",
        "what's next?",
        "how long did I microwave the egg at first?",
    ):
        assert row in asked


def _q(expect: dict[str, object], kind: str = "yesno") -> FreeQuestion:
    return FreeQuestion("x", DEMO, None, "?", kind, parse_expect(expect))


def test_a_no_to_something_that_happened_is_a_confident_wrong_no() -> None:
    cheese = _q({"yes": True, "t": 255.9})
    v = score(cheese, "No, I don't remember you doing that.", 335.8)
    assert v.outcome == WRONG and v.wrong_no
    assert score(cheese, "I don't remember you doing that.", 335.8).outcome == ABSTAINED
    right = score(cheese, "Yes: you sprinkled 1 tablespoon of cheese on the cup at 4:16.", 335.8)
    assert right.outcome == RIGHT and not right.wrong_no
    assert score(cheese, "Yes, at 2:00.", 335.8).outcome == WRONG  # the wrong moment
    skipped = _q({"says": ["spray", "coat"]}, "procedure")
    assert score(skipped, "No, you did every step.", 335.8).wrong_no
    assert score(skipped, "You skipped: coat the ramekin cup with cooking spray.", 335.8).outcome == RIGHT
    assert said_no("You didn't add salsa.") and said_no("Not yet.") and not said_no("Nothing is left: done.")


def test_a_stretch_of_clips_is_scored_by_its_range_and_its_length() -> None:
    # on a day cut into 10-s clips an act is told by a run of clips: a Yes anywhere in it is right
    peeled = _q({"yes": True, "t": 180.0, "t_end": 420.0})
    assert score(peeled, "Yes. At 6:30 you peeled potatoes skin.", 900.0).outcome == RIGHT
    assert score(peeled, "Yes. At 7:30 you peeled potatoes skin.", 900.0).outcome == WRONG
    # how long it went on, where no caption says: within 20 s or 15 %
    kneading = _q({"lasts": 360}, "duration")
    assert score(kneading, "About 6 minutes 30 seconds, from 1:00 to 7:30.", 900.0).outcome == RIGHT
    assert score(kneading, "About 5 minutes, from 1:00 to 6:00.", 900.0).outcome == WRONG
    assert score(kneading, "I don't remember you doing that.", 900.0).outcome == ABSTAINED


def test_the_goalstep_files_parse_and_keep_their_videos_apart() -> None:
    dev = load_questions(QUESTIONS / "goalstep-dev.jsonl")
    dev2 = load_questions(QUESTIONS / "goalstep-dev2.jsonl")
    held = load_questions(QUESTIONS / "goalstep-heldback.jsonl")
    assert len(dev) >= 80 and len(dev2) >= 80 and len(held) >= 80
    videos = [{q.recording for q in qs} for qs in (dev, dev2, held)]
    assert not (videos[0] & videos[1] or videos[0] & videos[2] or videos[1] & videos[2])
    assert any(q.expect.about_what for q in dev) and any(q.expect.about_what for q in held)
    for qs in (dev, dev2, held):
        assert len({q.recording for q in qs}) >= 8
        assert any(q.expect.yes is True for q in qs) and any(q.expect.yes is False for q in qs)
        assert any(q.expect.lasts is not None for q in qs)
        convs: dict[str, set[tuple[str, float | None]]] = {}
        for q in qs:
            if q.conversation is not None:
                convs.setdefault(q.conversation, set()).add((q.recording, q.ask_t))
        assert convs and all(len(v) == 1 for v in convs.values())


def test_a_question_about_leaving_an_act_out_is_scored_by_whether_the_act_happened() -> None:
    salt_went_in = FreeQuestion(
        "x", DEMO, None, "I didn't forget the salt, did I?", "yesno", parse_expect({"yes": True})
    )
    v = score(salt_went_in, "No, you didn't forget: at 1:00 you added a pinch of salt.", 600)
    assert v.outcome == RIGHT and not v.wrong_no
    assert (
        score(salt_went_in, "Yes, it looks like it: nothing shows you adding the salt.", 600).outcome == WRONG
    )
    forgot = FreeQuestion("x", DEMO, None, "did I forget the vanilla?", "yesno", parse_expect({"yes": False}))
    assert score(forgot, "Yes, it looks like it: nothing shows the vanilla.", 600).outcome == RIGHT
    assert score(forgot, "I don't remember you doing that.", 600).outcome == ABSTAINED


def test_an_earned_no_and_abstentions() -> None:
    skipped_water = _q({"yes": False})
    assert score(skipped_water, "No: you added no water.", 600).outcome == RIGHT
    assert score(skipped_water, "I don't remember you doing that.", 600).outcome == ABSTAINED
    assert score(skipped_water, "Yes, at 3:00.", 600).outcome == WRONG
    never = _q({"yes": False, "or_abstain": True}, "never")
    assert score(never, "I don't remember you doing that.", 600).outcome == RIGHT
    keys = _q({"abstain": True}, "never")
    assert score(keys, "I don't remember you doing that.", 600).outcome == RIGHT
    assert score(keys, "On the counter at 2:00.", 600).outcome == WRONG
    lone = _q({"about_what": True}, "followup")
    assert score(lone, "About what?", 600).outcome == RIGHT
    assert score(lone, "At 4:16 you added salt.", 600).outcome == WRONG


def test_times_within_twenty_seconds_and_quantities_in_words() -> None:
    when = _q({"t": 255.9}, "when")
    assert score(when, "At 4:35.", 335.8).outcome == RIGHT  # 275 s: 19 s late
    assert score(when, "At 4:37.", 335.8).outcome == WRONG  # 21 s late
    assert score(when, "You sprinkled cheese.", 335.8).outcome == WRONG  # no time said
    window = _q({"t": 88.6, "t_end": 304.9}, "when")
    assert score(window, "From 3:20.", 1055).outcome == RIGHT
    first = _q({"number": 30, "unit": "s", "t": 87.0}, "duration")
    spoken = "At 2:44 you continued to Microwave for 15-30 more seconds or until the egg is almost set."
    assert score(first, spoken, 335.8).outcome == WRONG  # the second time, not the first
    assert score(first, "You microwaved it for thirty secs at 1:27.", 335.8).outcome == RIGHT
    eggs = _q({"number": 1, "unit": "egg"}, "count")
    assert score(eggs, "You poured one egg into the cup.", 335.8).outcome == RIGHT
    assert score(eggs, "You poured 2 eggs.", 335.8).outcome == WRONG
    salt = _q({"number": "1/4", "unit": "tsp"}, "amount")
    assert score(salt, "To the basin, you put in a quarter tsp salt.", 600).outcome == RIGHT
    assert score(salt, "You put in 1 tsp salt.", 600).outcome == WRONG
    assert 381.0 in durations_in("6 minutes and 21 seconds ago")
    ago = _q({"ago": 381.2}, "followup")
    assert score(ago, "About 6 minutes ago.", 599.5).outcome == RIGHT
    assert score(ago, "At 3:38.", 599.5).outcome == RIGHT
    assert score(ago, "10 minutes ago.", 599.5).outcome == WRONG


def test_a_malformed_question_names_its_line(tmp_path: Path) -> None:
    f = tmp_path / "q.jsonl"
    f.write_text(
        '{"id": "a", "recording": "1_34", "ask_t": "end", "question": "?", "kind": "x", "expect": {}}\n'
    )
    with pytest.raises(SourceError, match=r"q.jsonl:1"):
        load_questions(f)


@pytest.mark.slow
def test_a_real_run_over_the_demo_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picked = {"dev-1_34-05", "dev-1_34-08", "dev-1_34-21", "dev-1_34-22", "dev-1_34-19", "dev-1_34-20"}
    lines = [
        x
        for x in (QUESTIONS / "freeform-dev.jsonl").read_text().splitlines()
        if json.loads(x)["id"] in picked
    ]
    f = tmp_path / "freeform-demo.jsonl"
    f.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    assert main(["eval", "qa", "--questions", str(f), "--out", str(out), *CLIP_LEVEL_ARGS]) == 0
    result = json.loads((out / "results.json").read_text())
    recs = {r["id"]: r for r in result["records"]}
    assert list(recs) == [json.loads(x)["id"] for x in lines]  # file order kept
    assert recs["dev-1_34-22"]["outcome"] == RIGHT  # "where did I put my keys?": I don't remember
    assert recs["dev-1_34-21"]["ask_t"] == 230.0 and recs["dev-1_34-21"]["memory_captions"] == 6
    assert recs["dev-1_34-05"]["memory_captions"] == 11 and recs["dev-1_34-05"]["answer"]
    assert recs["dev-1_34-20"]["conversation"] == "dev-c2" and recs["dev-1_34-20"]["answer"]
    part = result["summary"]["freeform-demo"]
    assert part["questions"] == 6 and part["never_seen"]["n"] == 2
    assert "confident wrong" in (out / "report.md").read_text()
    assert (out / "command.txt").read_text().splitlines()[1].startswith("commit ")
