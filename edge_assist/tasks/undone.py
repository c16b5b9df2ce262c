"""A part of the step the caption says was not done: "I zapped the dish, uncovered, ..." at
"Microwave the plate, covered, ...", "nuking for two mins, no stirring in between" at "Microwave
for 3 minutes, stirring in between", "one medium onion, and don't peel it" at "Peel 1 medium
onion". Only the step's own acts count: its first verb and the ones it says as a participle
("covered", "stirring"); "unsalted butter" at "Add 1/3 tsp salt" negates no act of that step.
"""

from __future__ import annotations

import re

from edge_assist.tasks.details import NOT_DONE, Difference
from edge_assist.text.action_families import said_as_verbs
from edge_assist.text.negation import not_done
from edge_assist.text.verb_forms import present_participle

_WORD = re.compile(r"[a-z]+")


def _step_acts(step_text: str) -> dict[str, str]:
    """The step's acts by base form, each with the word the step says it in."""
    acts: dict[str, str] = {}
    for w, base in said_as_verbs(_WORD.findall(step_text.lower())):
        acts.setdefault(base, w)
    return acts


def undone_parts(step_text: str, caption: str) -> list[Difference]:
    """The first of the step's acts the caption says was not done, as a difference."""
    acts = _step_acts(step_text)
    for base, words in not_done(caption):
        if base in acts:
            told = words.lower() if words.lower().startswith("un") else f"no {present_participle(base)}"
            return [Difference(NOT_DONE, acts[base], told)]
    return []
