"""Numbers in words: the cardinals, the fractions and the counting words, with their values.

Every reader of numbers takes its words from here: the step details compare "two tbsp"
with "2 tablespoons" by value, the caption parse reads "two eggs" as an amount and not a
thing, a question's "three days ago" names a day, and the evaluation spells numbers out.
A reader that knows fewer words takes a named part of these, never a list of its own.
"""

from __future__ import annotations

# The cardinals captions, recipes and questions spell out, by value.
CARDINALS: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "hundred": 100,
}
# Cardinals a recipe spells for a time or a setting ("forty-five seconds", "ninety seconds",
# "set it to zero"). The step details read them as values; the caption parse does not know
# them, so there they are words like any other.
TIME_CARDINALS: dict[str, int] = {"zero": 0, "forty-five": 45, "sixty": 60, "ninety": 90}
# Words that count a few things: "a single egg", "a couple of minutes", "a dozen eggs".
COUNT_WORDS: dict[str, int] = {"single": 1, "couple": 2, "dozen": 12}
FRACTIONS: dict[str, float] = {"half": 0.5, "quarter": 0.25, "third": 1 / 3}
FRACTION_CHARS: dict[str, float] = {"½": 0.5, "¼": 0.25, "¾": 0.75, "⅓": 1 / 3, "⅔": 2 / 3, "⅛": 0.125}

_SPELLED: dict[int, str] = {n: w for w, n in {**CARDINALS, **TIME_CARDINALS}.items()}


def spelled(n: int) -> str:
    """The word for a cardinal in `CARDINALS` or `TIME_CARDINALS` (KeyError for any other)."""
    return _SPELLED[n]
