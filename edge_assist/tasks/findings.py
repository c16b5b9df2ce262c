"""What the tracker found at one caption, as typed data: the step in progress, the done set,
what is available next, and findings with their evidence. The reasoner's prompt, the
trace, the HUD and (next) the intervention gate all read these, never free text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from edge_assist.tasks.details import Difference

# Finding kinds, in the order a correction is most due.
PREREQUISITE = "prerequisite_missing"  # a step began whose prerequisites (by the graph) are not done
ORDER = "order_violation"  # a step was done after a step it must precede
REPEATED = "repeated_step"  # a step already done (and finished) began again
DEVIATION = "deviation"  # the caption matches a step but differs in an amount, setting, tool or object
UNMATCHED = "unmatched_action"  # an action that matches no step of the task
KINDS = (PREREQUISITE, ORDER, REPEATED, DEVIATION, UNMATCHED)
MAX_NAMED_MISSING = 3  # a skip alert names at most this many steps ("and 4 more steps" after two)


@dataclass(frozen=True)
class Finding:
    kind: str
    step_id: str  # the step it is about ("" for an unmatched action)
    step_text: str
    confidence: float  # posterior of the step assignment it rests on, 0..1
    evidence: str  # one readable sentence: what was seen against what the task says
    missing: tuple[
        str, ...
    ] = ()  # prerequisite texts not done (PREREQUISITE), or the steps it came after (ORDER)
    differences: tuple[Difference, ...] = ()  # DEVIATION
    # PREREQUISITE and ORDER: encoder cosine of the caption to the step it was read as, minus its
    # cosine to the nearest of the steps the finding names. A caption that fits a missing step
    # nearly as well as the step read ("heats butter in the pan": "Heat a pan", or the listed
    # "Cook sausages in a pan" it was part of) may be that step itself: the finding is doubtful.
    margin: float = 0.0

    def to_json(self) -> dict:
        out: dict = {
            "kind": self.kind,
            "step": self.step_id,
            "step_text": self.step_text,
            "confidence": round(self.confidence, 3),
            "evidence": self.evidence,
        }
        if self.missing:
            out["missing"] = list(self.missing)
        if self.kind in (PREREQUISITE, ORDER):
            out["margin"] = round(self.margin, 3)
        if self.differences:
            out["differences"] = [d.to_json() for d in self.differences]
        return out

    def say(self) -> str:
        """A template sentence for the wearer (the LLM may phrase it better; never decides it).

        Each names the step(s) it is about and what differs, in that order: "this step" alone
        leaves the wearer to guess which one, and a glance at the HUD must be enough."""
        if self.kind == PREREQUISITE and self.missing:
            return skipped_sentence(self.missing[0], before=self.step_text, also=self.missing[1:])
        if self.kind == ORDER and self.missing:
            step, missing = _short(self.step_text), _short(self.missing[0])
            return f'"{step}" was meant to come before "{missing}", not after it.'
        if self.kind == DEVIATION and self.differences:
            d = self.differences[0]
            said = d.say()
            return f'{said[:1].upper()}{said[1:]}? The step says "{_short(self.step_text)}".'
        if self.kind == REPEATED:
            return f'You already did "{_short(self.step_text)}" earlier.'
        return "That does not look like a step of this task."


def skipped_sentence(step_text: str, before: str = "", also: Sequence[str] = ()) -> str:
    """One wording for missing steps: the first named, with the others found missing before the
    same step (`also`) told in the same sentence, so that a reminder of one of them later is
    not news to the wearer. A second alert about the same step is nearly the same advice, which
    the intervention policy holds back as a repeat (encoder cosine)."""
    names = [f'"{_short(t)}"' for t in (step_text, *also)]
    if len(names) > MAX_NAMED_MISSING:
        more = len(names) - MAX_NAMED_MISSING + 1
        names = [*names[: MAX_NAMED_MISSING - 1], f"{more} more steps"]
    said = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    it = "It comes" if len(also) == 0 else "They come"
    where = f'"{_short(before)}"' if before else "this step"
    return f"Did you skip {said}? {it} before {where}."


def _short(text: str, n: int = 60) -> str:
    text = text.strip().rstrip(".")
    if len(text) <= n:
        return text
    cut = text[:n].rsplit(" ", 1)[0]
    return cut + "…"


@dataclass(frozen=True)
class TrackerState:
    """The tracker's reading after one caption."""

    task: str  # library name
    task_title: str
    step_id: str  # the step in progress ("" when the caption matches no step)
    step_text: str
    confidence: float  # posterior of that assignment
    similarity: float  # encoder cosine of the caption to that step (or to the nearest step)
    margin: float  # cosine to the best step minus cosine to the second best
    done: tuple[str, ...]  # step ids done, in the order they were done
    available: tuple[str, ...]  # step ids not done whose prerequisites are all done
    n_steps: int
    findings: tuple[Finding, ...] = ()
    missing: tuple[str, ...] = ()  # step ids found missing (a later step began without them), still not done
    # For each of `missing`, the id of the step that began without it: the one it "comes before".
    missing_for: tuple[str, ...] = ()
    # For each of `missing`, the id of the first step found missing with it: the alert that
    # reported them named it first, and a reminder of the others is that same advice.
    missing_told_with: tuple[str, ...] = ()
    task_confidence: float = 1.0  # how sure recognition is of the task (1 when the stream named it)
    step_texts: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def k(self) -> int:
        return len(self.done)

    def text_of(self, sid: str) -> str:
        return self.step_texts.get(sid, sid)

    def missing_sentence(self) -> str:
        """ "Did you skip X? It comes before Y." for the first step still missing, Y the step that
        began without it: the step in progress now may be another, one X need not precede."""
        if not self.missing:
            return ""
        if not self.missing_for:
            return skipped_sentence(self.text_of(self.missing[0]))
        before = self.missing_for[0]
        group = [self.text_of(m) for m, b in zip(self.missing, self.missing_for, strict=True) if b == before]
        return skipped_sentence(group[0], before=self.text_of(before), also=group[1:])

    def to_json(self) -> dict:
        return {
            "task": self.task,
            "task_confidence": round(self.task_confidence, 3),
            "step": self.step_id,
            "step_text": self.step_text,
            "confidence": round(self.confidence, 3),
            "similarity": round(self.similarity, 3),
            "margin": round(self.margin, 3),
            "done": list(self.done),
            "available": list(self.available),
            "k": self.k,
            "n": self.n_steps,
            "missing": list(self.missing),
            "missing_for": list(self.missing_for),
            "missing_told_with": list(self.missing_told_with),
            "findings": [f.to_json() for f in self.findings],
        }

    def hud_text(self) -> str:
        """`3/11 Cut the muffin…`: where the wearer is, for the glasses' status line."""
        now = _short(self.step_text, 40) if self.step_text else "—"
        return f"{self.k}/{self.n_steps} {now}"

    def prompt_text(self) -> str:
        lines = [f"Task: {self.task_title} ({self.k} of {self.n_steps} steps done)"]
        lines.append("Done: " + ("; ".join(_short(self.text_of(s), 50) for s in self.done) or "(none)"))
        lines.append(
            "Next possible: "
            + ("; ".join(_short(self.text_of(s), 50) for s in self.available[:3]) or "(none)")
        )
        if self.step_text:
            lines.append(f"NOW is the step: {_short(self.step_text, 70)} (confidence {self.confidence:.2f})")
        else:
            lines.append("NOW matches no step of the task.")
        if self.missing:
            lines.append("Still missing: " + "; ".join(_short(self.text_of(s), 50) for s in self.missing))
        for f in self.findings:
            lines.append(f"Finding ({f.kind.replace('_', ' ')}): {f.evidence}")
        return "\n".join(lines)
