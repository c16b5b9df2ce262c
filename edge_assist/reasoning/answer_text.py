"""The words of a grounded answer: what kind of question it is, what to look up, how a
remembered moment is told back to the wearer, and how a long answer is paged.

Everything here is deterministic text work, no model: a caption (an imperative recipe
step, a first-person note, a third-person VLM caption) becomes a second-person, past
sentence with its time ("At 1:40 you cut the English muffin into two pieces with a
knife."). A caption the rules cannot turn is quoted, never guessed at ("At 1:40 I saw:
...") so the sentence never says more than the evidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from edge_assist.reasoning import prompts
from edge_assist.text.coordinated_verbs import ADVERBS, follow_tense
from edge_assist.text.stop_words import ANSWER_STOP_WORDS
from edge_assist.text.stream_time import stream_clock
from edge_assist.text.verb_forms import IRREGULAR_PAST, base_of_third_person, is_verb, past_tense

# What the wearer hears when memory holds nothing that answers: never an invented answer.
DONT_REMEMBER = "I don't remember you doing that."
NO_DONT_REMEMBER = "No, I don't remember you doing that."
NOTHING_AFTER = "I don't remember what you did after that."
NOTHING_BEFORE = "I don't remember what you did before that."
ABSTAIN_MARKERS = ("don't remember", "do not remember", "could not work that out")

# -- question kinds -------------------------------------------------------------------------
KINDS = ("yesno", "after", "before", "when", "with", "howmuch", "what")

_YESNO = re.compile(r"^(did|do|have|has|had|was|were|am)\s+(i|you)\b", re.I)
# A question that opens with its helping verb asks yes or no of whatever its subject is: "was the
# pan hot when the mushrooms went in?", "has it been plated up?", "did the pan get some salt?".
_AUX_FIRST = re.compile(r"^(?:did|do|does|have|has|had|was|were|is|are|am)\s+(?=\S)", re.I)
# "once" and "as soon as" before a clause say "after" too: "what did I do once the dish was on the
# table?" asks for the act after that moment, not for the moment itself
_AFTER = re.compile(
    r"\b(?:(?:right |just |straight |immediately )?after|as soon as"
    r"|once(?=\s+(?:the|i|you|it|my|that|this|those|these|all|everything|they|we|he|she|both)\b))\b\s*(.*)$",
    re.I,
)
_BEFORE = re.compile(r"\b(?:right |just |straight |immediately )?before\b\s*(.*)$", re.I)
_LEAD = re.compile(r"^(?:when|what time|what|where|which|who|how (?:much|many|long|often)|how)\b\s*", re.I)
_AUX = re.compile(r"\b(?:did|do|does|have|has|had|was|were|am|is|are)\s+(?:i|you|we)\b\s*", re.I)


def question_kind(question: str) -> str:
    q = " ".join(question.lower().split()).rstrip("?.! ")
    if _YESNO.match(q) or _AUX_FIRST.match(q):
        return "yesno"
    if q.startswith(("what", "which")) and _AFTER.search(q):
        return "after"
    if q.startswith(("what", "which")) and _BEFORE.search(q):
        return "before"
    if q.startswith(("when", "what time")):
        return "when"
    if q.startswith("how much") or q.startswith("how many") or q.startswith("how long"):
        return "howmuch"
    if q.startswith(("what", "which")) and q.endswith(" with"):
        return "with"
    return "what"


# A question that points to an earlier day itself ("yesterday evening", "two days ago", "on
# Monday", "last week"); "when did I last ..." is not one: it asks for the latest time.
_PAST_DAY = re.compile(
    r"\b(?:yesterday|ago|previous|the other day|(?:last|this past) (?:night|week|weekend|month|year|time)"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day|days|weeks|months)\b",
    re.I,
)


def names_past_day(question: str) -> bool:
    return bool(_PAST_DAY.search(question))


# "when did I start cooking the onions?", "began to stir": the act itself, from its first moment
# (which moment is the question's to say: answers/quantity_question.which_time)
_STARTED = re.compile(
    r"^((?:\w+\s+)?)(?:start|started|starting|begin|began|begun)\s+(?:to\s+(?=\w)|(?=\w+ing\b))", re.I
)


_STARTED_ON = re.compile(
    r"^((?:\w+\s+)?)(?:start|started|starting|begin|began|begun)\s+(?:(?:on|with)\s+)?(?=(?:the|my|some|a)\b)",
    re.I,
)


# "kneading this time", "stir it the first time": which time is the question's to say
# (answers/quantity_question.which_time); the act is what is looked up
_WHICH_TIME = re.compile(
    r"\s+(?:(?:this|the\s+(?:first|second|last))\s+(?:time|round|go)|at\s+the\s+(?:very\s+)?(?:end|start|beginning)|at\s+first)$",
    re.I,
)
# "did I wash my hands at any point?", "... at all?", "... already?": any time of the act, which is
# how one is looked up ("already" still makes a step to come a "Not yet": skipped_step.py). "Yet"
# stays: it asks about an act that may still be to come, which a close caption must really tell.
_ANY_TIME = re.compile(
    r"\s+(?:at\s+(?:any|some)\s+(?:point|stage|time)|at\s+all|ever|in\s+there|today"
    r"|already|by\s+now|so\s+far|just\s+now)$",
    re.I,
)


_THE_TIME_I = re.compile(r"^(?:was|is)\s+the\s+(?:first|last)\s+time\s+(?:that\s+)?(?:i|you)\s+(?=\S)", re.I)


def question_focus(question: str) -> str:
    """The part of a question that names the moment to look up ("cut the English muffin")."""
    # "when did I last refill it?": which time is the question's to say, the act is what is looked up
    focus = re.sub(r"^(?:finally|last|first|initially)\s+(?=\S)", "", _question_focus(question), flags=re.I)
    # "when was the last time I stirred it?" looks up the stirring
    focus = _THE_TIME_I.sub("", focus)
    focus = _WHICH_TIME.sub("", focus) or focus
    focus = _ANY_TIME.sub("", focus) or focus
    focus = _STARTED.sub(r"\1", focus) or focus
    # "when did I start (on) the onion?": anything done to it, from its first moment
    return _STARTED_ON.sub(r"\1do ", focus)


def _question_focus(question: str) -> str:
    q = " ".join(question.split()).rstrip("?.! ")
    kind = question_kind(q)
    if kind in ("after", "before"):
        m = (_AFTER if kind == "after" else _BEFORE).search(q)
        rest = m.group(1) if m else q
        rest = re.sub(r"^(?:i|you)\s+", "", rest, flags=re.I)
        return rest or q
    if kind == "yesno":
        rest = _YESNO.sub("", q).strip() if _YESNO.match(q) else _AUX_FIRST.sub("", q).strip()
        # "did I ever ..." / "did I already ..." name the same moment
        return re.sub(r"^(?:ever|already|actually|really|just)\s+", "", rest, flags=re.I) or q
    rest = " ".join(_AUX.sub(" ", _LEAD.sub("", q)).split())
    rest = re.sub(r"\s+with$", "", rest, flags=re.I)
    if q.lower().startswith("how long"):
        rest = re.sub(r"\s+for$", "", rest, flags=re.I)  # "how long was I studying for?"
    return rest or q


# -- second person, past ----------------------------------------------------------------------
_SUBJECTS = re.compile(
    r"^(?:#?c\b\s*c?|the wearer|the person|a person|the user|someone|somebody|"
    r"a man|a woman|the man|the woman|person|he|she|they)\s+",
    re.I,
)


def _past_clause(words: list[str], *, narrated: bool = False) -> list[str] | None:
    """`words` start with a verb (base, -s, -ed) or an adverb and a verb: the clause in the past.
    `narrated`: they follow a narrator's subject ("The person removes ..."), so an -s word first
    is that person's act, a verb we know or not."""
    if not words:
        return None
    head = words[0].lower().strip(",")
    lead: list[str] = []
    if head in ADVERBS and len(words) > 1:
        lead, words, head = [head], words[1:], words[1].lower().strip(",")
    comma = "," if words[0].endswith(",") else ""  # "Cook, stirring often, ...": the comma stays
    if is_verb(head):
        return [*lead, past_tense(head) + comma, *words[1:]]
    if head.endswith("ed") and len(head) > 4:  # already past: "Stirred ramekin cup with knife"
        return [*lead, head + comma, *words[1:]]
    if head.endswith("s") and (
        is_verb(base_of_third_person(head))
        or (narrated and not head.endswith(("ss", "us")) and len(head) > 3)
    ):
        return [*lead, past_tense(base_of_third_person(head)) + comma, *words[1:]]
    return None


_PASTS = frozenset(IRREGULAR_PAST.values()) - {"were", "had"}


def _tense_throughout(clause: str, *, narration: bool = False) -> str:
    """Every action of the clause in the tense of its first: "you came back and grabbed the knife"."""
    words = clause.split()
    k = next((k for k, w in enumerate(words[:-1]) if w.lower() == "you"), -1)
    if k < 0:
        return clause
    verb = words[k + 1].lower().strip(",")
    progressive = (
        verb == "were" and words[k + 2 : k + 3] != [] and (words[k + 2].lower().strip(",").endswith("ing"))
    )
    # "you would ...", "you had ...", or a first verb the rules left as it was ("you pump"):
    # the others keep their form too.
    if not progressive and not (verb.endswith("ed") or verb in _PASTS):
        return clause
    start = k + 3 if progressive else k + 2
    followed = follow_tense(words[start:], progressive=progressive, narration=narration)
    return " ".join(w for w in [*words[:start], *followed] if w)


def _first_person(s: str) -> str:
    s = re.sub(r"^(?:now|then|next|here),?\s+(?=I\b)", "", s, flags=re.I)
    s = re.sub(r"\bI(?:'m| am| was)\b", "you were", s)
    s = re.sub(r"\bI(?:'ve| have)\b", "you had", s)
    s = re.sub(r"\bI'll\b", "you would", s)

    def subject(m: re.Match[str]) -> str:
        nxt = m.group(2)
        if is_verb(nxt):  # "I take" -> "you took"; "I tipped" stays
            nxt = past_tense(nxt)
        elif nxt.lower().endswith("s") and is_verb(base_of_third_person(nxt)):
            nxt = past_tense(base_of_third_person(nxt))
        return f"you{m.group(1)}{nxt}"

    s = re.sub(r"\bI(\s+)([A-Za-z]+)", subject, s)
    s = re.sub(r"\bI\b", "you", s)
    s = re.sub(r"\bmyself\b", "yourself", s, flags=re.I)
    s = re.sub(r"\bmy\b", "your", s, flags=re.I)
    s = re.sub(r"\bme\b", "you", s)
    return s


def second_person(caption: str) -> str | None:
    """The caption as something the wearer did, in the second person and the past.

    Returns the clause without a time ("you cut the English muffin ...", or "to scoop
    jelly, you were taking a knife"), or None when no rule applies. Every verb coordinated
    with the first takes its tense too ("you came back and grabbed the knife").
    """
    s = " ".join(caption.split()).strip().rstrip(".!;,")
    if not s:
        return None
    narration = _SUBJECTS.match(s) is not None and not re.search(r"\bI\b|\bI'm\b|\bI've\b", s)
    clause = _second_person(s)
    return None if clause is None else _tense_throughout(clause, narration=narration)


def _second_person(s: str) -> str | None:
    if re.search(r"\bI\b|\bI'm\b|\bI've\b", s):
        out = _first_person(s)
        # It follows "At 1:40, ...": a leading capital goes, unless the word is all capitals.
        return out if out[1:2].isupper() else out[0].lower() + out[1:]
    m = _SUBJECTS.match(s)
    if m:
        rest = s[m.end() :].split()
        if (
            len(rest) >= 2
            and rest[0].lower() in ("is", "was", "are", "were")
            and rest[1].lower().endswith("ing")
        ):
            return "you were " + " ".join(rest[1:])
        clause = _past_clause(rest, narrated=True)
        return "you " + " ".join(clause) if clause else None
    words = s.split()
    clause = _past_clause(words)
    if clause is not None:
        return "you " + " ".join(clause)
    # "In a bowl, add the flour": a leading phrase, then the imperative.
    for i, w in enumerate(words[:-1]):
        if w.endswith(","):
            clause = _past_clause(words[i + 1 :])
            if clause is not None:
                lead = " ".join(words[: i + 1])
                return f"{lead[0].lower()}{lead[1:]} you {' '.join(clause)}"
            break
    return None


def when_text(t0: float, note: str = "") -> str:
    """'At 1:40' in the current session; the age ('Yesterday', '3 h earlier') for an earlier one."""
    if note:
        return note[0].upper() + note[1:]
    return f"At {stream_clock(t0)}"


def tell(caption: str, t0: float, note: str = "") -> str:
    """One remembered moment as a sentence: 'At 1:40 you cut the English muffin in two.'"""
    when = when_text(t0, note)
    clause = second_person(caption)
    if clause is None:
        quoted = " ".join(caption.split()).rstrip(".")
        return f"{when} I saw: {quoted[0].lower() + quoted[1:] if quoted[:2].istitle() else quoted}."
    sep = " " if clause.startswith("you ") else ", "
    return f"{when}{sep}{clause}."


def compose(kind: str, caption: str, t0: float, note: str = "") -> str:
    """The answer to a question of `kind` from the moment that answers it."""
    sentence = tell(caption, t0, note)
    if kind == "yesno":
        return "Yes. " + sentence
    if kind == "after":
        return "Right after that: " + sentence[0].lower() + sentence[1:]
    if kind == "before":
        return "Just before that: " + sentence[0].lower() + sentence[1:]
    if kind == "with" and not _INSTRUMENT.search(caption):
        # the moment is found, but it does not say what was used: that part is not known
        return f"{sentence} I don't remember what you used."
    return sentence


# A caption that names what an act was done with: "with a knife", "using the whisk", "by hand".
_INSTRUMENT = re.compile(r"\b(?:with|using|by)\b", re.I)


def abstention(kind: str) -> str:
    """What is said when nothing in memory answers: never a "No", which must be earned
    (answers/earned_no.py), whatever the kind of question."""
    return DONT_REMEMBER


def is_abstention(text: str) -> bool:
    t = text.lower().replace("’", "'")
    return any(m in t for m in ABSTAIN_MARKERS)


# -- faithfulness ----------------------------------------------------------------------------


def _stem(w: str) -> str:
    """Naive: 'stirred', 'stirring', 'stir' -> 'stir'; 'placed', 'place' -> 'plac'."""
    for suf in ("ing", "ed", "es", "s", "ly"):
        if w.endswith(suf) and len(w) - len(suf) >= 3 and not (suf == "s" and w.endswith("ss")):
            w = w[: -len(suf)]
            break
    if len(w) > 3 and w.endswith("ss"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousl":
        w = w[:-1]
    return w


def content_words(text: str) -> set[str]:
    """Lower-case content words, naively stemmed; numbers kept (they are facts)."""
    words = re.findall(r"[a-z]+|\d+(?:[.:/]\d+)*", text.lower())
    return {_stem(w) for w in words if w not in ANSWER_STOP_WORDS and (len(w) > 1 or w.isdigit())}


def new_content(rephrased: str, sources: Sequence[str]) -> set[str]:
    """Content words of `rephrased` that none of `sources` (composed answer, evidence) contain."""
    allowed: set[str] = set()
    for s in sources:
        allowed |= content_words(s)
        # irregular pasts and bases are the same fact: "cut"/"cut", "took"/"take"
        for w in re.findall(r"[a-z]+", s.lower()):
            if w in IRREGULAR_PAST:
                allowed.add(_stem(IRREGULAR_PAST[w]))
    return content_words(rephrased) - allowed


# -- cutting ---------------------------------------------------------------------------------
def grammar_cut(text: str, max_chars: int) -> str:
    """A field a JSON grammar capped at `max_chars` may end inside a word: drop that word."""
    text = " ".join(text.split())
    if len(text) < max_chars:
        return text
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s|$)", text)]
    if ends and ends[-1] >= len(text) // 2:
        return text[: ends[-1]]
    head = text.rsplit(" ", 1)[0].rstrip(",;:-") if " " in text else text
    return head + "…"


def clip_label(t0: float, t1: float) -> str:
    return prompts.clip_time(t0, t1)
