""" "Did I forget to add the salt?": the question about the act, with its answer turned round.

A wearer asks about what they may have left out as often as about what they did. The
answer rests on the same evidence as "did I add the salt?": a moment that tells the act
means "No, you didn't forget", an earned "No" (nothing in memory that covers the time names
the salt) means "Yes", and "I don't remember" stays what it is. Questions about anything
left out at all ("did I forget anything?") are the task tracker's, not this.
"""

from __future__ import annotations

import re

from edge_assist.reasoning.answer_text import DONT_REMEMBER
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, lexical_kind
from edge_assist.text.verb_forms import is_verb

_FORGOT = re.compile(
    r"^(?:did|have|had)\s+(?:i|you)\s+(?:forget|forgot|forgotten|miss|missed|skip|skipped|leave out|left out)"
    r"(?:\s+to)?\s+(?P<rest>.+?)[?.!]*$",
    re.I,
)
_ANY = re.compile(r"^(?:anything|something|any\s+steps?|a\s+step|one|some\s+steps?)\b", re.I)


# "did I salt the cucumber, or did I forget?": the act, with leaving it out as the other choice
_OR_FORGOT = re.compile(
    r"^(?P<act>(?:did|have|had)\s+(?:i|you)\s+.+?),?\s+or\s+(?:did|have|had)\s+(?:i|you)\s+"
    r"(?:forget|forgot|forgotten|skip|skipped|miss|missed)(?:\s+(?:it|them|to|that))?[?.!]*$",
    re.I,
)


def inner(question: str) -> str | None:
    """The question about the act itself ("did I add the salt?"), or None when `question` is not
    one about a thing left out."""
    if (alt := _OR_FORGOT.match(" ".join(question.split()))) is not None:
        return f"{alt.group('act')}?"
    m = _FORGOT.match(" ".join(question.split()))
    if m is None or _ANY.match(m.group("rest")):
        return None
    rest = m.group("rest")
    words = rest.split()
    if is_verb(words[0].lower()):
        return f"did I {rest}?"
    head = re.sub(r"[^a-z]", "", words[-1].lower())
    # "did I forget the salt?": an ingredient is added; any other thing is not asked about here
    material = MATERIAL in (lexical_kind(head), lexical_kind(singular(head)))
    return f"did I add {rest}?" if material else None


def turned(answer: str) -> str:
    """The answer to "did I X?" said as the answer to "did I forget to X?"."""
    if answer.startswith("Yes"):
        return "No, you didn't forget: " + _rest(answer)
    if answer.startswith("No") and answer != DONT_REMEMBER:
        return "Yes, it looks like it: " + _rest(answer)
    return answer


def _rest(answer: str) -> str:
    rest = re.sub(r"^(?:Yes|No)\b[.,:]?\s*", "", answer)
    return rest[:1].lower() + rest[1:] if rest[:2] != rest[:2].upper() else rest
