"""Goal-Step annotations in a captioner's words: "The person adds the flour, then removes the dough."

Annotators wrote steps as imperatives ("Add salt to mixture"), narrations ("stirs rice with
spatula") or gerunds ("Adding cabbage to the vegetables"), with stray capitals. A captioner
on glasses writes one style: third person, present tense, lower case. The rules here are
fixed and seeded by nothing: the same annotation always gives the same sentence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from edge_assist.text.verb_forms import base_of_third_person

SUBJECT = "The person"
# Annotators' placeholders: they say nothing a captioner could have seen.
PLACEHOLDERS = frozenset({"", "unspecified", "unsure", "n/a", "none", "other"})
# Adverb-verb pairs whose first word is not the verb ("pan fry" -> "pan-fries").
COMPOUND_VERBS = frozenset({"deep fry", "pan fry", "stir fry", "air fry", "shallow fry", "pan sear"})
# Annotation typos whose literal reading changes the meaning ("Dy cooking utensils" is not dying).
TYPOS = {"dy": "dry", "untill": "until", "untensil": "utensil", "untensils": "utensils"}
_SPACE = re.compile(r"\s+")


def third_person(verb: str) -> str:
    """ "add" -> "adds", "wash" -> "washes", "fry" -> "fries", "stir-fry" -> "stir-fries"."""
    v = verb.lower()
    if v in ("be", "have"):
        return {"be": "is", "have": "has"}[v]
    if v.endswith(("s", "sh", "ch", "x", "z", "o")):
        return v + "es"
    if len(v) > 1 and v.endswith("y") and v[-2] not in "aeiou":
        return v[:-1] + "ies"
    return v + "s"


def _is_third_person(word: str) -> bool:
    w = word.lower()
    return w.endswith("s") and not w.endswith(("ss", "us", "is")) and base_of_third_person(w) != w


def _lower(word: str) -> str:
    """Title-case annotation words lowered ("Potatoes" -> "potatoes"); acronyms kept ("TV")."""
    return word if len(word) > 1 and word.isupper() else word.lower()


def clause(description: str) -> str:
    """One annotation as a verb phrase in the third person ("Add salt" -> "adds salt"); "" for a
    placeholder that says nothing."""
    text = _SPACE.sub(" ", description.replace("\n", " ")).strip().rstrip(".;,")
    if text.lower() in PLACEHOLDERS:
        return ""
    words = [TYPOS.get(w.lower(), _lower(w)) for w in text.split(" ")]
    first = words[0]
    if len(words) > 1 and f"{first} {words[1]}" in COMPOUND_VERBS:
        words = [f"{first}-{words[1]}", *words[2:]]
        first = words[0]
    if first.endswith("ing") and len(first) > 4:
        return " ".join(["is", *words])
    if _is_third_person(first):
        return " ".join(words)
    head, _, tail = first.partition("-")
    verb = f"{head}-{third_person(tail)}" if tail else third_person(head)
    return " ".join([verb, *words[1:]])


def sentence(descriptions: Sequence[str]) -> str:
    """Several annotations of one clip as one caption, in time order, repeats dropped:
    "The person adds the flour, then removes the dough."; "" when none says anything."""
    clauses = list(dict.fromkeys(c for c in (clause(d) for d in descriptions) if c))
    if not clauses:
        return ""
    if len(clauses) == 1:
        body = clauses[0]
    else:
        body = ", ".join(clauses[:-1]) + ", then " + clauses[-1]
    return f"{SUBJECT} {body}."
