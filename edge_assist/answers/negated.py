"""An act a caption says was not done: "did I cover the ramekin when I microwaved it?" over
"nuking the ramekin mug uncovered" is a "No" said with that moment; so is "did I stir the eggs
while they were in the microwave?" over "zapping for two minutes, no stirring".

The caption must say the asked act was not done ("uncovered", "no stirring", "without
stirring", "not stirring") of the thing asked about, or of the act the question's own clause
names ("while they were in the microwave", "halfway through microwaving": the caption tells the
microwaving). And no moment among those found may tell the act as done on the thing: a caption
that says it is the answer. A caption that says "not" within the clause's stretch (from the
first to the last moment found telling the clause's act) speaks of that stretch only, so only a
moment within it can say otherwise: the egg beaten before it went into the microwave was not
stirred while in it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from edge_assist.answers import meaning, thing_naming
from edge_assist.answers.put_into import coats
from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import Moment
from edge_assist.text.action_families import ANY_ACT, APPLIANCE_ACTS, BROAD, covers_act, known
from edge_assist.text.negation import not_done

# The clause a question times its act by: "while they were in the microwave", "when I microwaved it".
_CLAUSE = re.compile(
    r"\s+\b(?:while|when|whilst|as|once|during|(?:half|part|mid)(?:\s*way|-way)\s+through|in\s+the\s+middle\s+of)"
    r"\b\s+(.+)$",
    re.I,
)
_WORD = re.compile(r"[a-z]+")


def _negated(verb: str, caption: str) -> bool:
    """Whether the caption says the act `verb` was not done."""
    # the asked verb itself: "uncovered" says no lid, not that nothing was greased
    return any(base == verb for base, _ in not_done(caption))


def _clause_acts(clause: str) -> set[str]:
    """The acts a question's clause names: its verbs, and the act of an appliance it names."""
    words = _WORD.findall(clause.lower())
    acts = {APPLIANCE_ACTS[w] for w in words if w in APPLIANCE_ACTS}
    acts |= {b for w in words if (b := meaning.verb_base(w)) is not None and known(b) and b not in BROAD}
    return acts


def _tells_done(verb: str, things: list[str], caption: str) -> bool:
    """Whether the caption tells the act as done, on every thing asked (a coat of spray is no lid)."""
    if things and not all(thing_naming.thing_in(t, caption) for t in things):
        return False
    words = meaning.tokens(caption)
    for i, told in meaning.caption_verbs(caption):
        if covers_act(verb, told) and not (told == "cover" and coats(words, i)):
            return True
    return False


def negated_no(focus: str, found: Sequence[Moment]) -> tuple[str, Moment] | None:
    """The "No" a moment that says the asked act was not done earns, and that moment; or None."""
    clause_m = _CLAUSE.search(focus)
    main = focus[: clause_m.start()] if clause_m else focus
    asked = meaning.parse(main, verb_first=True)
    verb = asked.verb.lower()
    if not verb or not known(verb) or verb in BROAD or verb in ANY_ACT:
        return None
    things = meaning.things(main, verb_first=True)
    acts = _clause_acts(clause_m.group(1)) if clause_m else set()
    stretch = _stretch(acts, found)
    done = [m for m in found if _tells_done(verb, things, m.text)]
    for m in found:
        if not _negated(verb, m.text):
            continue
        if stretch is not None and stretch[0] <= m.t0 and m.t1 <= stretch[1]:
            # said of the clause's stretch: only a moment within it tells otherwise
            if any(d.t1 > stretch[0] and d.t0 < stretch[1] for d in done):
                continue
        elif not things or done or not all(thing_naming.thing_in(t, m.text) for t in things):
            continue
        said = tell(m.text, m.t0, m.note)
        return f"No: {said[0].lower()}{said[1:]}", m
    return None


def _stretch(acts: set[str], found: Sequence[Moment]) -> tuple[float, float] | None:
    """From the first to the last found moment telling an act of the question's clause, or None."""
    told = [m for m in found if any(covers_act(a, t) for a in acts for _, t in meaning.caption_verbs(m.text))]
    return (min(m.t0 for m in told), max(m.t1 for m in told)) if told else None
