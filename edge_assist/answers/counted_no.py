"""A yes/no question that asks for more of a thing than memory tells: "did I chop up two
shallots?" over "Now I am cutting up one shallot" is a "No", said with that moment.

The act on the thing happened (the grounded answer found the moment), but not as many times
as asked. The counts are read the way "how many shallots did I chop?" reads them
(answers/quantities.py): "one shallot", "an egg", "2 mushrooms", added up over every moment
that tells the act on the thing, so two moments of one egg each are two eggs.

A "No" the wearer believes must be earned, so it is said only when memory could not have
missed a count:
- the moment the "Yes" rests on is one of those counted;
- no moment names more of the thing without a number: "another egg", "the other tomato",
  "the rest of the mushrooms", or the thing in the plural ("I sliced the mushrooms") in a
  moment whose own verb is the act asked (for a general act such as "use", in any moment;
  "setting the slices of tomatoes" is no slicing);
- the counts add up to fewer than asked, each exactly (a range is never contradicted).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

from edge_assist.answers import measured_no, quantities
from edge_assist.answers.meaning import caption_verbs
from edge_assist.answers.quantity_question import QuantityQuestion, parse
from edge_assist.clock import Clock
from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.details import parse_details
from edge_assist.tasks.step_phrases import singular
from edge_assist.text.action_families import same_act
from edge_assist.text.numbers import spelled

if TYPE_CHECKING:
    from edge_assist.answers.answer_record import GroundedAnswer

# Words that say there is more of the thing than one moment counted: "another egg", "the
# second tomato", "the rest of the mushrooms".
_MORE = frozenset(
    "another other others second third fourth more remaining rest both extra additional".split()
)
# How many words before the thing a word of more may stand ("the other ripe tomato").
_MORE_REACH = 3


def asked_count(focus: str) -> tuple[float, str, QuantityQuestion] | None:
    """The number of things a yes/no focus asks for (two or more), the things as said, and the
    count question it makes ("chop up two shallots" -> 2, "two shallots", how many shallots did I
    chop up), or None."""
    counts = [a for a in parse_details(focus).amounts if a.dim == "count"]
    if len(counts) != 1 or counts[0].value < 2 or counts[0].value != math.floor(counts[0].value):
        return None
    said = counts[0].text
    noun = said.split()[-1]
    rest = " ".join(focus.replace(said, " ", 1).split())
    q = parse(f"how many {noun} did I {rest}?")
    if q is None or not q.thing or q.in_units or q.times or q.dims != ("count",):
        return None
    return counts[0].value, said, q


def _speaks_of_more(q: QuantityQuestion, clip: CaptionRecord) -> bool:
    """Whether the clip names more of the thing than a number says: a word of more before it, or
    the thing in the plural with no number, in a moment that tells the act asked."""
    words = re.findall(r"[a-z]+", clip.text.lower())
    amounts = parse_details(clip.text).amounts
    counted = {w for a in amounts if a.dim == "count" for w in a.text.lower().split()}
    for i, w in enumerate(words):
        if singular(w) not in q.thing:
            continue
        if _MORE & set(words[max(0, i - _MORE_REACH) : i]):
            return True
        if w != singular(w) and w not in counted and (not q.verbs or _tells_verb(q, clip.text)):
            return True
    return False


def _tells_verb(q: QuantityQuestion, text: str) -> bool:
    """Whether the caption's own verb is the act asked: "I sliced the mushrooms" tells slicing,
    "setting the slices of tomatoes" does not."""
    return any(same_act(v, told) for _, told in caption_verbs(text) for v in q.verbs)


def count_no(focus: str, moment: Moment, clips: list[CaptionRecord]) -> str | None:
    """The "No" a count earns, said with the moments counted, or None."""
    asked = asked_count(focus)
    return None if asked is None else _count_no(asked, moment, clips)


def _count_no(
    asked: tuple[float, str, QuantityQuestion], moment: Moment, clips: list[CaptionRecord]
) -> str | None:
    value, said, q = asked
    found, _ = quantities.matches(q, clips)
    if q.action and not all(quantities.tells_act(q, f.moment.text) for f in found):
        return None  # the counts are of other acts on the thing
    if not any(f.moment.clip_index == moment.clip_index for f in found):
        return None
    total = 0.0
    for f in found:
        lo, hi = min(a.value for a in f.amounts), max(a.value for a in f.amounts)
        if lo != hi:
            return None
        total += hi
    if total >= value or any(_speaks_of_more(q, c) for c in clips):
        return None
    told = " ".join(tell(f.moment.text, f.moment.t0, "") for f in found[: quantities.TOLD])
    return f"No: {told[0].lower()}{told[1:].rstrip('.')} ({_said(total)}, not {said.split()[0]})."


def _said(n: float) -> str:
    try:
        return spelled(int(n))
    except KeyError:
        return str(int(n))


async def checked(
    ga: GroundedAnswer, focus: str, recall: Recall, clock: Clock, session_id: str | None, before_t: float
) -> tuple[str, Moment, dict[str, str]] | None:
    """The "No" a count or an amount earns for a grounded "Yes" (its text, its moment and the
    trace), or None."""
    if ga.moment is None or not ga.text.startswith("Yes") or session_id is None:
        return None
    asked, measured = asked_count(focus), None
    if asked is None and (measured := measured_no.asked_amount(focus)) is None:
        return None  # most questions: no session read
    clips, _ = await clock.run_blocking(recall.clips_in_period, session_id, -math.inf, before_t)
    clips = sorted((c for c in clips if c.t1 <= before_t + 1e-6), key=lambda c: (c.t0, c.clip_index))
    if asked is not None:
        said = _count_no(asked, ga.moment, clips)
        return None if said is None else (said, ga.moment, {"kind": "count", "observed": ga.moment.text})
    assert measured is not None
    told = measured_no.amount_no(measured, ga.moment, clips)
    return None if told is None else (told[0], told[1], {"kind": "amount", "observed": told[1].text})
