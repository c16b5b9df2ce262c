"""A yes/no question that names an amount memory tells otherwise: "did I microwave it for a
minute the first time?" over "nuking the mug for twenty secs" is "No: ... (twenty secs, not a
minute)", and "did I add three tablespoons of salsa?" over "two tbsp of salsa" likewise.

The act on the thing happened (the grounded answer found the moment), with another amount. The
amounts are read as "how long did I microwave it the first time?" and "how much salsa did I add?"
read them (answers/quantities.py), in the dimension asked (a time, a volume, a mass), and compared
in one unit ("2 tbsp" is "two tablespoons"). A "No" the wearer believes must be earned, so it is
said only when:
- the moment the "Yes" rests on is one of those measured;
- every moment measured tells its amount exactly in the dimension asked (no range, no moment of
  the act without one);
- the amount asked is neither the amount of any one of those moments nor their sum ("did I
  microwave it for a minute?" over three rounds of 20, 10 and 30 seconds is a "Yes").
"""

from __future__ import annotations

import re

from edge_assist.answers import quantities
from edge_assist.answers.quantity_question import QuantityQuestion, bounded, parse
from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import CaptionRecord, Moment
from edge_assist.tasks.details import Amount, parse_details

_MEASURED = ("time", "volume", "mass")
# Where the thing ends and what follows it begins: "salsa | to the mug"
_PREPS = frozenset("to in into on onto over with for from at".split())
# A "for" the amount leaves behind: "microwave it for | the first time"
_LEFT_FOR = re.compile(r"\bfor\s+(?=(?:the\s+)?(?:first|second|last|at)\b|$)")
# Two amounts are one when they differ by less than this share ("1 tbsp" is 14.8 ml, "15 ml").
_SAME = 0.06


def asked_amount(focus: str) -> tuple[Amount, QuantityQuestion] | None:
    """The one amount a yes/no focus names (a time, a volume, a mass) and the quantity question
    it makes, or None."""
    amounts = parse_details(focus).amounts
    if len(amounts) != 1 or amounts[0].dim not in _MEASURED:
        return None
    a = amounts[0]
    rest = " ".join(focus.replace(a.text, " ", 1).split())
    if a.dim == "time":
        q = parse(f"how long did I {_LEFT_FOR.sub('', rest).strip()}?")
    else:
        verb, *after = rest.split() or [""]
        after = after[1:] if after[:1] == ["of"] else after
        cut = next((i for i, w in enumerate(after) if w in _PREPS), len(after))
        if not verb or cut == 0:
            return None
        q = parse(f"how much {' '.join(after[:cut])} did I {verb} {' '.join(after[cut:])}".strip() + "?")
    if q is None or q.times or a.dim not in q.dims or not (q.thing or q.verbs):
        return None
    return a, q


def amount_no(
    asked: tuple[Amount, QuantityQuestion], moment: Moment, clips: list[CaptionRecord]
) -> tuple[str, Moment] | None:
    """The "No" an amount earns, said with the moments measured, and the first of them; or None."""
    a, q = asked
    found, _ = quantities.matches(q, bounded(q, clips))
    if not found or not any(f.moment.clip_index == moment.clip_index for f in found):
        return None
    if q.action and not all(quantities.tells_act(q, f.moment.text) for f in found):
        return None  # the amounts are of other acts on the thing
    found = quantities.asked_time(q, found)
    spans = []
    for f in found:
        values = [x.value for x in f.amounts if x.dim == a.dim]
        if not values or min(values) != max(values):
            return None
        spans.append(values[0])
    if any(_same(v, a.value) for v in [*spans, sum(spans)]):
        return None
    told = " ".join(tell(f.moment.text, f.moment.t0, "") for f in found[: quantities.TOLD])
    seen = found[0].amounts[0].text if len(found) == 1 else f"{quantities.total(found, q)} in all"
    c = found[0].moment
    said = f"No: {told[0].lower()}{told[1:].rstrip('.')} ({seen}, not {a.text})."
    return said, Moment.of_clip(c, 1.0)


def _same(x: float, y: float) -> bool:
    return abs(x - y) <= _SAME * max(abs(x), abs(y))
