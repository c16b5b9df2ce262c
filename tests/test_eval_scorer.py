"""The EgoServe scorer against hand-computed cases (DESIGN.md, Evaluation)."""

from __future__ import annotations

import pytest

from edge_assist.evaluation.annotations import GTEvent, Prediction
from edge_assist.evaluation.scorer import score
from edge_assist.events import SubType

ER, NSG, SA = SubType.ERROR_RECOVERY, SubType.NEXT_STEP_GUIDANCE, SubType.SAFETY
DELTA = 25.0


def gt(t0: float, t1: float, st: SubType = ER, sid: str = "r1") -> GTEvent:
    return GTEvent(sid, t0, t1, st, "error")


def pred(centre: float, st: SubType = ER, sid: str = "r1", half: float = 2.0) -> Prediction:
    return Prediction(sid, centre - half, centre + half, st, "say")


@pytest.mark.parametrize(
    ("centre", "matched"),
    [(135.0, 1), (135.01, 0), (75.0, 1), (74.99, 0), (105.0, 1)],
)
def test_delta_boundary_is_inclusive(centre: float, matched: int) -> None:
    s, _ = score([gt(100, 110)], [pred(centre)], DELTA)
    er = s.per_sub_type[ER]
    assert er.matched == matched
    assert s.macro_f1 == pytest.approx(1.0 if matched else 0.0)


def test_prediction_located_at_window_centre_not_its_start() -> None:
    # Window [130, 150]: its start lies inside [75, 135] but its centre 140 does not.
    s, _ = score([gt(100, 110)], [Prediction("r1", 130, 150, ER)], DELTA)
    assert s.per_sub_type[ER].matched == 0


def test_two_predictions_for_one_event_match_once_nearest_first() -> None:
    s, m = score([gt(100, 110)], [pred(112), pred(104)], DELTA)
    er = s.per_sub_type[ER]
    assert (er.gt, er.predictions, er.matched) == (1, 2, 1)
    assert er.precision == pytest.approx(0.5) and er.recall == pytest.approx(1.0)
    assert er.f1 == pytest.approx(2 / 3)
    assert m.pairs[0].prediction.centre == 104  # nearer the event's centre 105
    assert [p.centre for p in m.unmatched_predictions] == [112]


def test_wrong_sub_type_spends_the_event_and_scores_nothing() -> None:
    s, m = score([gt(100, 110)], [pred(105, NSG), pred(120, ER)], DELTA)
    assert len(m.pairs) == 1 and not m.pairs[0].correct
    assert s.per_sub_type[ER].matched == 0 and s.per_sub_type[ER].predictions == 1
    assert s.per_sub_type[NSG].f1 == 0.0
    assert s.macro_f1 == pytest.approx(0.0)


def test_prediction_of_another_main_type_is_never_a_candidate() -> None:
    # SA (Instant) at the event's centre must not take the ER (Short-Term) event.
    s, m = score([gt(100, 110)], [pred(105, SA), pred(120, ER)], DELTA)
    assert [p.prediction.sub_type for p in m.pairs] == [ER]
    assert s.per_sub_type[ER].f1 == pytest.approx(1.0)
    assert s.per_sub_type[SA].f1 == 0.0
    assert s.macro_f1 == pytest.approx(0.5)  # active: ER (1.0) and SA (0.0)


def test_greedy_in_ground_truth_time_order() -> None:
    # One prediction at 118 is a candidate for both; the earlier event takes it.
    s, m = score([gt(120, 130), gt(100, 110)], [pred(118)], DELTA)
    assert m.pairs[0].gt.t0 == 100
    assert s.per_sub_type[ER].recall == pytest.approx(0.5)


def test_empty_predictions() -> None:
    s, m = score([gt(100, 110), gt(200, 210)], [], DELTA)
    er = s.per_sub_type[ER]
    assert (er.precision, er.recall, er.f1) == (0.0, 0.0, 0.0)
    assert s.macro_f1 == 0.0
    assert len(m.unmatched_gt) == 2


def test_empty_ground_truth() -> None:
    s, _ = score([], [pred(10), pred(50), pred(90, NSG)], DELTA)
    assert s.macro_f1 == 0.0
    assert s.per_sub_type[ER].predictions == 2


def test_nothing_at_all_is_undefined() -> None:
    s, _ = score([], [], DELTA)
    assert s.macro_f1 is None
    assert s.to_json()["macro_f1"] is None


def test_recordings_never_share_events() -> None:
    s, _ = score([gt(100, 110, sid="a")], [pred(105, sid="b")], DELTA)
    assert s.per_sub_type[ER].matched == 0


def test_counts_sum_over_recordings_then_macro_over_sub_types() -> None:
    gts = [gt(100, 110, sid="a"), gt(300, 310, sid="a"), gt(50, 60, NSG, sid="b")]
    preds = [pred(105, sid="a"), pred(55, NSG, sid="b"), pred(500, NSG, sid="b")]
    s, _ = score(gts, preds, DELTA)
    # ER: P 1/1, R 1/2 -> F1 2/3; NSG: P 1/2, R 1/1 -> F1 2/3.
    assert s.per_sub_type[ER].f1 == pytest.approx(2 / 3)
    assert s.per_sub_type[NSG].f1 == pytest.approx(2 / 3)
    assert s.macro_f1 == pytest.approx(2 / 3)
