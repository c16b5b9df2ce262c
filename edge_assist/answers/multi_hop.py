"""Questions that follow the entity graph two hops: "what was on the tray I carried?", "what did I
use the red bowl with?".

No single caption answers these: the tray is carried in one clip and the mug was put on it
in another, the bowl and the whisk are named by the clips the bowl was seen in. Retrieval
follows the graph (`retrieval/relations.py`, Kùzu) and hands back the things it reached
with the clips that link them; the answer is composed from those, in the second person with
the time of the moment it rests on, never written by a model. A question of another shape,
or one the graph finds nothing for, returns None: the grounded answer takes it as before.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from edge_assist.clock import Clock
from edge_assist.reasoning.answer_text import past_tense, when_text
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.relations import Found, Relations

# "what was on the tray (that) I carried", "what was in the box", "what were on top of the tray"
_ON = re.compile(
    r"^(?:what|which things?)\s+(?:was|were|is|are)\s+(on top of|on|in|inside)\s+(?:the|my|a|an|that)\s+"
    r"(.+?)(?:\s+(?:that\s+|which\s+)?(?:i|you)\s+([a-z]+)(?:\s.*)?)?$"
)
# "what did I use the red bowl with", "what did I use with the red bowl"
_WITH = (
    re.compile(
        r"^what\s+(?:else\s+)?did\s+(?:i|you)\s+use\s+(?:the|my|a|an)\s+(.+?)\s+(?:together\s+)?with$"
    ),
    re.compile(r"^what\s+(?:else\s+)?did\s+(?:i|you)\s+use\s+(?:together\s+)?with\s+(?:the|my|a|an)\s+(.+)$"),
)
PREPS = {"on": frozenset({"on", "onto"}), "in": frozenset({"in", "into", "inside"})}


@dataclass(frozen=True)
class Asked:
    kind: str  # "on" (what was on or in it), "with" (what it was used with)
    anchor: str  # the thing the question names ("tray", "red bowl")
    prep: str = ""  # "on" or "in", for kind "on"
    verb: str = ""  # what the wearer did with it ("carried"); "" when the question says nothing


@dataclass
class MultiHopAnswer:
    text: str
    moment: Moment  # what the answer rests on: the act, or the latest clip shared
    evidence: list[Moment] = field(default_factory=list)
    timings_s: dict[str, float] = field(default_factory=dict)
    trace: dict[str, Any] = field(default_factory=dict)


def parse(question: str) -> Asked | None:
    """The question's shape, or None for a question this module does not answer."""
    q = " ".join(question.lower().split()).rstrip("?.! ")
    m = _ON.match(q)
    if m:
        prep = "on" if m.group(1).startswith("on") else "in"
        return Asked("on", m.group(2), prep, m.group(3) or "")
    for pattern in _WITH:
        if w := pattern.match(q):
            return Asked("with", w.group(1))
    return None


def _bases(word: str) -> set[str]:
    """Base forms a caption's word may have ("carries" -> carry, "brings" -> bring, "using" -> use)."""
    out = {word}
    if word.endswith("ies"):
        out.add(word[:-3] + "y")
    if word.endswith("es"):
        out.add(word[:-2])
    if word.endswith("s"):
        out.add(word[:-1])
    if word.endswith("ing"):
        out |= {word[:-3], word[:-3] + "e"}
    return out


def tells(verb: str) -> Callable[[str], bool]:
    """Whether a caption tells the act of `verb` (past or present: "carried", "carry") in any form."""
    v = verb.lower()

    def did(caption: str) -> bool:
        for w in re.findall(r"[a-z]+", caption.lower()):
            bases = _bases(w)
            if v in bases or any(past_tense(b) == v for b in bases):
                return True
        return False

    return did


def _listed(names: Sequence[str]) -> str:
    said = [f"the {n}" for n in names]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def compose(asked: Asked, found: Found) -> str:
    """'At 2:10, the tray you carried had the mug and the bowl on it.' / 'At 1:40 you used the
    red bowl with the eggs and the whisk.'"""
    when = when_text(found.moment.t0, found.moment.note)
    things = _listed(found.things)
    if asked.kind == "with":
        return f"{when} you used the {found.anchor} with {things}."
    who = f" you {asked.verb}" if asked.verb else ""
    return f"{when}, the {found.anchor}{who} had {things} {asked.prep} it."


async def answer(
    relations: Relations,
    clock: Clock,
    question: str,
    *,
    before_t: float,
    session_id: str | None = None,
    past_sessions: bool = False,
) -> MultiHopAnswer | None:
    """The answer composed from what the graph links to the thing asked about, or None."""
    asked = parse(question)
    if asked is None:
        return None
    started = time.perf_counter()
    if asked.kind == "with":
        found = await clock.run_blocking(
            lambda: relations.used_with(
                [asked.anchor], before_t=before_t, session_id=session_id, past_sessions=past_sessions
            )
        )
    else:
        found = await clock.run_blocking(
            lambda: relations.on_it(
                [asked.anchor],
                did=tells(asked.verb) if asked.verb else None,
                preps=PREPS[asked.prep],
                before_t=before_t,
                session_id=session_id,
                past_sessions=past_sessions,
            )
        )
    if found is None:
        return None
    text = compose(asked, found)
    trace = {
        "answerer": "multi_hop",
        "asked": [asked.kind, asked.anchor, asked.prep, asked.verb],
        "things": list(found.things),
        "evidence": [[m.session_id, m.clip_index, m.text] for m in found.evidence],
        "composed": text,
    }
    return MultiHopAnswer(
        text, found.moment, list(found.evidence), {"graph": time.perf_counter() - started}, trace
    )
