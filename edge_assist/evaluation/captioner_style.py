"""A video captioner's wording of step captions: the `captioner` benchmark variant.

A VLM on glasses describes each 10-s clip from outside, in the third person, with where it
happens, and a step that lasts several clips as an action under way. This restyler rewrites
an annotated step caption (imperative recipe wording) that way. It is rule-based and seeded
(the same caption, key and clip give the same text) and shares nothing with `paraphrase.py`:
its own vocabulary, no synonyms. Rules, in order:

1. The subject is "The person"; the caption's first verb (after a leading clause such as
   "In a bowl," and adverbs such as "slowly") takes the third person ("adds") or the
   progressive ("is adding"); verbs coordinated with it follow (`text.coordinated_verbs`).
   A caption with no leading verb ("1/4 tsp salt to a bowl") is an addition ("adds").
2. Words are kept, never swapped: tools, ingredients, amounts, durations and settings stay as
   the caption says them, so an error stays visible. Only the form changes: unit
   abbreviations are written out ("tsp" -> "teaspoon"), a bare object takes "the"
   ("Coat mug" -> "coats the mug"), a container is seen definite ("to a bowl" ->
   "into the bowl").
3. Scene detail is drawn from what the step involves: the first place in `SCENES` whose words
   the caption holds ("microwave" -> "by the microwave", "skillet" -> "at the stove"), else
   the counter; the seed only chooses among a place's phrasings.
4. The first clip of a step says the action; later clips say it is under way ("The person is
   still stirring the pot.", "The person holds the bowl and keeps whisking ...").
"""

from __future__ import annotations

import random
import re

from edge_assist.text.coordinated_verbs import follow_tense
from edge_assist.text.stop_words import DETERMINERS, PARTICLES, PREPOSITIONS, PRONOUNS
from edge_assist.text.verb_forms import CAPTION_VERBS, IRREGULAR_PAST, is_verb, past_tense, present_participle

SUBJECT = "The person"
# Where the step happens, by what it involves (first match wins): words, then phrasings.
SCENES: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = (
    (
        frozenset("microwave microwaving microwaved microwaves".split()),
        ("by the microwave", "at the microwave"),
    ),
    (frozenset("kettle".split()), ("next to the kettle", "by the kettle")),
    (frozenset("blender blitz blend mixer puree".split()), ("at the blender", "next to the blender")),
    (
        frozenset("rinse rinsed rinsing wash washing sink drain tap running".split()),
        ("at the sink", "by the sink"),
    ),
    (
        frozenset(
            "stove pan skillet pot saucepan burner heat cook saute boil boiling simmer fry toast".split()
        ),
        ("at the stove", "in front of the stove"),
    ),
    (frozenset("dripper filter grounds coffee".split()), ("at the coffee station", "by the coffee maker")),
    (frozenset("plate plates serve garnish".split()), ("at the counter, by the plate", "over the plate")),
)
COUNTER = ("on the counter", "at the kitchen counter", "at the counter")
# Things a person is seen holding while an action goes on.
HELD = frozenset(
    """bowl mug cup pan skillet pot saucepan knife whisk spatula spoon jar kettle plate tortilla bag can
    fork sieve bottle dripper grater spiralizer ramekin lid towel brush scissors floss""".split()
)
# Containers: "to a bowl" is seen as "into the bowl".
CONTAINERS = frozenset(
    "bowl mug cup pan skillet pot saucepan jar kettle blender ramekin bag sieve dripper".split()
)
UNIT_WORDS = {
    "tsp": ("teaspoon", "teaspoons"),
    "tsps": ("teaspoon", "teaspoons"),
    "tbsp": ("tablespoon", "tablespoons"),
    "tbsps": ("tablespoon", "tablespoons"),
    "tbs": ("tablespoon", "tablespoons"),
    "sec": ("second", "seconds"),
    "secs": ("second", "seconds"),
    "min": ("minute", "minutes"),
    "mins": ("minute", "minutes"),
    "hr": ("hour", "hours"),
    "hrs": ("hour", "hours"),
    "oz": ("ounce", "ounces"),
}
LEADING_ADVERBS = frozenset(
    """then next now slowly gently briefly quickly carefully finally first also again immediately directly
    rapidly lightly thoroughly evenly fast fastly partially improperly incompletely half well""".split()
)
# Verbs of these captions that the shared caption-verb list leaves out.
EXTRA_VERBS = frozenset("remove seal thaw spill burn break splash overfill leave".split())
MEASURES = frozenset(
    "cup cups teaspoon teaspoons tablespoon tablespoons ounce ounces gram grams pinch".split()
)
# "Do not completely peel": the captioner sees the action done partly.
PARTLY = {"completely": "partly", "fully": "partly", "properly": "improperly"}
# Where the scene may go inside a sentence: before one of these words (rule 3's fallback).
BREAKS = frozenset("to into with from on onto over in until for at by while".split())
LEAD_OPENERS = frozenset("in once when while after before if instead for with using on into".split())
QUANTITY_START = re.compile(r"^(\d|a\b|an\b|half\b|less\b|more\b|some\b|one\b)", re.IGNORECASE)
_PAST_TO_BASE = {past_tense(v): v for v in CAPTION_VERBS | set(IRREGULAR_PAST)}
_PUNCT = ",.;:!?()\"'"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")


def _bare(word: str) -> str:
    return word.lower().strip(_PUNCT)


def _verb(word: str) -> bool:
    return is_verb(word) or word in EXTRA_VERBS


def third_person(verb: str) -> str:
    """ "add" -> "adds", "mix" -> "mixes", "fry" -> "fries", "do" -> "does"."""
    v = verb.lower()
    if v in ("have", "do", "go"):
        return {"have": "has", "do": "does", "go": "goes"}[v]
    if v.endswith(("s", "sh", "ch", "x", "z", "o")):
        return v + "es"
    if len(v) > 2 and v.endswith("y") and v[-2] not in "aeiou":
        return v[:-1] + "ies"
    return v + "s"


def scene(text: str, rng: random.Random) -> str:
    """Where the step is seen happening, from the words of the caption."""
    words = set(re.findall(r"[a-z]+", re.sub(r"[a-z]+-safe", "", text.lower())))
    for keys, phrasings in SCENES:
        if words & keys:
            return rng.choice(phrasings)
    return rng.choice(COUNTER)


def held_object(text: str) -> str:
    """The first thing in the caption a person holds while working ("" when none)."""
    words = re.findall(r"[a-z0-9/.]+", text.lower())
    for i, w in enumerate(words):
        if w in HELD and not (i and re.fullmatch(r"[\d./]+", words[i - 1])):  # "1/8 cup" is an amount
            return w
    return ""


def _number_is_one(word: str) -> bool:
    w = _bare(word)
    return w in ("1", "a", "an", "one", "half") or bool(re.fullmatch(r"\d+/\d+|0?\.\d+", w))


def _is_number(word: str) -> bool:
    return bool(re.fullmatch(r"[\d./-]+", _bare(word))) or _bare(word) in ("a", "an", "one", "half")


def _bare_noun(word: str) -> bool:
    """A noun with no article after the verb ("Coat mug"), which a captioner says as "the mug"."""
    w = _bare(word)
    return (
        w.isalpha()
        and word[:1].islower()
        and w not in DETERMINERS | PREPOSITIONS | PRONOUNS | PARTICLES | LEADING_ADVERBS
        and not w.endswith(("ing", "ed", "ly"))
        and w not in ("not", "and", "or", "until", "while", "but", "just", "only", "about")
    )


def _object_words(words: list[str]) -> list[str]:
    """Rule 2 on the words after the verb: units written out, containers seen definite."""
    out = list(words)
    for i, raw in enumerate(words):
        core = _bare(raw)
        prev = _bare(words[i - 1]) if i else ""
        if core in UNIT_WORDS and i > 0:
            one, many = UNIT_WORDS[core]
            out[i] = raw.replace(raw.strip(_PUNCT), one if _number_is_one(words[i - 1]) else many, 1)
            core = one
        if core in MEASURES and i + 1 < len(words) and _is_number(words[i - 1] if i else ""):
            nxt = words[i + 1]
            if raw == raw.rstrip(_PUNCT) and nxt[:1].isalpha() and _bare(nxt) not in PREPOSITIONS | {"and"}:
                out[i] = out[i] + " of"  # "1/4 cup milk" -> "1/4 cup of milk"
        elif core in ("a", "an") and prev in PREPOSITIONS:
            if any(_bare(w) in CONTAINERS for w in words[i + 1 : i + 4]):
                out[i] = "the"
                if prev == "to":
                    out[i - 1] = "into"
        elif core == "to" and i + 2 < len(words) and _bare(words[i + 1]) == "the":
            if any(_bare(w) in CONTAINERS for w in words[i + 2 : i + 4]):
                out[i] = "into"
        elif prev == "while" and _verb(core) and i + 1 < len(words):
            out[i] = raw.replace(core, present_participle(core), 1)  # "drop while add" -> "while adding"
    if words and _bare_noun(words[0]):
        out[0] = "the " + out[0]
    return out


class Clause:
    """One caption sentence split into lead, adverbs, verb and object words."""

    def __init__(self, sentence: str) -> None:
        words = sentence.split()
        if words and "-" in words[0]:
            a, _, b = words[0].partition("-")
            if a.lower() == b.lower():  # "Microwave-Microwave the corn": the label left in
                words[0] = a
        self.lead = ""
        if words and _bare(words[0]) in LEAD_OPENERS:
            cut = next((i for i, w in enumerate(words[:12]) if w.endswith(",")), None)
            if cut is not None and cut + 1 < len(words):
                self.lead = " ".join(words[: cut + 1])
                words = words[cut + 1 :]
        self.adverbs: list[str] = []
        while len(words) > 1 and _bare(words[0]) in LEADING_ADVERBS:
            self.adverbs.append(_bare(words[0]))
            words = words[1:]
        self.negated = len(words) > 2 and _bare(words[0]) == "do" and _bare(words[1]) == "not"
        if self.negated:
            words = words[2:]  # "Do not peel ..." is seen as "skips peeling ..."
            if len(words) > 1 and _bare(words[0]) in PARTLY:
                # "Do not completely peel" is a partial action, not a skipped one.
                self.adverbs.append(PARTLY[_bare(words[0])])
                self.negated, words = False, words[1:]
        self.verb, self.past_only, rest = self._verb(words)
        self.rest = _object_words(rest) if rest else []
        self._coordinated = self._coordinated_verbs(rest)
        self._rest_raw = rest

    @staticmethod
    def _coordinated_verbs(rest: list[str]) -> dict[int, str]:
        """Verbs coordinated with the first one: (position, progressive form)."""
        progressive = follow_tense(rest, progressive=True)
        found = {i: w for i, (w, r) in enumerate(zip(progressive, rest, strict=True)) if w and w != r}
        for i, raw in enumerate(rest[1:], start=1):
            prev = rest[i - 1]
            if (_bare(prev) in ("and", "but") or prev.endswith(",")) and _bare(raw) in EXTRA_VERBS:
                found.setdefault(i, raw.replace(_bare(raw), present_participle(_bare(raw)), 1))
        return found

    @staticmethod
    def _verb(words: list[str]) -> tuple[str, bool, list[str]]:
        """(base verb, whether only its past form is known, the words after it)."""
        if not words:
            return "carry on", False, []
        first = _bare(words[0])
        if _verb(first):
            return first, False, words[1:]
        if first in _PAST_TO_BASE:
            return _PAST_TO_BASE[first], False, words[1:]
        if first.endswith("ed") and len(words) > 1:
            return first, True, words[1:]
        lowered = [words[0][:1].lower() + words[0][1:], *words[1:]]
        if QUANTITY_START.match(words[0]) or " to " in f" {' '.join(words).lower()} ":
            return "add", False, lowered
        return "work on", False, lowered

    def _rest(self, progressive: bool) -> str:
        out = list(self.rest)
        for i, w in self._coordinated.items():
            raw = self._rest_raw[i]
            core = raw.strip(_PUNCT)
            form = w.strip(_PUNCT) if progressive else third_person(_bare(raw))
            out[i] = out[i].replace(core, form, 1)
        return " ".join(out)

    def _adv(self) -> str:
        return "".join(a + " " for a in self.adverbs)

    def _head(self, form: str) -> str:
        verb, *particle = self.verb.split()
        if self.negated:
            skip = {"says": "skips", "doing": "skipping"}[form]
            return " ".join([skip, present_participle(verb), *particle])
        inflect = third_person if form == "says" else present_participle
        return " ".join([inflect(verb), *particle])

    def says(self) -> str:
        """ "adds 1 egg into the bowl" """
        head = self.verb if self.past_only else self._head("says")
        return f"{self._adv()}{head} {self._rest(False)}".strip()

    def doing(self) -> str:
        """ "adding 1 egg into the bowl" (a past-only verb keeps its past: "disbalanced ...")"""
        if self.past_only:
            return self.says()
        if self.verb in ("keep", "continue") and self.rest and _bare(self.rest[0]).endswith("ing"):
            return f"{self._adv()}{self._rest(True)}"  # "Keep mixing" goes on as "mixing"
        if self.verb == "continue" and len(self.rest) > 1 and _bare(self.rest[0]) == "to":
            then = _bare(self.rest[1])
            if _verb(then):  # "Continue to microwave for 10 s" goes on as "microwaving for 10 s"
                return " ".join([self._adv() + present_participle(then), *self.rest[2:]])
        return f"{self._adv()}{self._head('doing')} {self._rest(True)}".strip()


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _with_lead(lead: str, clause: str) -> str:
    return f"{_cap(lead)} {clause[:1].lower()}{clause[1:]}" if lead else clause


def _placed(sentence: str, where: str, scene_at: int) -> str:
    """`where` put before the `scene_at`-th break word after the subject (at the end if none)."""
    words = sentence.split()
    start = next((i for i, w in enumerate(words) if w.lower() == "person"), 0) + 2
    breaks = [i for i in range(start, len(words)) if _bare(words[i]) in BREAKS]
    if scene_at < 0 or scene_at >= len(breaks):
        return f"{sentence} {where}"
    i = breaks[scene_at]
    return " ".join([*words[:i], where, *words[i:]])


def restyle(caption: str, rng: random.Random, *, clip: int = 0, scene_at: int = -1) -> str:
    """One clip's caption in a video captioner's words; `clip` > 0: the step goes on.

    `scene_at` >= 0 puts the scene detail inside the first sentence, before its
    `scene_at`-th preposition (so that a phrase of the caption is no longer quoted whole).
    """
    text = " ".join(caption.split()).strip()
    if not text:
        return f"{SUBJECT} is at the counter."
    first, *more = _SENTENCE_END.split(text)
    c = Clause(first.rstrip(" ."))
    where = scene(text, rng)
    held = held_object(text)
    if clip == 0:
        style = rng.randrange(3)
        if style == 2 and scene_at < 0:
            out = f"{_cap(where)}, {_with_lead(c.lead, SUBJECT.lower() + ' ' + c.says())}"
        else:
            said = c.says() if style != 1 else f"is {c.doing()}"
            out = _with_lead(c.lead, _placed(f"{SUBJECT} {said}", where, scene_at))
    else:
        style = rng.randrange(4 if held else 3)
        doing = c.doing() if not c.past_only else f"at it: {c.says()}"
        if style == 3:
            out = _with_lead(c.lead, f"{SUBJECT} holds the {held} and keeps {doing}")
            out = _placed(out, where, scene_at) if scene_at >= 0 else out
        else:
            lead_in = ("is still", "keeps", "continues")[style]
            out = _with_lead(c.lead, _placed(f"{SUBJECT} {lead_in} {doing}", where, scene_at))
    sentences = [" ".join(out.split()).rstrip(" ,.;") + "."]
    for s in more:
        sentences.append(_later_sentence(s))
    return " ".join(sentences)


def _later_sentence(sentence: str) -> str:
    """A later sentence of the caption: an instruction becomes what the person does; a note stays."""
    words = sentence.split()
    lead = ""
    if words and _bare(words[0]) == "then":
        lead, words = "Then", words[1:]
    second = _bare(words[1]) if len(words) > 1 else ""
    if words and _verb(_bare(words[0])) and second != "not" and not sentence.startswith("("):
        c = Clause(" ".join(words).rstrip(" ."))
        body = f"{SUBJECT if not lead else SUBJECT.lower()} {c.says()}"
        return (f"{lead} {body}" if lead else body).rstrip(" ,.;") + "."
    return sentence
