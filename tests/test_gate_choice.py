"""The shipped gate is chosen for every kind of stream at once: its thresholds keep the
false-alarm budget on each val variant, and the candidate with the best worst case ships."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from edge_assist.evaluation.annotations import GTEvent
from edge_assist.evaluation.gate_choice import Candidate, best, thresholds_over
from edge_assist.evaluation.gate_data import Rows
from edge_assist.evaluation.gate_training import BUDGETS, evaluate
from edge_assist.events import SubType
from edge_assist.reasoning.gate import ServiceModel


@dataclass
class Split:
    gt: list[GTEvent] = field(
        default_factory=lambda: [GTEvent("err", 0.0, 10.0, SubType.ERROR_RECOVERY, "wrong pan")]
    )
    durations: dict[str, float] = field(default_factory=lambda: {"err": 60.0, "clean": 3600.0})
    delta_s: float = 25.0


def _rows(keys: list[tuple[str, float, float]]) -> Rows:
    n = len(keys)
    return Rows(
        np.zeros((n, 1)), np.zeros(n), np.zeros((n, 2)), [(s, a, b, "r") for s, a, b in keys], ["c"] * n
    )


def test_thresholds_keep_the_budget_on_every_variant() -> None:
    # Per-step streams: the error scores 0.9, the clean hour's captions stay low.
    steps = _rows([("err", 0.0, 10.0)] + [("clean", 60.0 * i, 60.0 * i + 60) for i in range(20)])
    p_steps = np.array([0.9] + [0.1 + 0.01 * i for i in range(20)])
    # The same hour cut into clips: three clean clips score 0.8-0.85, as a style change can make them.
    clips = _rows([("err", 0.0, 10.0)] + [("clean", 10.0 * i, 10.0 * i + 10) for i in range(40)])
    p_clips = np.array([0.9] + [0.1] * 37 + [0.8, 0.82, 0.85])
    split = Split()
    thr, _ = thresholds_over({"steps": p_steps, "clips": p_clips}, {"steps": steps, "clips": clips}, split)
    alone, _ = thresholds_over({"steps": p_steps}, {"steps": steps}, split)
    assert thr["quiet"] > alone["quiet"]  # the clips' false alarms made it stricter
    for p, rows in ((p_steps, steps), (p_clips, clips)):
        for chattiness, budget in BUDGETS.items():
            pt = evaluate(p, rows, thr[chattiness], split.gt, split.durations, split.delta_s)
            assert pt.false_alarms_per_hour <= budget
            assert pt.recall == 1.0  # the error is still caught


def test_the_best_worst_case_ships_and_a_tie_keeps_the_first() -> None:
    def cand(name: str, score: float) -> Candidate:
        model = ServiceModel(["a"], [], np.zeros(1), np.ones(1), np.zeros(1), 0.0)
        return Candidate(name, model, {}, {}, score)

    a, b = cand("without session history", 60.0), cand("all features", 64.0)
    assert best([a, b]) is b
    tie = cand("all features", 60.0)
    assert best([a, tie]) is a


def test_a_step_cut_into_clips_is_spoken_once_as_the_policy_would() -> None:
    split = Split()
    keys = [
        ("err", 0.0, 10.0, "r"),
        ("err", 10.0, 20.0, "r"),
        ("clean", 0.0, 10.0, "r"),
        ("clean", 10.0, 20.0, "r"),
    ]
    clips = Rows(np.zeros((4, 1)), np.zeros(4), np.zeros((4, 2)), keys, ["c"] * 4, ["0", "0", "3", "3"])
    p = np.array([0.9, 0.9, 0.8, 0.8])
    pt = evaluate(p, clips, 0.5, split.gt, split.durations, split.delta_s)
    assert pt.predictions == 2  # one per step, not one per clip
    per_caption = Rows(clips.X, clips.y, clips.caption_vecs, keys, clips.texts)
    assert evaluate(p, per_caption, 0.5, split.gt, split.durations, split.delta_s).predictions == 4
