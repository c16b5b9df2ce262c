"""Template questions said the way people speak, to train the answer gate on wording that is not
the template's: a lead-in, a hedge or a tag of the asker's own words around what is asked ("um,
did I chop the onion back then?", "sorry, when exactly did I add the salt earlier?").

The words are generic speech, not read from any question file; which of them a question gets is
fixed by its id, so a training run is repeatable. What is asked is left as it was: the moment the
question is about stays the same.
"""

from __future__ import annotations

import hashlib
import re

LEADS = ("", "um, ", "hey, ", "so ", "okay so ", "wait, ", "quick one: ", "sorry, ")
TAGS = (
    "",
    " at some point",
    " earlier",
    " again",
    " by any chance",
    " back then",
    " I think",
    " or not",
    " just now",
    " in the end",
    " today",
    " there",
)
INSIDE = (
    (r"^(did i) ", r"\1 actually "),
    (r"^(when) did i ", r"\1 exactly did I "),
    (r"^(did i) ", r"\1 go and "),
    (r"^(when) did i ", r"\1 was it that I "),
)


def restyle(text: str, key: str) -> str:
    """`text` with a lead-in, a tag and sometimes a hedge inside, chosen by `key`; never the same
    words as `text`."""
    h = int(hashlib.sha1(key.encode()).hexdigest(), 16)
    body = text.rstrip("?").strip()
    lead, tag = LEADS[h % len(LEADS)], TAGS[(h // len(LEADS)) % len(TAGS)]
    if (h // (len(LEADS) * len(TAGS))) % 3 == 0:
        pat, rep = INSIDE[(h // (3 * len(LEADS) * len(TAGS))) % len(INSIDE)]
        body = re.sub(pat, rep, body, count=1, flags=re.I)
    if not lead and not tag:
        tag = " earlier"
    return lead + (body[:1].lower() + body[1:] if lead else body) + tag + "?"
