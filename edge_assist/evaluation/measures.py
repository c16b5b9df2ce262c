"""Measures beyond F1: false alarms per hour, content match, revealable/unrevealable recall.

A false alert costs the wearer's trust, and a response in the right window with the right
sub-type can still say nothing useful; these numbers show both.

Content match (as ProAssist does): the cosine similarity, under the configured sentence
encoder (all-MiniLM-L6-v2 by default), between a correctly matched response and the
annotated description of what went wrong; the pair counts as a content match when it
reaches `CONTENT_MATCH_THRESHOLD`. 0.5 is where MiniLM separates a sentence naming the same
mistake from one about the same dish but another matter (see evaluation/README.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from edge_assist.evaluation.annotations import GTEvent, Prediction
from edge_assist.evaluation.scorer import Matching, Pair
from edge_assist.inference.base import TextEncoder

CONTENT_MATCH_THRESHOLD = 0.5


def false_alarms_per_hour(
    predictions: Iterable[Prediction], gt: Iterable[GTEvent], durations_s: Mapping[str, float]
) -> dict[str, Any]:
    """Spoken services per hour on the recordings (of `durations_s`) that have no ground truth."""
    with_gt = {g.session_id for g in gt}
    clean = {sid: d for sid, d in durations_s.items() if sid not in with_gt}
    spoken = sum(1 for p in predictions if p.session_id in clean)
    hours = sum(clean.values()) / 3600.0
    return {
        "recordings": len(clean),
        "hours": round(hours, 4),
        "spoken": spoken,
        "per_hour": round(spoken / hours, 3) if hours > 0 else None,
    }


def content_match(
    pairs: Sequence[Pair], encoder: TextEncoder | None, threshold: float = CONTENT_MATCH_THRESHOLD
) -> dict[str, Any]:
    """Cosine of response vs annotated description for each correct pair; share above threshold."""
    correct = [p for p in pairs if p.correct and p.gt.description]
    if encoder is None or not correct:
        return {
            "pairs": len(correct),
            "threshold": threshold,
            "mean_cosine": None,
            "matched": 0,
            "rate": None,
            "cosines": [],
        }
    a = encoder.encode([p.prediction.text or "" for p in correct])
    b = encoder.encode([p.gt.description for p in correct])
    cos = np.sum(np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64), axis=1)
    hits = int(np.sum(cos >= threshold))
    return {
        "pairs": len(correct),
        "threshold": threshold,
        "mean_cosine": round(float(np.mean(cos)), 4),
        "matched": hits,
        "rate": round(hits / len(correct), 4),
        "cosines": [round(float(c), 4) for c in cos],
    }


def revealable_split(m: Matching) -> dict[str, Any]:
    """Recall on ground truth a caption stream can reveal vs what it cannot (GT `revealable`)."""
    out: dict[str, Any] = {}
    hit_ids = {id(p.gt) for p in m.correct_pairs}
    for label, want in (("revealable", True), ("unrevealable", False)):
        events = [g for g in m.gt if "revealable" in g.extra and bool(g.extra["revealable"]) is want]
        hits = sum(1 for g in events if id(g) in hit_ids)
        out[label] = {
            "gt": len(events),
            "matched": hits,
            "recall": round(hits / len(events), 4) if events else None,
        }
    return out
