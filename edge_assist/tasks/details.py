"""Typed details of a step or a caption: amounts with units, durations, temperatures and
power/heat settings, and the tools and objects it names.

A deviation is a caption that matches a step but differs in one of these, so both sides
are parsed the same way and compared by value, never by string: "2 tablespoons" equals
"two tbsp"; "30 seconds" differs from "1 minute"; "high" differs from "medium". Numbers may
be digits, fractions (1/2, ½), mixed numbers (1 1/2) or words ("two", "half", "a
quarter"). Tools are the phrases introduced by "with", "using", "by means of"; they are
compared semantically by the caller (encoder cosine), not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from edge_assist.text.numbers import CARDINALS, COUNT_WORDS, FRACTION_CHARS, FRACTIONS, TIME_CARDINALS
from edge_assist.text.units import UNITS as _UNITS

# Fractions written as ordinals: "an eighth of a tsp" is 1/8 tsp, never "a tsp".
_ORDINAL_FRACTIONS = {
    "fourth": 1 / 4,
    "fifth": 1 / 5,
    "sixth": 1 / 6,
    "eighth": 1 / 8,
    "tenth": 1 / 10,
    "sixteenth": 1 / 16,
}
# "a cup", "an egg": the article counts one where an amount is read.
_WORD_NUMBERS: dict[str, float] = {
    **CARDINALS,
    **TIME_CARDINALS,
    **COUNT_WORDS,
    **FRACTIONS,
    **_ORDINAL_FRACTIONS,
    "a": 1,
    "an": 1,
}
# The number words a count of things without a unit is read from ("two eggs", "half a lemon").
_BARE_WORDS = [w for w, n in CARDINALS.items() if n <= 12] + ["half", "dozen"]

# Ordered settings: a step "on high" done "on medium" is a deviation (temperature/setting).
_LEVELS = {
    "low": 1,
    "medium-low": 2,
    "low-medium": 2,
    "medium": 3,
    "moderate": 3,
    "medium-high": 4,
    "high": 5,
    # Full power is the top setting, as "high" is: a microwave's "high" is its full power.
    "max": 5,
    "full": 5,
}
_LEVEL_CONTEXT = re.compile(
    r"\b(?:on|at|to|over|set\s+(?:to|on)|power(?:\s+level)?)\s+(?:a\s+)?"
    r"(low-medium|medium-low|medium-high|low|medium|moderate|high|max|full)\b(?:\s+(heat|power|flame|setting|speed))?"
    r"|\b(low-medium|medium-low|medium-high|low|medium|moderate|high)[\s-]+(heat|power|flame|setting|speed)\b",
    re.IGNORECASE,
)
_TEMPERATURE_WORDS = re.compile(
    r"\b(cold|cool|lukewarm|warm|hot|boiling|room[- ]temperature|frozen|chilled)\b", re.IGNORECASE
)
_TEMP_ORDER = {
    "frozen": 0,
    "cold": 1,
    "chilled": 1,
    "cool": 2,
    "room temperature": 3,
    "room-temperature": 3,
    "lukewarm": 4,
    "warm": 5,
    "hot": 6,
    "boiling": 7,
}

_NUM = r"(?:\d+\s+\d+/\d+|\d+/\d+|\d+(?:\.\d+)?|[½¼¾⅓⅔⅛])"
_WORDNUM = (
    r"(?:"
    + "|".join(sorted((w for w in _WORD_NUMBERS if w not in ("a", "an")), key=len, reverse=True))
    + r")"
)
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_AMOUNT = re.compile(
    rf"(?<![\w/])(?P<num>{_NUM}(?:\s*(?:-|–|to|or)\s*{_NUM})?|{_WORDNUM}(?:\s+(?:to|or)\s+{_WORDNUM}|[\s-]+(?:and\s+(?:an?\s+)?)?(?:half|quarter))?|an?|"
    rf"half\s+an?|a\s+half)"
    rf"(?:\s+(?:of\s+an?|of))?(?:\s+(?:more|additional|extra|large|small|big|heaping|level|whole|fresh|"
    rf"minced|chopped|garlic|cherry))?\s*(?P<unit>{_UNIT_ALT})(?![\w])",
    re.IGNORECASE,
)
_BARE = re.compile(
    r"(?<![\w/.])(?P<num>\d+\s+\d+/\d+|\d+/\d+|\d+(?:\.\d+)?|[½¼¾⅓⅔⅛]|"
    rf"(?:{'|'.join(_BARE_WORDS)}))(?![\w/])"
    r"(?=\s+(?:of\s+(?:a|an|the)\s+)?(?:in\s+number\s+)?(?P<noun>[a-z]+))",
    re.IGNORECASE,
)
# "with one hand", "both hands": how something is held, no amount of the step's things.
_NO_AMOUNT = frozenset({"hand", "hands", "finger", "fingers"})
_TOOL = re.compile(
    r"\b(?:with|using|use|by means of|via)\s+(?:the\s+|a\s+|an\s+|your\s+|my\s+|his\s+|her\s+|some\s+)?"
    r"(?P<tool>[a-z][a-z\- ]{1,40}?)(?=$|[,.;:!?)]|\s+(?:and|to|on|in|into|onto|until|for|from|over|then|"
    r"before|after|while|so|at|instead|rather|but)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Amount:
    """A number with a unit; `value` in the dimension's base unit (ml, g, s, cm, ...)."""

    dim: str
    value: float
    text: str  # as written, for evidence
    # The word the amount is of ("soy" in "1/2 tsp soy sauce"): a step of several amounts of one
    # kind is compared amount by amount where the caption names the same thing.
    of: str = field(default="", compare=False)

    def to_json(self) -> dict:
        return {"dim": self.dim, "value": round(self.value, 4), "text": self.text}


@dataclass(frozen=True)
class Details:
    amounts: tuple[Amount, ...] = ()
    levels: tuple[tuple[str, int], ...] = ()  # ("high", 5): power/heat settings as written, with their order
    temperatures: tuple[tuple[str, int], ...] = ()  # ("hot", 6): temperature words
    tools: tuple[str, ...] = ()
    objects: tuple[str, ...] = field(default=())

    def empty(self) -> bool:
        return not (self.amounts or self.levels or self.temperatures or self.tools or self.objects)

    def to_json(self) -> dict:
        out: dict = {}
        if self.amounts:
            out["amounts"] = list(dict.fromkeys(a.text for a in self.amounts))  # a range is two values
        if self.levels:
            out["settings"] = [w for w, _ in self.levels]
        if self.temperatures:
            out["temperatures"] = [w for w, _ in self.temperatures]
        if self.tools:
            out["tools"] = list(self.tools)
        if self.objects:
            out["objects"] = list(self.objects)
        return out


def parse_number(text: str) -> float | None:
    """A number written as digits, a fraction, a mixed number or words; None if it is none."""
    t = text.strip().lower().replace("-", " ")
    if t in FRACTION_CHARS:
        return FRACTION_CHARS[t]
    m = re.fullmatch(r"(\d+)\s+(\d+)/(\d+)", t)
    if m:
        d = int(m.group(3))
        return int(m.group(1)) + int(m.group(2)) / d if d else None
    m = re.fullmatch(r"(\d+)/(\d+)", t)
    if m:
        d = int(m.group(2))
        return int(m.group(1)) / d if d else None
    try:
        return float(t)
    except ValueError:
        pass
    # "one half", "one-quarter": the fraction itself, as recipes write it; "one and a half" adds.
    if t in ("one half", "one quarter", "one third"):
        return _WORD_NUMBERS[t.split()[1]]
    words = t.replace(" and ", " ").split()
    # "one and a half": the article belongs to the fraction, it is not another one.
    words = [w for i, w in enumerate(words) if not (i > 0 and w in ("a", "an"))]
    if not words:
        return None
    if words[0] in ("a", "an") and len(words) == 2 and words[1] in ("half", "quarter", "third"):
        return _WORD_NUMBERS[words[1]]
    if words == ["half", "a"] or words == ["half", "an"]:
        return 0.5
    total = 0.0
    for w in words:
        if w not in _WORD_NUMBERS:
            return None
        v = _WORD_NUMBERS[w]
        # "one and a half": a fraction word after a whole number adds; "a" alone is 1.
        total = total + v if (v < 1 or total == 0) else total * v if v >= 100 else total + v
    return total


def _range_value(num: str) -> float | None:
    """ "15-30" or "2 to 3": the middle; a reader compares ranges by overlap, see `differs`."""
    if re.search(r"\d", num):
        parts = re.split(r"\s*(?:-|–|\bto\b|\bor\b)\s*", num.strip())
    else:  # "two to three"; "one-half" is one number
        parts = re.split(r"\s+(?:to|or)\s+", num.strip())
    vals = [parse_number(p) for p in parts if p.strip()]
    if not vals or any(v is None for v in vals):
        return parse_number(num)
    return sum(v for v in vals if v is not None) / len(vals)


def _range_bounds(text: str) -> tuple[float, float] | None:
    m = re.match(rf"\s*({_NUM})\s*(?:-|–|to|or)\s*({_NUM})", text) or re.match(
        rf"\s*({_WORDNUM})\s+(?:to|or)\s+({_WORDNUM})\b", text, re.IGNORECASE
    )
    if not m:
        return None
    a, b = parse_number(m.group(1)), parse_number(m.group(2))
    if a is None or b is None:
        return None
    return (min(a, b), max(a, b))


def parse_details(text: str) -> Details:
    """Every amount, setting, temperature word and tool phrase written in `text`."""
    amounts: list[Amount] = []
    for m in _AMOUNT.finditer(text):
        unit = m.group("unit").lower()
        vessel = (
            unit == "cup" and m.group("num").lower() in ("a", "an") and _A_VESSEL.search(text[: m.start()])
        )
        if vessel and _ENDS_PHRASE.match(text, m.end()):
            continue  # "in a big cup" is the vessel, "a cup of milk" an amount
        dim, factor = _UNITS[unit]
        if unit in ("c", "f", "m", "l", "s", "h", "g", "w", '"', "in.") and not re.match(
            r"[\d½¼¾⅓⅔⅛]", m.group("num")
        ):
            continue  # a one-letter unit after a word ("a g...") is not a quantity
        num = m.group("num")
        v = _range_value(num)
        if v is None:
            continue
        bounds = _range_bounds(num)
        of = _thing_after(text, m.end())
        if bounds is not None:
            amounts.append(Amount(dim, bounds[0] * factor, m.group(0).strip(), of))
            amounts.append(Amount(dim, bounds[1] * factor, m.group(0).strip(), of))
            continue
        amounts.append(Amount(dim, v * factor, m.group(0).strip(), of))
    # A bare number (no unit) counts things: "1/4 tomato", "two eggs", "5 toothpicks".
    taken = [m.span() for m in _AMOUNT.finditer(text)]
    for m in _BARE.finditer(text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        v = parse_number(m.group("num"))
        if m.group("noun").lower() in _NO_AMOUNT:
            continue
        if v is not None and not re.match(r"\s*(?:-|–)\s*\w", text[m.end() :]):
            amounts.append(Amount("count", v, f"{m.group('num')} {m.group('noun')}"))
    levels = []
    for m in _LEVEL_CONTEXT.finditer(text):
        word = (m.group(1) or m.group(3) or "").lower()
        if word in _LEVELS:
            levels.append((word, _LEVELS[word]))
    temps = [
        (w.lower().replace("-", " "), _TEMP_ORDER[w.lower().replace("-", " ")])
        for w in _TEMPERATURE_WORDS.findall(text)
        if w.lower().replace("-", " ") in _TEMP_ORDER
    ]
    tools = []
    for m in _TOOL.finditer(text):
        tool = re.sub(rf"^(?:{_WORDNUM}|\d+)\s+", "", m.group("tool").strip().lower())
        if tool and not _AMOUNT.fullmatch(tool) and tool not in ("it", "them", "this", "that", "care"):
            tools.append(tool)
    return Details(
        tuple(amounts), tuple(dict.fromkeys(levels)), tuple(dict.fromkeys(temps)), tuple(dict.fromkeys(tools))
    )


# A part of the step the caption says was not done (`undone.py`).
NOT_DONE = "not done"


@dataclass(frozen=True)
class Difference:
    """One typed way a caption differs from the step it matches."""

    kind: str  # "quantity" | "duration" | "temperature" | "setting" | "tool" | "ingredient" | "not done"
    expected: str
    observed: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "expected": self.expected, "observed": self.observed}

    def say(self) -> str:
        if self.kind == NOT_DONE:  # "uncovered", "no stirring": the step says it is done
            return self.observed
        return f"{self.observed} instead of {self.expected}"


_DIM_KIND = {
    "time": "duration",
    "temperature_c": "temperature",
    "temperature_f": "temperature",
    "power": "setting",
    "rate": "setting",
    "pressure": "setting",
    "torque": "setting",
}
# Two amounts of one dimension are the same when they are within this ratio: "about 10
# seconds" read as 12 is not a mistake, 30 instead of 60 is.
SAME_RATIO = 1.25


# A cup named as where something is: "a (big) cup" after "in", "into", "to" or "from", ending its phrase.
_A_VESSEL = re.compile(r"\b(?:in|into|to|from|inside)\s+$", re.IGNORECASE)
_ENDS_PHRASE = re.compile(
    r"\s*(?:[,.;!?]|$)|\s+(?:with|and|then|on|in|into|for|while|until)\b", re.IGNORECASE
)
_AFTER = re.compile(r"\s*(?:of\s+)?(?:(?:the|a|an|some)\s+)?([a-z][a-z-]*)", re.IGNORECASE)


def _thing_after(text: str, end: int) -> str:
    m = _AFTER.match(text, end)
    if m is None:
        return ""
    w = m.group(1).lower()
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


def _within(dim: str, lo: float, hi: float, value: float) -> bool:
    """Whether `value` is the amount lo..hi: things counted are counted exactly (four florets are
    not five), a measure within `SAME_RATIO`."""
    if dim == "count":
        return lo - 1e-6 <= value <= hi + 1e-6
    return lo / SAME_RATIO <= value <= hi * SAME_RATIO


def same_amount(step: Details, caption: Details) -> bool:
    """Whether the caption gives an amount the step gives ("one tsp sugar" at "1 teaspoon salt")."""
    return any(
        a.dim == c.dim and _within(a.dim, a.value, a.value, c.value)
        for a in step.amounts
        for c in caption.amounts
    )


def value_differences(step: Details, caption: Details) -> list[Difference]:
    """Amount, setting and temperature differences; tools and objects need the encoder."""
    out: list[Difference] = []
    by_dim_s: dict[str, list[Amount]] = {}
    for a in step.amounts:
        by_dim_s.setdefault(a.dim, []).append(a)
    by_dim_c: dict[str, list[Amount]] = {}
    for a in caption.amounts:
        by_dim_c.setdefault(a.dim, []).append(a)
    for dim, cs in by_dim_c.items():
        ss = by_dim_s.get(dim)
        if not ss:
            continue
        for c in cs:
            # "half a tbsp soy sauce" at "1/4 cup sauce and 1/2 tsp soy sauce": the soy sauce's.
            pool = [a for a in ss if c.of and a.of == c.of] or ss
            lo, hi = min(a.value for a in pool), max(a.value for a in pool)
            if _within(dim, lo, hi, c.value):
                continue
            out.append(Difference(_DIM_KIND.get(dim, "quantity"), pool[0].text, c.text))
            break
    if step.levels and caption.levels:
        exp = {v for _, v in step.levels}
        for w, v in caption.levels:
            if v not in exp:
                out.append(Difference("setting", step.levels[0][0], w))
                break
    if step.temperatures and caption.temperatures:
        exp = {v for _, v in step.temperatures}
        for w, v in caption.temperatures:
            if all(abs(v - e) >= 2 for e in exp):
                out.append(Difference("temperature", step.temperatures[0][0], w))
                break
    return out
