"""Who a caption says acted, taken off its clause: "The person slices the onion" and "slices the
onion" (the second clause of "The person washes it, then slices the onion") tell one action."""

from __future__ import annotations

import re

# A clause's subject before its verb: "The person", "She", "I", "C" (Ego4D's camera wearer).
SUBJECT = re.compile(r"^(?:the\s+person|the\s+wearer|someone|he|she|they|i|we|you|c)\s+", re.IGNORECASE)


def action_words(clause: str) -> list[str]:
    """The clause's words, lower case, without its subject: the verb first."""
    return re.findall(r"[a-z]+", SUBJECT.sub("", clause.strip().lower()))
