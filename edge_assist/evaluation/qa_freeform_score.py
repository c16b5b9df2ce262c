"""The free-form question benchmark's questions and their scoring.

A question file (`edge_assist/data/questions/README.md` gives the format) holds questions
written by hand with the answer each should get. An answer is right, wrong or abstained;
a "No" to a question whose truth is yes is also a confident wrong "No", counted apart,
because the wearer believes it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from edge_assist.answers.answer_record import times_in
from edge_assist.errors import SourceError
from edge_assist.evaluation.qa_quantities import number_forms
from edge_assist.reasoning.answer_text import is_abstention
from edge_assist.text.numbers import CARDINALS, TIME_CARDINALS

KINDS = ("yesno", "when", "count", "amount", "duration", "order", "procedure", "never", "followup")
TIME_SLACK_S = 20.0
AGO_SHARE = 0.15
RIGHT, WRONG, ABSTAINED = "right", "wrong", "abstained"

_EXPECT_KEYS = {
    "yes", "t", "t_end", "or_abstain", "number", "unit", "ago", "lasts", "says", "abstain", "about_what"
}  # fmt: skip
_NO = re.compile(
    r"^\W*(?:no\b|nope\b|not yet\b|you did(?: not|n't)\b|you have(?: not|n't)\b|you haven't\b"
    r"|i did(?: not|n't)\b)"
)
# The spellings a unit is said in; any other unit word is matched with its plural.
_UNIT_WORDS = {
    "s": ("s", "sec", "secs", "second", "seconds"),
    "min": ("min", "mins", "minute", "minutes"),
    "tbsp": ("tbsp", "tbsps", "tablespoon", "tablespoons"),
    "tsp": ("tsp", "tsps", "teaspoon", "teaspoons"),
    "oz": ("oz", "ounce", "ounces"),
    # the paraphrased streams say "mug" for a cup measure ("a quarter mug mayonnaise")
    "cup": ("cup", "cups", "mug", "mugs"),
}
_DURATION = {"hour": 3600.0, "hr": 3600.0, "minute": 60.0, "min": 60.0, "second": 1.0, "sec": 1.0}
_SPOKEN = {w: n for w, n in (CARDINALS | TIME_CARDINALS).items()} | {"a": 1, "an": 1}
_DURATION_RE = re.compile(
    rf"\b(\d+(?:\.\d+)?|{'|'.join(sorted(_SPOKEN, key=len, reverse=True))})\s*"
    r"(hours?|hrs?|minutes?|mins?|seconds?|secs?)\b"
)


@dataclass(frozen=True)
class Expect:
    """What a right answer says (one form per question; see the README)."""

    yes: bool | None = None
    times: tuple[float, ...] = ()
    t_end: float | None = None
    or_abstain: bool = False
    number: str | None = None
    units: tuple[str, ...] = ()
    ago: float | None = None
    # How long an activity went on, in seconds, where no caption states it (a span of clips on a
    # real day: "how long was I kneading?"): any duration said within the `ago` slack is right.
    lasts: float | None = None
    says: tuple[str, ...] = ()
    abstain: bool = False
    about_what: bool = False

    @property
    def truth_yes(self) -> bool:
        """Whether the question names something that happened (so a "No" to it is a wrong No)."""
        if self.abstain or self.about_what or self.yes is False:
            return False
        return True


@dataclass(frozen=True)
class FreeQuestion:
    qid: str
    recording: str
    ask_t: float | None  # None: at the end of the recording
    question: str
    kind: str
    expect: Expect
    conversation: str | None = None
    note: str = ""


@dataclass(frozen=True)
class Verdict:
    outcome: str  # right / wrong / abstained
    wrong_no: bool
    why: str


def _key(number: object) -> str:
    if isinstance(number, bool) or not isinstance(number, (int, float, str)):
        raise ValueError(f"number must be a number or a fraction string, got {number!r}")
    if isinstance(number, float) and number.is_integer():
        return str(int(number))
    return str(number)


def parse_expect(raw: dict[str, object]) -> Expect:
    unknown = set(raw) - _EXPECT_KEYS
    if unknown or not raw:
        raise ValueError(f"unknown expect keys {sorted(unknown)}" if unknown else "empty expect")
    t = raw.get("t")
    times = tuple(float(str(x)) for x in (t if isinstance(t, list) else [t] if t is not None else []))
    unit = raw.get("unit")
    units = tuple(str(u) for u in (unit if isinstance(unit, list) else [unit] if unit is not None else []))
    says = raw.get("says")
    yes = raw.get("yes")
    e = Expect(
        yes=bool(yes) if yes is not None else None,
        times=times,
        t_end=float(str(raw["t_end"])) if "t_end" in raw else None,
        or_abstain=bool(raw.get("or_abstain", False)),
        number=_key(raw["number"]) if "number" in raw else None,
        units=units,
        ago=float(str(raw["ago"])) if "ago" in raw else None,
        lasts=float(str(raw["lasts"])) if "lasts" in raw else None,
        says=tuple(str(s) for s in says) if isinstance(says, list) else (),
        abstain=bool(raw.get("abstain", False)),
        about_what=bool(raw.get("about_what", False)),
    )
    forms = [e.yes is not None, bool(times) and e.yes is None and e.number is None, e.number is not None]
    forms += [e.ago is not None, e.lasts is not None, bool(e.says), e.abstain, e.about_what]
    if not any(forms) or (e.number is not None and not units):
        raise ValueError(
            "expect needs one of yes, t, number with unit, ago, lasts, says, abstain, about_what"
        )
    return e


def load_questions(path: Path) -> list[FreeQuestion]:
    """The questions of a file, in file order (a malformed line is an error naming it)."""
    out: list[FreeQuestion] = []
    seen: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            o = json.loads(line)
            ask = o["ask_t"]
            q = FreeQuestion(
                qid=str(o["id"]),
                recording=str(o["recording"]),
                ask_t=None if ask == "end" else float(ask),
                question=str(o["question"]),
                kind=str(o["kind"]),
                expect=parse_expect(dict(o["expect"])),
                conversation=str(o["conversation"]) if o.get("conversation") else None,
                note=str(o.get("note", "")),
            )
            if q.kind not in KINDS:
                raise ValueError(f"kind {q.kind!r} is not one of {', '.join(KINDS)}")
            if q.qid in seen:
                raise ValueError(f"id {q.qid!r} twice")
        except (KeyError, TypeError, ValueError) as e:
            raise SourceError(f"{path}:{n}: not a question ({e})") from e
        seen.add(q.qid)
        out.append(q)
    return out


def said_no(text: str) -> bool:
    """The answer says "No" (whatever follows: "No, I don't remember..." is a No too)."""
    return bool(_NO.match(text.strip().lower().replace("’", "'")))


def _unit_words(units: tuple[str, ...]) -> set[str]:
    words: set[str] = set()
    for u in units:
        u = u.lower()
        words |= set(_UNIT_WORDS.get(u, ()))
        words |= {u, u + "s", u + "es"} | ({u[:-1] + "ies"} if u.endswith("y") else set())
    return words


def says_quantity(text: str, number: str, units: tuple[str, ...]) -> bool:
    """The number, in digits or words (either end of a range), followed by its unit within three words."""
    low = text.lower().replace("’", "'")
    unit = "|".join(re.escape(w) for w in sorted(_unit_words(units), key=len, reverse=True))
    gap = r"(?:\s*(?:-|to|or)\s*[\w/.]+)?(?:\s+[\w'/.-]+){0,3}?\s+"
    forms = [(f, gap) for f in number_forms(number)]
    if number == "1":  # "an egg", "a tablespoon": the unit right after the article
        forms += [(f, r"\s+") for f in ("a", "an", "a single")]
    for form, sep in forms:
        lead = rf"(?<![\w/.]){re.escape(form)}(?!\w|[/.]\d)"
        if re.search(rf"{lead}(?:{sep}|\s*)(?:{unit})\b", low):
            return True
    return False


def durations_in(text: str) -> list[float]:
    """Durations said ('6 minutes', 'about thirty secs', '2 minutes and 10 seconds'), in seconds."""
    low = text.lower()
    found = [(m.start(), m.end(), _seconds(m.group(1), m.group(2))) for m in _DURATION_RE.finditer(low)]
    out = [s for _, _, s in found]
    for (_, end, a), (start, _, b) in zip(found, found[1:], strict=False):
        if re.fullmatch(r"\s*(?:,|and)?\s*", low[end:start]):
            out.append(a + b)
    return out


def _seconds(num: str, unit: str) -> float:
    n = float(num) if num[0].isdigit() else float(_SPOKEN[num])
    return n * next(v for k, v in _DURATION.items() if unit.startswith(k))


def _near(t: float, times: tuple[float, ...], t_end: float | None = None) -> bool:
    if t_end is not None and times:
        return times[0] - TIME_SLACK_S <= t <= t_end + TIME_SLACK_S
    return any(abs(t - x) <= TIME_SLACK_S for x in times)


def _says(text: str, phrases: tuple[str, ...]) -> bool:
    low = text.lower().replace("’", "'")
    return any(re.search(rf"\b{re.escape(p.lower())}", low) for p in phrases)


# A yes/no question about leaving an act out ("did I forget the salt?", "I didn't skip the
# vanilla, did I?"): its `yes` is whether the act happened, so "No, you didn't forget" says it did.
_LEFT_OUT = re.compile(r"\b(?:forg[eo]t+(?:en)?|skip(?:ped)?|miss(?:ed)?|left out|leave out)\b", re.I)
_ANY = re.compile(r"\b(?:anything|something|what)\b", re.I)


def _denies_act(q: FreeQuestion, text: str) -> bool:
    """Whether the answer says the act asked about did not happen."""
    if q.kind in ("yesno", "order") and _LEFT_OUT.search(q.question) and not _ANY.search(q.question):
        return not is_abstention(text) and not said_no(text)  # "Yes, it looks like you forgot"
    return said_no(text)


def score(q: FreeQuestion, text: str, ask_t: float) -> Verdict:
    """One answer, scored: right / wrong / abstained, and whether it is a confident wrong No."""
    e = q.expect
    no, abstained = _denies_act(q, text), is_abstention(text)
    if e.about_what:
        if "about what" in text.lower():
            return Verdict(RIGHT, False, "asks about what")
        return Verdict(ABSTAINED if abstained else WRONG, False, "does not ask about what")
    if e.abstain:
        return _v(abstained, False, "abstained" if abstained else "answered a never-seen thing")
    if no and e.truth_yes:
        return Verdict(WRONG, True, "a No to something that happened")
    if e.yes is False:
        if no or (abstained and e.or_abstain) or (e.says and not abstained and _says(text, e.says)):
            return Verdict(RIGHT, False, "no")
        return Verdict(ABSTAINED if abstained else WRONG, False, "abstained" if abstained else "said yes")
    if abstained:
        return Verdict(ABSTAINED, False, "abstained on an answerable question")
    said = times_in(text)
    if e.yes is True:
        ok = not (e.times and said) or _near(said[0], e.times, e.t_end)
        return _v(ok, False, "yes" if ok else f"yes, but at {said[0]:.0f} s")
    if e.number is not None:
        ok = says_quantity(text, e.number, e.units) and not (
            e.times and said and not _near(said[0], e.times, e.t_end)
        )
        return _v(ok, False, "the quantity" if ok else "another quantity or moment")
    if e.ago is not None:
        ok = any(_close(d, e.ago) for d in durations_in(text))
        ok = ok or bool(said and _near(said[0], (ask_t - e.ago,)))
        return _v(ok, False, "how long ago" if ok else "another time")
    if e.lasts is not None:
        ok = any(_close(d, e.lasts) for d in durations_in(text))
        return _v(ok, False, "how long" if ok else "another length")
    if e.says:
        ok = _says(text, e.says)
        return _v(ok, False, "says it" if ok else "says none of " + ", ".join(e.says))
    ok = bool(said) and _near(said[0], e.times, e.t_end)
    return _v(ok, False, "the time" if ok else ("no time said" if not said else f"said {said[0]:.0f} s"))


def _close(said_s: float, truth_s: float) -> bool:
    """A duration said is right within 20 s or 15 % of the truth, whichever is larger."""
    return abs(said_s - truth_s) <= max(TIME_SLACK_S, AGO_SHARE * truth_s)


def _v(ok: bool, wrong_no: bool, why: str) -> Verdict:
    return Verdict(RIGHT if ok else WRONG, wrong_no, why)
