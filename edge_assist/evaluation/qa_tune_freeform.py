"""Answer-gate training rows from free-form question files (edge_assist/data/questions/), for
`qa_tune --freeform`: only the tuning files (freeform-dev*.jsonl) are ever passed.

A question gives rows when what it expects names the moment: an answer at a time ("when", a
yes whose act was seen at `t`, an amount, a count or a duration seen at `t`): the candidate
moments at that time are the positives; or an answer that no moment holds (a No-truth, a thing
never seen): every candidate is a negative. Follow-ups (their focus is the question before),
order and procedure questions give none. Candidates are found as for the template questions
(qa_tune.rows_for): the captions memory holds at the ask time, ranked by the text-encoder cosine
to the question's focus, the question first said plain as `ask` says it (text/spoken_questions).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from edge_assist.answers.gate_words import features
from edge_assist.answers.support import WordEncoder
from edge_assist.evaluation.qa_freeform import find_recording
from edge_assist.evaluation.qa_freeform_score import FreeQuestion, load_questions
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.answer_text import question_focus
from edge_assist.text.spoken_questions import plain

KINDS = frozenset({"yesno", "when", "amount", "count", "duration", "never"})
AT_SLACK_S = 1.0  # expected times are caption starts


def label(q: FreeQuestion) -> bool | None:
    """True: a moment at the expected time answers it; False: no moment does; None: no rows."""
    e = q.expect
    if q.kind not in KINDS or q.conversation is not None:
        return None
    if e.yes is False or e.abstain:
        return False
    return True if e.times and not e.says else None


def at_time(t0: float, t1: float, times: Sequence[float]) -> bool:
    return any(abs(t0 - x) <= AT_SLACK_S or t0 <= x <= t1 for x in times)


def freeform_rows(
    enc: TextEncoder,
    files: Sequence[Path],
    dataset: Path,
    variant: str,
    feature_names: tuple[str, ...],
    candidates: int,
) -> list[tuple[str, str, bool, np.ndarray, np.ndarray]]:
    """Per question that gives rows: (file name, id, whether it is answered, candidate features
    (n, len(feature_names)), whether each candidate is the moment asked about)."""
    if not isinstance(enc, WordEncoder):
        raise TypeError(f"{enc.name} gives no word vectors")
    out: list[tuple[str, str, bool, np.ndarray, np.ndarray]] = []
    for path in files:
        by_rec: dict[str, list[FreeQuestion]] = {}
        for q in load_questions(path):
            if label(q) is not None:
                by_rec.setdefault(q.recording, []).append(q)
        for rid, qs in by_rec.items():
            caps = find_recording(dataset, rid, variant).captions
            texts = [c[2] for c in caps]
            vecs = enc.encode(texts)
            words = enc.encode_words(texts)
            foci = [question_focus(plain(q.question)) for q in qs]
            fvecs, fwords = enc.encode(foci), enc.encode_words(foci)
            end = max((c[1] for c in caps), default=0.0)
            for q, focus, fv, fw in zip(qs, foci, fvecs, fwords, strict=True):
                ask_t = end if q.ask_t is None else q.ask_t
                held = sum(1 for c in caps if c[1] <= ask_t)
                cos = vecs[:held] @ fv
                top = [int(i) for i in np.argsort(-cos)[:candidates]]
                rows = [features(float(cos[i]), focus, texts[i], fw, words[i]) for i in top]
                X = np.asarray([[r[n] for n in feature_names] for r in rows], dtype=np.float64)
                answered = bool(label(q))
                y = np.asarray([answered and at_time(caps[i][0], caps[i][1], q.expect.times) for i in top])
                out.append((path.stem, q.qid, answered, X.reshape(-1, len(feature_names)), y))
    return out
