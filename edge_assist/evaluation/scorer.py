"""The EgoServe scorer: match predictions to ground truth, then precision, recall and F1.

Protocol (DESIGN.md, Evaluation), per recording and per main type:
- ground-truth events are visited in time order (start, then end);
- a prediction is located at its window's centre; it is a candidate for an event when that
  centre lies within [gt_start − δ, gt_end + δ] (both ends inclusive);
- among the still-unused candidates the nearest (|centre − event centre|, then the earlier
  prediction) is taken, one to one;
- the pair uses up both, but it counts as matched only when the sub-types agree: a prediction
  of the right main type and the wrong sub-type spends the event and scores nothing;
- predictions of another main type are never candidates.
Per sub-type P = matched / predictions, R = matched / GT, F1 their harmonic mean (0 when
both are 0). Overall = macro-F1 over the sub-types that have any GT or any prediction;
with none at all it is undefined (None). Counts are summed over recordings before the
ratios are taken.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from edge_assist.evaluation.annotations import GTEvent, Prediction
from edge_assist.events import MainType, SubType

# δ per dataset (seconds), from DESIGN.md.
DELTA_S = {"all-day": 60.0, "captaincook4d": 25.0, "holoassist": 10.0}


@dataclass(frozen=True)
class Pair:
    gt: GTEvent
    prediction: Prediction

    @property
    def correct(self) -> bool:
        return self.gt.sub_type is self.prediction.sub_type


@dataclass
class Matching:
    """The outcome of matching one set of predictions against one set of ground truth."""

    pairs: list[Pair] = field(default_factory=list)
    unmatched_gt: list[GTEvent] = field(default_factory=list)
    unmatched_predictions: list[Prediction] = field(default_factory=list)
    gt: list[GTEvent] = field(default_factory=list)
    predictions: list[Prediction] = field(default_factory=list)

    @property
    def correct_pairs(self) -> list[Pair]:
        return [p for p in self.pairs if p.correct]

    def extend(self, other: Matching) -> None:
        self.pairs += other.pairs
        self.unmatched_gt += other.unmatched_gt
        self.unmatched_predictions += other.unmatched_predictions
        self.gt += other.gt
        self.predictions += other.predictions


def _match_one(gts: Sequence[GTEvent], preds: Sequence[Prediction], delta_s: float) -> Matching:
    out = Matching(gt=list(gts), predictions=list(preds))
    used: set[int] = set()
    by_main: dict[MainType, list[int]] = defaultdict(list)
    for i, p in enumerate(preds):
        by_main[p.main_type].append(i)
    matched_gt: set[int] = set()
    order = sorted(range(len(gts)), key=lambda i: (gts[i].t0, gts[i].t1, i))
    for gi in order:
        g = gts[gi]
        best: tuple[float, float, int] | None = None
        for pi in by_main.get(g.main_type, []):
            if pi in used:
                continue
            c = preds[pi].centre
            if g.t0 - delta_s <= c <= g.t1 + delta_s:
                key = (abs(c - g.centre), c, pi)
                if best is None or key < best:
                    best = key
        if best is not None:
            used.add(best[2])
            matched_gt.add(gi)
            out.pairs.append(Pair(g, preds[best[2]]))
    out.unmatched_gt = [g for i, g in enumerate(gts) if i not in matched_gt]
    out.unmatched_predictions = [p for i, p in enumerate(preds) if i not in used]
    return out


def match(gt: Iterable[GTEvent], predictions: Iterable[Prediction], delta_s: float) -> Matching:
    """Match within each recording (session_id); recordings never share events."""
    if delta_s < 0:
        raise ValueError("delta_s must be >= 0")
    gts_by: dict[str, list[GTEvent]] = defaultdict(list)
    preds_by: dict[str, list[Prediction]] = defaultdict(list)
    for g in gt:
        gts_by[g.session_id].append(g)
    for p in predictions:
        preds_by[p.session_id].append(p)
    out = Matching()
    for sid in sorted(set(gts_by) | set(preds_by)):
        out.extend(_match_one(gts_by.get(sid, []), preds_by.get(sid, []), delta_s))
    return out


@dataclass(frozen=True)
class SubTypeScore:
    sub_type: SubType
    gt: int
    predictions: int
    matched: int

    @property
    def precision(self) -> float:
        return self.matched / self.predictions if self.predictions else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.gt if self.gt else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "gt": self.gt,
            "predictions": self.predictions,
            "matched": self.matched,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
        }


@dataclass(frozen=True)
class Score:
    per_sub_type: dict[SubType, SubTypeScore]
    delta_s: float

    @property
    def macro_f1(self) -> float | None:
        active = [s for s in self.per_sub_type.values() if s.gt or s.predictions]
        if not active:
            return None
        return sum(s.f1 for s in active) / len(active)

    @property
    def matched(self) -> int:
        return sum(s.matched for s in self.per_sub_type.values())

    def to_json(self) -> dict[str, Any]:
        m = self.macro_f1
        return {
            "delta_s": self.delta_s,
            "macro_f1": None if m is None else round(m, 4),
            "per_sub_type": {
                st.value: s.to_json() for st, s in self.per_sub_type.items() if s.gt or s.predictions
            },
        }


def score_matching(m: Matching, delta_s: float) -> Score:
    gt_n: dict[SubType, int] = defaultdict(int)
    pred_n: dict[SubType, int] = defaultdict(int)
    hit_n: dict[SubType, int] = defaultdict(int)
    for g in m.gt:
        gt_n[g.sub_type] += 1
    for p in m.predictions:
        pred_n[p.sub_type] += 1
    for pair in m.correct_pairs:
        hit_n[pair.gt.sub_type] += 1
    per = {st: SubTypeScore(st, gt_n[st], pred_n[st], hit_n[st]) for st in SubType}
    return Score(per, delta_s)


def score(gt: Iterable[GTEvent], predictions: Iterable[Prediction], delta_s: float) -> tuple[Score, Matching]:
    """Match and score in one call."""
    m = match(gt, predictions, delta_s)
    return score_matching(m, delta_s), m
