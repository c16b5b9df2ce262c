"""A question as speech gives it, said as the plain question it asks.

The wearer speaks; speech-to-text writes what was said, hesitations, restarts and all: "uh did i
put the uh the garlic in yet", "did I put the, did I add the garlic", and questions asked as a
request or a doubt: "remind me when I put the oven on", "I can't remember if I salted this",
"tell me how much milk I poured". The answerer reads plain questions, so these are said plain
first: "did i put the garlic in yet", "did I add the garlic", "when did I put the oven on",
"did I salt this", "how much milk did I pour". What is not one of these forms is left as said.
"""

from __future__ import annotations

import re

from edge_assist.text import framed_questions, learner_questions, terse_questions
from edge_assist.text.casual_speech import said_in_full
from edge_assist.text.participles import participle_base
from edge_assist.text.question_voice import is_tag_of, statement_asked
from edge_assist.text.verb_forms import IRREGULAR_PAST

# Sounds that say nothing, wherever they fall; "like" and "so" are words too often to drop.
_HESITATION = re.compile(r"(?:^|(?<=[\s,]))(?:u+h+|u+m+|e+r+m*|h+m+|m+h*m+|a+h+)\b[,.]?\s*", re.I)
# "you know", "I mean" between commas, or opening the question
_ASIDE = re.compile(r"(?:^|,\s*|\s)(?:you know|i mean|like)\s*,\s*|^(?:you know|i mean)\s+", re.I)

# Frames around an embedded question: "remind me when ...", "I can't remember if ...".
_FRAME = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?"
    r"(?:remind\s+me|tell\s+me|let\s+me\s+know|check|see|read\s+(?:me\s+)?back|(?:go|run)\s+over"
    r"|(?:walk|run|take)\s+me\s+through|(?:do|did)\s+you\s+(?:know|remember|see|notice)"
    r"|(?:i\s+)?(?:can't|cannot|can\s+not|don't|do\s+not)\s+(?:remember|recall)|i\s+(?:forget|forgot)"
    r"|i\s+(?:wonder|was\s+wondering)|(?:i'm\s+|i\s+am\s+)?not\s+sure|any\s+idea|no\s+idea)"
    r"(?:\s+(?:again|please|for\s+me))?\s*,?\s+"
    r"(?:of\s+|about\s+)?(if|whether|when|what\s+time|how\s+much|how\s+many|how\s+long|what|where|which)"
    r"\s+(.+)$",
    re.I,
)
# A statement to check, with no "if": "check I've put the vanilla in", "make sure the oven's off".
_CHECKED = re.compile(
    r"^(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:check|make\s+sure|confirm|double[-\s]check)"
    r"(?:\s+for\s+me)?\s+(?:that\s+)?((?:i|the|my)\b.+)$",
    re.I,
)
# A thing and what became of it: "flour went in", "the eggs were beaten"
_THING_WENT = re.compile(r"(?:\w+\s+){0,3}?(?:went|got|has\s+gone|was|were)\b")
# The embedded clause's subject and verb: "I poured", "I've added", "I had salted"
_SUBJECT_VERB = re.compile(
    r"^(?:(i|you)(?:'ve|'d|\s+have|\s+had)?\s+(?:already\s+|just\s+|actually\s+)?(first\s+|last\s+)?)(\S+)\s*(.*)$",
    re.I,
)


# A thing said first, then asked about by a pronoun: "the fruit I cut up, did it go on the plate".
# What the wearer says of the thing ("I cut up") names it only; the question asks of the thing.
_TOPIC = re.compile(
    r"^((?:the|my|that|those|these)\s+[a-z][a-z-]*(?:\s+(?!(?:did|was|were|is|are|has|have|when|where|how|i|you)\b)"
    r"[a-z][a-z-]*)?)(?:\s+(?:i|you)\s+[a-z]+(?:\s+(?:up|in|out|off))?)?"
    r"\s*(?:,|\s[-\u2013\u2014:])?\s+((?:did|was|were|is|are|has|have|when|where|how)\b.*?)"
    r"\b(it|they|them|(?<!of )that)\b(.*)$",
    re.I,
)


# What the wearer tells before asking: "I'm lactose intolerant, was there milk in the eggs?",
# "thinking back to the pizza, did I ...". The question is the clause after the last comma that
# opens as a question does; a time said first ("the first time, ...") stays with it.
_ASKS = re.compile(
    r"^(?:did|do|does|was|were|is|are|has|have|had|when|where|how|what|what's|which|who|any|can|could)\b",
    re.I,
)
_TIME_FIRST = re.compile(
    r"^(?:the\s+)?(?:first|second|third|last|next|other)\s+time$|^(?:earlier|before|today|just\s+now)$"
    r"|^(?:near|at|towards?|right\s+at)\s+(?:the\s+)?(?:very\s+)?(?:start|beginning|end)$|^a\s+(?:minute|moment)\s+ago$",
    re.I,
)
# A time said first as a clause: "before the eggs went in, did I heat the pan" asks about the act
# against that time, so the clause is said after the question, where the order reader looks for it.
_TIME_CLAUSE = re.compile(
    r"^(?:right\s+|just\s+)?(?:before|after|while|once|until|by\s+the\s+time)\s+\S", re.I
)
# ... only of a yes/no question about what was done, and a time named by its own words: "after
# that, what did I do" leans on the last answer (answers/follow_ups.py) and stays as said.
_PAST_YES_NO = re.compile(r"^(?:did|was|were|had|has|have|how\s+(?:long|much|many))\b", re.I)
_POINTS_BACK = re.compile(r"\b(?:it|them|they|that|this|those|these)\b", re.I)
# A told part that says something (a verb, a subject, a contraction), not a thing named first.
# A told sentence that says something: a subject and its verb, a contraction, a helping verb.
_SAYS = re.compile(
    r"\b(?:i|you|we|they|he|she|it)\s+[a-z]+|'(?:m|s|re|ve|d|ll)\b|n't\b"
    r"|\b(?:is|are|was|were|am|do|does|did|have|has|had)\b",
    re.I,
)
# A told part before a comma may also be an "-ing" clause ("thinking back to the pizza"); before a
# full stop or a colon an "-ing" word names a thing ("baking powder: how much").
_CLAUSE = re.compile(rf"{_SAYS.pattern}|[a-z]ing\b", re.I)
# "was there any in the wraps": the thing is the one told before ("my friend doesn't eat fish")
_BARE_ANY = re.compile(r"\bany(?=\s+(?:in|on|at|with|for)\b|$)", re.I)


# What the wearer checks against, said last: "did I rinse three mushrooms, like the recipe says?"
_AS_TOLD = re.compile(
    r",?\s+(?:like|as)\s+(?:the\s+|my\s+)?(?:recipe|instructions?|book|video|it|they|you)\s+"
    r"(?:says?|said|told\s+me|tells?\s+me|wants?|wanted|asks?|asked)$",
    re.I,
)


# How the wearer addresses the assistant, said around the question: "did I salt it, dear?"
_VOCATIVE = re.compile(
    r"(?:,\s*(?:my\s+)?(?:dear|love|darling|sweetheart|sweetie|mate|buddy|pal|please|thanks|thank\s+you)"
    r"(?=\s*(?:$|[,.?!;:]))|^(?:oh\s+)?(?:my\s+)?(?:dear|love|darling|sweetheart|mate|please),\s*)",
    re.I,
)
# A sentence opened as a question politely or of oneself: "Would you mind ...?", "Am I close ...?"
_ASKS_POLITELY = re.compile(r"^(?:would|will|should|am|shall|might|may)\b", re.I)
# A sentence that points back at what was told before it: "Have I done that?"
_BACK = re.compile(r"\b(?:that|it|them)\b", re.I)
# Where one sentence ends and the next begins: "I'm not sure I measured it. How much ...?"; not
# after a short form's full stop ("a 6-oz. ramekin", "1 tbsp. of oil").
_SENTENCE_END = re.compile(r"(?<=[.?!;:])\s+")
_SHORT_FORM = re.compile(
    r"(?:^|[\s\d-])(?:oz|tbsp|tbs|tsp|lb|lbs|g|kg|ml|cl|l|min|mins|sec|secs|hr|hrs|approx|e\.g|i\.e|etc|vs|no|st"
    r"|mr|mrs|ms|dr|\d+)\.$",
    re.I,
)


def _opens_as_question(sentence: str) -> bool:
    opening = _ASKS.match(sentence) or _ASKS_POLITELY.match(sentence)
    return bool(opening or _FRAME.match(sentence.rstrip("?.!")))


def _sentences(text: str) -> list[str]:
    parts: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if parts and _SHORT_FORM.search(parts[-1]):
            parts[-1] = f"{parts[-1]} {piece}"
        else:
            parts.append(piece)
    return parts


# Contractions speech-to-text writes without the apostrophe: "whats next", "i didnt".
_CONTRACTED = {
    "whats": "what's",
    "hows": "how's",
    "wheres": "where's",
    "didnt": "didn't",
    "havent": "haven't",
    "hasnt": "hasn't",
    "wasnt": "wasn't",
    "isnt": "isn't",
    "dont": "don't",
    "cant": "can't",
    "ive": "I've",
    "im": "I'm",
}
_APOSTROPHES = re.compile(r"\b(" + "|".join(_CONTRACTED) + r")\b", re.I)


def _apostrophe(m: re.Match[str]) -> str:
    return _CONTRACTED[m.group(1).lower()]


def plain(question: str) -> str:
    """The question without what speech adds around it; `question` itself when nothing is."""
    spoken = " ".join(question.split())
    whole = said_in_full(spoken)
    q = _VOCATIVE.sub("", _the_question(whole))
    end = q[len(q.rstrip("?.! ")) :]
    body = _ASIDE.sub(" ", _HESITATION.sub(" ", _APOSTROPHES.sub(_apostrophe, q.rstrip("?.! "))))
    body = _restarted(_unrepeated(" ".join(body.split()).strip(" ,")))
    body = _AS_TOLD.sub("", body)
    body = framed_questions.unframed(body) or body  # "any chance I left the fridge open"
    topic = _TOPIC.match(body)  # "the fruit I cut up, did it go ...": the thing, not a telling
    if topic is None or _TIME_FIRST.match(topic.group(1)):
        body = _told_first(body)
    said = _framed(body) or _topic_first(body)
    if said:
        body = learner_questions.plain(said) or said
    else:
        body = learner_questions.plain(body) or terse_questions.plain(body) or body
    return question if body == spoken.rstrip("?.! ") else f"{body}{end}"


def _the_question(text: str) -> str:
    """Of several sentences, the one that asks: "I'm not sure I measured it right. How much
    cheddar did I start with?" asks the second, "How many did I rinse? I meant to do three." the
    first. What is told before a question is left out only when it says something (a clause):
    "eggs: how many did I whisk?" names its thing first (terse_questions.py)."""
    parts = _sentences(text)
    if len(parts) < 2:
        return text
    # a sentence that opens as a question does and is said as one ("how much milk did I pour? three
    # spoons?" asks the first), else the last sentence when it opens as one (speech-to-text writes
    # no question mark); else the sentences are one question, as said
    opens = [i for i, p in enumerate(parts) if _opens_as_question(p)]
    said = [i for i, p in enumerate(parts) if p.endswith("?")]
    asking = [i for i in opens if i in said] or [i for i in opens if i == len(parts) - 1]
    if not asking:
        return text
    i = asking[-1]
    if i > 0 and _BACK.search(parts[i]):
        # "I can't remember if I replaced the filter. Have I done that?": the thing is told before
        earlier = [j for j in opens if j < i]
        return parts[earlier[-1]] if earlier else text
    told = " ".join(parts[:i]).rstrip(".:;!? ")
    if told and not _SAYS.search(told):
        return " ".join(parts[: i + 1])  # a thing named first is what is asked about
    return parts[i]


def _unrepeated(text: str) -> str:
    """Words said twice over, as a speaker does while thinking: "the the garlic", "did I did I
    add": said once. Only runs of up to three words, next to each other."""
    words = text.split()
    out: list[str] = []
    for w in words:
        out.append(w)
        for n in (3, 2, 1):
            if len(out) >= 2 * n and _same(out[-n:], out[-2 * n : -n]):
                del out[-n:]
                break
    return " ".join(out)


def _same(a: list[str], b: list[str]) -> bool:
    return [w.lower().strip(",") for w in a] == [w.lower().strip(",") for w in b]


def _restarted(text: str) -> str:
    """A question begun again: "did I put the, did I add the garlic" asks the second. The restart
    opens with the same two words the question opened with, after a comma or a dash."""
    words = text.split()
    if len(words) < 5:
        return text
    opening = [w.lower() for w in words[:2]]
    for i in range(len(words) - 2, 1, -1):
        if [w.lower().strip(",") for w in words[i : i + 2]] == opening and words[i - 1].endswith((",", "-")):
            return " ".join(words[i:])
    if "-" in words[2:-2]:  # "did I put the - did I add the garlic"
        i = len(words) - 1 - words[::-1].index("-")
        if [w.lower() for w in words[i + 1 : i + 3]] == opening:
            return " ".join(words[i + 1 :])
    return text


def _framed(text: str) -> str | None:
    """The question a request or a doubt embeds: "remind me when I put the oven on" -> "when did
    I put the oven on", "I can't remember if I salted this" -> "did I salt this"."""
    m = _FRAME.match(text)
    if m is None:
        said = _CHECKED.match(text)  # "check I've put the vanilla in": a statement to check
        return statement_asked(said.group(1)) if said else None
    wh, clause = " ".join(m.group(1).lower().split()), m.group(2)
    if wh in ("if", "whether"):
        return statement_asked(clause)
    if wh in ("how much", "how many") and _THING_WENT.match(clause):
        return f"{wh} {clause}"  # "how much flour went in": asked as said (question_voice.py)
    if (sv := _SUBJECT_VERB.match(clause)) and (base := participle_base(sv.group(3))):
        return f"{wh} did I {sv.group(2) or ''}{base}{_rest(sv)}"
    if (asked := statement_asked(clause)) is not None and asked.startswith("did "):
        return f"{wh} {asked}"  # "when the salt went on" -> "when did the salt go on"
    # "how much milk I poured": the thing comes before the clause
    words = clause.split()
    for i in range(1, min(len(words), 5)):
        if words[i].lower() in ("i", "you") and (sv := _SUBJECT_VERB.match(" ".join(words[i:]))):
            if base := participle_base(sv.group(3)):
                return f"{wh} {' '.join(words[:i])} did I {sv.group(2) or ''}{base}{_rest(sv)}"
    return None


def _rest(sv: re.Match[str]) -> str:
    return f" {sv.group(4)}" if sv.group(4) else ""


def _topic_first(text: str) -> str | None:
    """ "the fruit I cut up, did it go on the plate" -> "did the fruit go on the plate"."""
    m = _TOPIC.match(text)
    if m is None or m.group(1).split()[-1].lower() in ("i", "you"):
        return None
    if not m.group(4).strip() and is_tag_of(f"{m.group(2).split()[-1]} {m.group(3)}".lower()):
        return None  # "the honey is in, isn't it": a statement asked back, its tag no pronoun of the thing
    thing = re.sub(r"^(?:that|those|these)\b", "the", m.group(1), flags=re.I)
    return f"{m.group(2)}{thing}{m.group(4)}"


# "after adding the salt, what did I do next?", "once the butter melted, what happened?"
_AFTER_CLAUSE = re.compile(r"^(?:right\s+|just\s+)?(after|once|before|as\s+soon\s+as)\s+(.+)$", re.I)
_WHAT_NEXT = re.compile(
    r"^what\s+(?:did\s+(?:i|you|we)\s+do(?:\s+with\s+(?:it|them))?|happened|came|was\s+(?:i|the)\s+next\s+(?:thing|step)"
    r"(?:\s+(?:i|you)\s+did)?)"
    r"(?:\s+(?:next|then|after\s+that|straight\s+away|straight\s+after|right\s+after))?$",
    re.I,
)


# A time clause that only says when the wearer asks: "before I forget, did I salt it?"
_ASKING_TIME = re.compile(
    r"^(?:before|while|now\s+that)\s+(?:i|you)(?:'m|\s+am|\s+are|'re)?\s+"
    r"(?:forget|think|remember|at\s+it|asking|here|on\s+it)\b",
    re.I,
)


_PASTS = frozenset(IRREGULAR_PAST.values()) | {"was", "were", "had", "did"}


def _time_clause(told: str, asked: str) -> bool:
    """ "before the eggs went in", "while the mushrooms were browning" said before "did I heat the
    pan", "was I stirring them": a past time the act is placed against ("before I lock up" is
    the wearer's own time to come)."""
    words = re.findall(r"[a-z]+", told.lower())[1:]
    clause = _CLAUSE.search(told) is not None
    past = any(w in _PASTS or (w.endswith("ed") and len(w) > 4) for w in words)
    return bool(
        _TIME_CLAUSE.match(told)
        and _PAST_YES_NO.match(asked)
        and (past or not clause)
        and not _ASKING_TIME.match(told)
        and not _POINTS_BACK.search(told)
    )


def _told_first(text: str) -> str:
    """ "I'm lactose intolerant, was there milk in the eggs" -> "was there milk in the eggs";
    "my friend doesn't eat fish, was there any in the wraps" -> "was there any fish in the wraps"."""
    told, comma, asked = text.rpartition(",")
    asked = asked.strip()
    if not comma or not told.strip() or _ASKS.match(told.strip()) or not _ASKS.match(asked):
        return text
    if terse_questions.is_tag(asked):
        return text  # "I didn't put the cumin in, did I": a statement asked back
    told = told.strip()
    m = _AFTER_CLAUSE.match(told)
    if m and _WHAT_NEXT.match(asked) and not _POINTS_BACK.fullmatch(m.group(2).strip()):
        # "after adding the salt, what did I do next?": what was done after that act
        return f"what did I do {'before' if m.group(1).lower() == 'before' else 'after'} {m.group(2)}"
    if _POINTS_BACK.search(asked) and (said := _framed(told)) is not None:
        return said
    if _TIME_FIRST.match(told) or _time_clause(told, asked):
        return f"{asked} {told}"
    if not _CLAUSE.search(told):
        return text  # "and the egg, is that in yet?": a thing named first is what is asked about
    last = re.findall(r"[a-z]+", told.lower())
    if _BARE_ANY.search(asked) and last:
        asked = _BARE_ANY.sub(f"any {last[-1]}", asked, count=1)
    return asked
