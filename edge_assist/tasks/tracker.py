"""The online step tracker: which step of the task each caption is, what is done, what is
available, and what went wrong, by the procedure's graph.

An online beam decoder over the graph (a Viterbi search whose states are "done set +
step in progress", kept to the best `beam` states; the full state space is exponential in
the number of steps, the beam keeps it to milliseconds on a Pi). Per caption every state
moves to each step or to "no step":

    score' = score + cos(caption, step) / tau + transition(state -> step)

- a step whose prerequisites are all done costs nothing; one with prerequisites not done
  costs `skip_logp`, and a little more per further missing one (people do skip, and do
  reorder where the graph allows it for free; a caption that clearly is a later step must
  still win over a vaguely similar available one);
- staying in the step in progress costs `stay_logp` (a step spans several 10-s clips on
  glasses, each a similar caption: six of them are one step, not six);
- taking up again a step left unfinished costs `resume_logp` and is no repeat (whisking,
  getting the pan, whisking again). A step left is finished once a step that depends on it
  begins (the wearer moved on to what needs it done), or once more than `resume_steps`
  other steps have begun since it was left (much later); until then it may be taken up
  again;
- a step finished and begun again costs `repeat_logp` (a repeat). It is told only of a step
  that gives an amount of a thing ("Add 1/3 tsp salt"): done twice, that is twice the amount.
  A step with no amount may be done in rounds (moulding dough, seasoning, washing, stirring):
  coming back to it, however much later, is carrying on with it;
- "no step" (an extra action) scores as a step of cosine `none_cos`.

Confidence of the step in progress = its share of the beam's posterior (softmax of the
scores). Findings are read off the best state's last move, each with its evidence:
a prerequisite not done (graph, never list order), an order violation (a step done after a
step it must precede), a repeated step, a deviation (amounts, durations, settings and
temperatures parsed and compared by value; a tool with a tool and an ingredient with an
ingredient, by encoder cosine: `deviations.py`), an action that matches no step. A skip or
order finding also carries how much closer the caption is to the step read than to the steps
it names: a caption that fits both is doubtful evidence. Nothing here knows a recipe: the same
code runs any task.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from edge_assist.tasks.details import Difference, parse_details, same_amount
from edge_assist.tasks.deviations import Thresholds, differences, tells_the_act
from edge_assist.tasks.findings import (
    DEVIATION,
    ORDER,
    PREREQUISITE,
    REPEATED,
    UNMATCHED,
    Finding,
    TrackerState,
)
from edge_assist.tasks.model import Task
from edge_assist.tasks.step_phrases import names_a_thing_of
from edge_assist.tasks.tracker_params import TrackerParams
from edge_assist.tasks.vector_cache import Encode, VectorCache
from edge_assist.tasks.word_kinds import WordKinds, singular
from edge_assist.text.stop_words import STEP_STOP_WORDS
from edge_assist.text.units import UNIT_NAMES

_WORD = re.compile(r"[a-z][a-z'-]+")
# Differences in what is used, not in how much or how: compared by the encoder.
THING_KINDS = frozenset({"tool", "ingredient"})


def content_words(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        w = w.strip("'-")
        # Units are amounts, compared by value.
        if len(w) > 2 and w not in STEP_STOP_WORDS and w not in UNIT_NAMES:
            out.append(w)
    return list(dict.fromkeys(out))


@dataclass(frozen=True)
class _Hyp:
    done: int  # bitmask of steps done
    cur: int  # step in progress, -1 for none
    score: float
    prev_done: int
    prev_cur: int
    open: tuple[int, ...] = ()  # steps left unfinished, most recently left first
    resumed: bool = False  # the last move took up again a step left unfinished


class StepTracker:
    """One task, one session: feed it captions in order."""

    def __init__(
        self,
        task: Task,
        encode: Encode,
        *,
        params: TrackerParams | None = None,
        vectors: VectorCache | None = None,
        picked_up: bool = False,
    ) -> None:
        self.task = task
        # A task recognised from the captions was picked up mid-way: what must come before the
        # first step seen is presumed done before the glasses saw it, not reported skipped.
        self._presume_before_first = picked_up
        self.p = params or TrackerParams()
        self._vectors = vectors or VectorCache(encode)
        self._kinds = WordKinds(self._vectors.get)
        self._encode = encode
        self._anc = task.ancestor_masks()
        self._pre = task.prereq_masks()
        self._step_vecs = self._vectors.get([s.text for s in task.steps])
        # Steps that give an amount of a thing (not a time): done once, so done again is a repeat.
        self._once = [any(a.dim != "time" for a in s.details.amounts) for s in task.steps]
        self._step_words = [frozenset(singular(w) for w in _WORD.findall(s.text.lower())) for s in task.steps]
        self._task_words = frozenset(singular(w) for s in task.steps for w in content_words(s.text))
        self._beam: list[_Hyp] = [_Hyp(0, -1, 0.0, 0, -1)]
        self._order: list[int] = []  # steps in the order the best path did them
        self._flagged_missing: dict[int, int] = {}  # step -> the step it was missing before
        # Step -> the first of the steps found missing with it (told in one sentence); kept when
        # the step comes late after all.
        self._told_with: dict[int, int] = {}
        # The step read at the last caption and the deviations already raised while it went on:
        # a step over six 10-s clips is one deviation, not six.
        self._visit: tuple[int, frozenset[tuple[str, str, str]]] = (-1, frozenset())
        self.captions = 0

    # -- decoding ------------------------------------------------------------------
    def observe(self, text: str, vec: np.ndarray | None = None) -> TrackerState:
        p = self.p
        v = self._vectors.get([text])[0] if vec is None else np.asarray(vec, dtype=np.float32)
        sims = self._step_vecs @ v
        emit = sims / p.tau
        emit_none = p.none_cos / p.tau
        best: dict[tuple[int, int], _Hyp] = {}
        n = self.task.n
        for h in self._beam:
            for j in range(-1, n):
                if j < 0:
                    s = h.score + emit_none
                    key = (h.done, -1)
                else:
                    s = h.score + emit[j] + self._transition(h, j)
                    key = (h.done | 1 << j, j)
                old = best.get(key)
                if old is None or s > old.score:
                    best[key] = _Hyp(key[0], key[1], s, h.done, h.cur, *self._left(h, j))
        ranked = sorted(best.values(), key=lambda h: -h.score)[: p.beam]
        if self._presume_before_first and ranked[0].cur >= 0:
            self._presume_before_first = False
            ranked = [
                replace(h, done=h.done | self._anc[h.cur], prev_done=h.prev_done | self._anc[h.cur])
                if h.cur >= 0
                else h
                for h in ranked
            ]
        top = ranked[0].score
        # Keep scores bounded over a long session: only differences matter.
        self._beam = [replace(h, score=h.score - top) for h in ranked]
        self.captions += 1
        return self._read(text, sims)

    def _transition(self, h: _Hyp, j: int) -> float:
        p = self.p
        if j == h.cur:
            return p.stay_logp
        if h.done >> j & 1:
            return p.resume_logp if j in h.open else p.repeat_logp
        missing = self._anc[j] & ~h.done
        return p.skip_logp + p.skip_each_logp * (bin(missing).count("1") - 1) if missing else 0.0

    def _left(self, h: _Hyp, j: int) -> tuple[tuple[int, ...], bool]:
        """The steps still open after moving from `h` to `j`, and whether `j` was one of them."""
        if j == h.cur:
            return h.open, h.resumed
        left = (h.cur, *h.open) if h.cur >= 0 else h.open
        if j < 0:
            return left[: self.p.resume_steps], False
        # Beginning a step finishes what it depends on; the step itself is no longer left.
        still = tuple(i for i in left if i != j and not (self._anc[j] >> i & 1))
        return still[: self.p.resume_steps], j in h.open

    def _posterior(self) -> dict[int, float]:
        w = np.exp(np.array([h.score for h in self._beam]))
        w /= w.sum()
        post: dict[int, float] = {}
        for h, x in zip(self._beam, w, strict=True):
            post[h.cur] = post.get(h.cur, 0.0) + float(x)
        return post

    def _read(self, text: str, sims: np.ndarray) -> TrackerState:
        h = self._beam[0]
        post = self._posterior()
        order = np.argsort(-sims)
        nearest = int(order[0])
        margin = float(sims[order[0]] - sims[order[1]]) if len(order) > 1 else float(sims[order[0]])
        steps = self.task.steps
        j = h.cur
        conf = post.get(j, 0.0)
        if j >= 0 and not (h.prev_done >> j & 1) and j not in self._order:
            self._order.append(j)
        if self._visit[0] != j:
            self._visit = (j, frozenset())
        if j >= 0:
            findings = [
                *self._sequence_findings(h, conf, sims, text),
                *self._deviation_findings(j, conf, text, sims),
            ]
        elif not self._about_the_task(text):
            # Charging a battery in the middle of a recipe is no mistake in it: the wearer is
            # doing something else, and the task waits.
            findings = []
        else:
            findings = [
                Finding(
                    UNMATCHED,
                    "",
                    "",
                    post.get(-1, 0.0),
                    f'matches no step (nearest: "{steps[nearest].text}", cosine {float(sims[nearest]):.2f})',
                )
            ]
        # Steps presumed done (before a picked-up task was seen) first, then in the order done.
        presumed = [i for i in self.task.topological() if h.done >> i & 1 and i not in self._order]
        done_ids = [steps[i].id for i in [*presumed, *self._order] if h.done >> i & 1]
        still = [(i, later) for i, later in self._flagged_missing.items() if not (h.done >> i & 1)]
        available = [
            s.id for i, s in enumerate(steps) if not (h.done >> i & 1) and (self._pre[i] & ~h.done) == 0
        ]
        return TrackerState(
            task=self.task.name,
            task_title=self.task.title,
            step_id=steps[j].id if j >= 0 else "",
            step_text=steps[j].text if j >= 0 else "",
            confidence=conf,
            similarity=float(sims[j] if j >= 0 else sims[nearest]),
            margin=margin,
            done=tuple(done_ids),
            available=tuple(available),
            n_steps=self.task.n,
            findings=tuple(findings),
            missing=tuple(steps[i].id for i, _ in still),
            missing_for=tuple(steps[later].id for _, later in still),
            missing_told_with=tuple(steps[self._told_with[i]].id for i, _ in still),
            step_texts={s.id: s.text for s in steps},
        )

    def _sequence_findings(self, h: _Hyp, conf: float, sims: np.ndarray, text: str) -> list[Finding]:
        """What the step the best path is in says of the order: steps skipped before it, a step
        flagged missing that came late after all, or a step done again."""
        steps = self.task.steps
        j = h.cur
        findings: list[Finding] = []
        if h.prev_done >> j & 1:
            if j != h.prev_cur and not h.resumed and self._once[j]:
                text = f'"{steps[j].text}" was already done and began again'
                findings.append(Finding(REPEATED, steps[j].id, steps[j].text, conf, text))
            return findings
        missing = self._anc[j] & ~h.prev_done
        # Each missing step is a finding once, where it was first due; later steps that also
        # depend on it do not repeat it (the state still lists it).
        miss = [i for i in self.task.topological() if missing >> i & 1 and i not in self._flagged_missing]
        skip_margin = float(sims[j] - max(sims[i] for i in miss)) if miss else 0.0
        if skip_margin < self.p.finding_min_margin or not names_a_thing_of(steps[j].text, text):
            # Not clear enough to call them skipped now (nor by a caption that names nothing the
            # step works on); a later step that needs them may be.
            miss = []
        for i in miss:
            self._flagged_missing[i] = j
            self._told_with[i] = miss[0]
        if miss:
            findings.append(
                Finding(
                    PREREQUISITE,
                    steps[j].id,
                    steps[j].text,
                    conf,
                    f'"{steps[j].text}" began, but {_list(steps[i].text for i in miss)} '
                    f"{'is' if len(miss) == 1 else 'are'} not done and must come first",
                    missing=tuple(steps[i].text for i in miss),
                    margin=skip_margin,
                )
            )
        # A list orders only steps that share a thing (listed.py); between those, as in a graph.
        if j in self._flagged_missing:
            later = self._flagged_missing.pop(j)
            late_margin = float(sims[j] - sims[later])
            if late_margin < self.p.finding_min_margin:
                return findings
            findings.append(
                Finding(
                    ORDER,
                    steps[j].id,
                    steps[j].text,
                    conf,
                    f'"{steps[j].text}" was done after "{steps[later].text}", which it must precede',
                    missing=(steps[later].text,),
                    margin=late_margin,
                )
            )
        return findings

    def _deviation_findings(self, j: int, conf: float, text: str, sims: np.ndarray) -> list[Finding]:
        """A step the caption clearly is, done with another amount, tool or object; once while
        the step goes on (the same difference seen again on its next clip is not raised again)."""
        if conf < self.p.deviation_min_conf:
            return []
        close = sims[j] >= self.p.deviation_min_cos
        if not (close or self._told_otherwise(j, text, sims)):
            return []
        step = self.task.steps[j]
        # Another thing makes any caption far from the step, a swap or another activity alike
        # ("stirs the sauce in the pan" at "Stir fry the sliced onion in the pan"): a caption
        # known as the step only by its act tells a swap only in the step's own amount.
        things = close or same_amount(step.details, parse_details(text))
        diffs = [
            d
            for d in self.differences(j, text)
            if not self._of_another_step(j, d) and (things or d.kind not in THING_KINDS)
        ]
        seen = {(d.kind, d.expected, d.observed) for d in diffs}
        if seen <= self._visit[1]:
            return []
        self._visit = (j, self._visit[1] | seen)
        said = f"the step says {diffs[0].expected}; seen: {diffs[0].observed}"
        return [Finding(DEVIATION, step.id, step.text, conf, said, differences=tuple(diffs))]

    def _told_otherwise(self, j: int, text: str, sims: np.ndarray) -> bool:
        """Whether a caption far from the step's text is still clearly the step: the nearest step,
        doing its act in words of its own. The encoder puts "I zapped for one and a half more min"
        far from "Microwave for 1 more minute"; the verb says it is that step."""
        return (
            sims[j] >= self.p.none_cos
            and int(np.argmax(sims)) == j
            and tells_the_act(self.task.steps[j].text, text)
        )

    def _about_the_task(self, text: str) -> bool:
        """Whether a caption that matches no step names something some step names: an action on
        the task's things that is no step of it (an ingredient the recipe does not use added to
        its bowl) is worth a word; one on nothing of the task is the wearer doing something else."""
        return any(singular(w) in self._task_words for w in content_words(text))

    def _of_another_step(self, j: int, d: Difference) -> bool:
        """An ingredient seen that another step of the task names is that step's, not a swap
        at this one: the caption shows the other step (begun, or done beside this one) or was
        read as the wrong step. A swap is a thing the task does not use here or anywhere."""
        if d.kind != "ingredient":
            return False
        word = singular(d.observed.lower())
        return word not in self._step_words[j] and any(
            word in words for i, words in enumerate(self._step_words) if i != j
        )

    # -- deviations ------------------------------------------------------------------
    def differences(self, j: int, text: str) -> list[Difference]:
        step = self.task.steps[j]
        th = Thresholds(self.p.tool_same_cos, self.p.object_new_cos, self.p.object_gone_cos)
        return differences(step.text, step.details, text, self._vectors.get, self._kinds, th)

    # -- what the wearer may ask -------------------------------------------------------
    def snapshot_done(self) -> list[int]:
        h = self._beam[0]
        return [i for i in self._order if h.done >> i & 1]


def _list(items: Iterable[str]) -> str:
    xs = [f'"{x}"' for x in items]
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1]
