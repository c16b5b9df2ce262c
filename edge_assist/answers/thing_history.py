"""What was done with a thing: "what did I do with the spring onions?", "what did I do with my
keys?".

The question names no act, so no one moment answers it: the spring onions were taken from the
fridge, washed, sliced and put in the pot, and the wearer asking wants that story, or its end
(where the keys went). The answer gate ranks moments by how well they tell an act, and the model
would pick one of them. So the question is answered from the session's clips instead: every
clause that names the thing (`thing_naming.thing_in`: in any number, or by a member of a general
word), in time order, a run of clips telling the same act told once at its start. Up to
`TOLD` acts are said; with more, the first ones and the last (where the thing ended up).

A question about another day, one with a clause of its own ("what did I do with the dough once
it was mixed?") or one that only points ("with it": the conversation resolves that first) is not
read here. A thing no clip of this session names leaves the question to the answer gate.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from edge_assist.answers import activity_span, meaning, run_length, thing_naming
from edge_assist.clock import Clock
from edge_assist.reasoning.answer_text import names_past_day, tell
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall

# Acts told one by one; of more, the first TOLD - 1 and the last.
TOLD = 4

_ASKS = re.compile(
    r"^(?:(?:and|so|ok(?:ay)?|then)[\s,]+)*what\s+(?:did|have|had)\s+(?:i|you|we)\s+(?:do|done)\s+with\s+(?P<thing>.+)$",
    re.I,
)
# A clause or a time of its own: another question ("... with it next?", "... once it was mixed?").
_OWN_CLAUSE = re.compile(
    r"\b(?:after|before|once|when|while|until|till|then|next|first|last|second|yesterday|"
    r"it|them|that|this|those|these|there)\b",
    re.I,
)
_PAD = re.compile(r"\s+(?:today|earlier|so\s+far|in\s+the\s+end|at\s+all)$", re.I)


@dataclass(frozen=True)
class Told:
    """One act on the thing: the clip where its run starts, and the clause that tells it there."""

    clip: CaptionRecord
    clause: str


def asked_thing(question: str) -> str | None:
    """The thing "what did I do with X?" asks about, as said ("the spring onions"), or None."""
    q = " ".join(question.replace("’", "'").split()).rstrip("?.! ")
    m = _ASKS.match(q)
    if m is None or names_past_day(q):
        return None
    thing = _PAD.sub("", m.group("thing"))
    if _OWN_CLAUSE.search(thing) or len(thing.split()) > 4:
        return None
    return thing


def history(thing: str, clips: Sequence[CaptionRecord]) -> list[Told]:
    """The acts on `thing` the clips tell, in time order, a run of one act told once."""
    things = meaning.things(f"do with {thing}", verb_first=True)
    if not things:
        return []
    said = re.sub(r"^(?:the|my|some|a|an|that|those|these|this)\s+", "", thing.lower().strip())
    # a name of several words, matched as whole words; a one-word name is read by thing_in below
    as_said = re.compile(rf"\b{re.escape(said)}\b" if " " in said else r"(?!)", re.I)
    out: list[Told] = []
    last_act: tuple[frozenset[str], frozenset[str]] | None = None
    for c in sorted(clips, key=lambda c: (c.t0, c.clip_index)):
        for k, clause in enumerate(activity_span.clauses(c.text) or [c.text]):
            # "peanut butter" said as asked names it, though "peanut" alone before "butter" does not
            if not as_said.search(clause) and not all(thing_naming.thing_in(t, clause) for t in things):
                continue
            act = run_length.act_of(clause)
            if last_act is None or not run_length.alike(act, last_act):
                out.append(Told(c, clause if k == 0 else activity_span.with_subject(c.text, clause)))
            last_act = act
    return out


def compose(acts: Sequence[Told]) -> str:
    shown = list(acts) if len(acts) <= TOLD else [*acts[: TOLD - 1], acts[-1]]
    said = [tell(a.clause, a.clip.t0).rstrip(".") for a in shown]
    parts = [said[0], *(s[0].lower() + s[1:] for s in said[1:])]
    if len(parts) == 1:
        return f"{parts[0]}."
    last = "and last" if len(acts) > TOLD else "then"
    return f"{'; '.join(parts[:-1])}; {last} {parts[-1]}."


async def answer(
    recall: Recall, clock: Clock, question: str, before_t: float, session_id: str | None
) -> tuple[str, Moment, list[Moment]] | None:
    """What was done with the thing asked about in this session: the answer, the moment of the
    last act (where the thing was left) and the moments told; None when not asked or not seen."""
    thing = asked_thing(question)
    if thing is None or session_id is None:
        return None
    clips, _ = await clock.run_blocking(recall.clips_in_period, session_id, 0.0, before_t)
    acts = history(thing, [c for c in clips if c.t1 <= before_t + 1e-6])
    if not acts:
        return None
    moments = [Moment.of_clip(a.clip, 1.0) for a in acts]
    return compose(acts), moments[-1], moments
