"""Acts a sentence says were not done: "no stirring", "without stirring", "not stirring",
"uncovered", "but don't heat", "doesn't peel it"."""

from __future__ import annotations

import re
from collections.abc import Iterator

from edge_assist.text.action_families import verb_base

NOT_DONE = re.compile(
    r"\b(?:no|without|not|never)\s+([a-z]+ing)\b|\bun([a-z]+ed)\b"
    r"|\b(?:don't|do\s+not|didn't|did\s+not|doesn't|does\s+not)\s+([a-z]+)\b",
    re.I,
)


def not_done(text: str) -> Iterator[tuple[str, str]]:
    """Each act the text says was not done: (its verb's base form, the words that say so)."""
    for m in NOT_DONE.finditer(text):
        base = verb_base(m.group(1) or m.group(2) or m.group(3))
        if base is not None:
            yield base, m.group(0)
