"""Quantities in the question benchmark: "How much flour did I add?" and "How long did I
stir it?" from a caption holding one quantity, the number an answer must say (its key),
and whether an answer says that number, in digits or in words.
"""

from __future__ import annotations

import re

from edge_assist.reasoning.answer_text import second_person
from edge_assist.text.numbers import CARDINALS, TIME_CARDINALS

# The number words a question's quantity may be in, with the digits an answer is keyed by.
_NUM_WORDS = {w: str(n) for w, n in CARDINALS.items() if n <= 10} | {"half": "1/2"}
_NUMBER = rf"(?:\d+(?:[./]\d+)?|{'|'.join(_NUM_WORDS)})"
_UNIT = (
    r"(?:tablespoons?|teaspoons?|tbsp|tsp|cups?|seconds?|secs?|minutes?|mins?|inch(?:es)?|grams?|g|ml|oz|"
    r"pieces?|slices?|cloves?|pinch(?:es)?|drops?)"
)
_QUANTITY = re.compile(rf"\b(?P<num>{_NUMBER})(?:\s*-\s*{_NUMBER})?\s*(?P<unit>{_UNIT})\b(?:\s+of)?", re.I)
_TIME_UNITS = ("sec", "min")


def number_key(num: str) -> str:
    return _NUM_WORDS.get(num.lower(), num)


# Said forms a key's number takes beyond one..ten: tens and common fractions, as an answer
# composed from a caption in other words says them ("about thirty secs", "a quarter tbsp").
_SAID_FORMS = {
    **{str(n): (w, w.replace("-", " ")) for w, n in (CARDINALS | TIME_CARDINALS).items() if 20 <= n < 100},
    "1/2": ("a half", "one half", "half a"),
    "1/3": ("a third", "one third"),
    "2/3": ("two thirds", "two-thirds"),
    "1/4": ("a quarter", "one quarter", "one fourth"),
    "3/4": ("three quarters", "three-quarters"),
    "1/8": ("an eighth", "one eighth"),
    "1/6": ("a sixth", "one sixth"),
}


def number_forms(key: str) -> set[str]:
    """The forms a key's number is said in: '30' -> {'30', 'thirty'}, '1/4' -> {'1/4', 'a quarter', ...}."""
    return {key} | {w for w, n in _NUM_WORDS.items() if n == key} | set(_SAID_FORMS.get(key, ()))


def says_number(text: str, key: str) -> bool:
    """The answer says the number `key` (in digits or in words)."""
    forms = number_forms(key)
    low = text.lower()
    # whole words and numbers only: "ten" is not in "tender", "2" not in "12" or "1/2"; a
    # number may end a sentence ("2.")
    return any(re.search(rf"(?<![\w/.]){re.escape(f)}(?!\w|[/.]\d)", low) for f in forms)


def how_much_question(caption: str) -> tuple[str, str] | None:
    """('How much flour did I add?', '2') for a caption holding exactly one quantity."""
    found = list(_QUANTITY.finditer(caption))
    if len(found) != 1:
        return None
    q = found[0]
    verb_m = re.match(r"^([A-Za-z]+)\s", caption)
    if verb_m is None or second_person(verb_m.group(1) + " it") is None:
        return None
    verb = verb_m.group(1).lower()
    if q.group("unit").lower().startswith(_TIME_UNITS):
        rest = caption[verb_m.end() : q.start()] + caption[q.end() :]
        rest = re.sub(r"\b(?:for|about|around)\s*$", "", rest.strip().split(",")[0].rstrip(" .")).strip()
        rest = re.sub(r"(?:\s+(?:for|about|on|at|in|and|or))+\s*$", "", rest)
        return (
            f"How long did I {verb} {rest}?".replace("  ", " ").replace(" ?", "?"),
            number_key(q.group("num")),
        )
    after = caption[q.end() :].strip()
    item = re.split(r"\s+(?:to|into|in|on|onto|over|from|and|with)\s+|,", after)[0].strip(" .")
    if (
        not re.fullmatch(r"[a-z][a-z -]*", item.lower())
        or len(item.split()) > 5
        or item.lower() in ("apart", "more")
    ):
        return None
    return f"How much {item} did I {verb}?", number_key(q.group("num"))
