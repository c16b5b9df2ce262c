"""What the wearer was doing, told from memory when no task the library knows is under way:
"what was I making?" on an ordinary day is answered by what the clips show most ("you fried the
noodles, you cut the cabbage ..."), not by "no task", which the wearer would hear as "you were
making nothing".

The activities are the captions' clauses, counted over the clips memory holds up to the time
asked; the most told come first, each naming something the ones before it did not, so three
clauses about one pan of noodles do not crowd out the cabbage.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from edge_assist.answers.activity_span import clauses
from edge_assist.reasoning import answer_text
from edge_assist.retrieval.api import CaptionRecord
from edge_assist.tasks.word_kinds import OTHER, TOOL, is_verb_form, lexical_kind
from edge_assist.text.caption_subject import action_words
from edge_assist.text.stop_words import ANSWER_STOP_WORDS

TOLD = 3  # activities told
UNKNOWN_TASK = "It is no task I know."
# Words of a clause that name no thing it is about.
_NOT_THINGS = frozenset("person wearer someone water".split())


def _things(clause: str) -> frozenset[str]:
    """The words of a clause that may name what it is about: no verb, tool or function word."""
    words = action_words(clause)[1:]  # the verb leads the clause
    return frozenset(
        w
        for w in words
        if len(w) > 2
        and w not in ANSWER_STOP_WORDS
        and w not in _NOT_THINGS
        and not w.endswith("ly")
        and lexical_kind(w) not in (TOOL, OTHER)
        and not is_verb_form(w)
    )


def mostly(clips: Sequence[CaptionRecord], top: int = TOLD) -> list[str]:
    """The activities the clips tell most, as clauses in the caption's words, each with a thing
    the ones before it do not name."""
    counts: Counter[str] = Counter()
    said: dict[str, str] = {}
    for c in clips:
        for clause in dict.fromkeys(clauses(c.text)):  # a clause once per clip: its time, not its words
            key = " ".join(action_words(clause))
            if key:
                counts[key] += 1
                said.setdefault(key, clause)
    out: list[str] = []
    named: set[str] = set()
    for key, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        things = _things(key)
        if not things or things <= named:
            continue
        out.append(said[key])
        named |= things
        if len(out) == top:
            break
    return out


def _as_seen(clause: str) -> str:
    """A clause whose verb the wearer's voice does not know, as it was seen."""
    c = clause.rstrip(".")
    return f"I saw {c[0].lower()}{c[1:]}"


def told(clips: Sequence[CaptionRecord]) -> str | None:
    """ "It is no task I know. What I saw most: you fried the noodles, ... and ...", or None when
    memory holds nothing to tell."""
    acts = [answer_text.second_person(a.rstrip(".")) or _as_seen(a) for a in mostly(clips)]
    if not acts:
        return None
    listed = acts[0] if len(acts) == 1 else f"{', '.join(acts[:-1])} and {acts[-1]}"
    return f"{UNKNOWN_TASK} What I saw most: {listed}."
