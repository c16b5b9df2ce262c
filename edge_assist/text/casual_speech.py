"""Casual speech said in full: "d'ya know how much baking powder I put in" is "do you know how
much ...", "which'd I do first" is "which did I do first", "lemme think... how long was I
chopping" asks "how long was I chopping".

People talk to their glasses the way they talk while busy: run-together words, a thought said
aloud before the question, a reason after it ("..., gonna need to know if there's enough").
Every rule here only rewrites a form no plain question uses, so a question said plainly passes
through unchanged.
"""

from __future__ import annotations

import re

# Run-together words, each with what it says in full.
_RUN_TOGETHER = {
    r"d'?ya|d'you|do\s+ya": "do you",
    r"didja|did\s+ya": "did you",
    r"lemme": "let me",
    r"gimme": "give me",
    r"gonna": "going to",
    r"wanna": "want to",
    r"gotta": "got to",
    r"kinda": "kind of",
    r"sorta": "sort of",
    r"lil": "little",
    r"cuz|'cause|coz": "because",
    r"'em": "them",
    r"y'know": "you know",
}
_FULL = [(re.compile(rf"(?<![\w']){form}(?![\w'])", re.I), said) for form, said in _RUN_TOGETHER.items()]
# "which'd", "how long'd", "what'd": a question word with "did" run on
_WH_DID = re.compile(r"\b(what|which|where|when|who|why|how(?:\s+(?:long|much|many|often))?)'d(?=\s)", re.I)
# A thought said aloud before the question: "lemme think...", "let's see,", "hmm ok so"
_THINKING = re.compile(
    r"^(?:(?:let\s+me|let's)\s+(?:think|see)|now\s+then|ok(?:ay)?\s+so|so+\s+yeah|so|sorry)\b[\s.,:;!-]*",
    re.I,
)
# A question with the answer's use said after it: "how many did I pour, gonna need to know if
# there's enough", "when did the rice go on, because I need to time it". Cut only after a comma
# and only when what stands before it asks on its own.
_REASON_TAIL = re.compile(
    r",\s*(?:(?:(?:i'm|i\s+am|i)\s+)?(?:going\s+to|got\s+to|want\s+to|have\s+to|need\s+to)\s+"
    r"(?:need|know|check|tell|make|figure|work|see|plan|get)|because|so\s+(?:that\s+)?i\b|in\s+case"
    r"|i\s+(?:can\s+never|never|always|can't|cannot|just\s+can't)\s+(?:remember|recall)|i\s+(?:always\s+)?forget"
    r"|i\s+(?:don't|do\s+not)\s+(?:remember|recall))\b.*$",
    re.I,
)
_ASKS = re.compile(
    r"^(?:did|do|does|was|were|is|are|has|have|had|when|where|how|what|what's|which|who|can|could)\b",
    re.I,
)
# A thing said, a dash, then what is asked of it: "the egg -- it went on top of the lettuce?" is
# said as the comma form the topic reading knows ("the egg, it went ...")
_TOPIC_DASH = re.compile(
    r"^((?:the|my|that|this|those|these)\s+[\w' -]+?)\s*(?:--|\u2014|\u2013|\s-)\s+"
    r"(?=(?:it|they|that|this|those|did|was|were|has|have|had|when|how|i)\b)",
    re.I,
)
# A question broken off for the thing it is about: "did I -- the garlic, did that go in?"
_BROKEN_OFF = re.compile(
    r"^(?:did|have|had|was|were|is)\s+(?:i|you|it)\s*(?:--|\u2014|\u2013|\s-)\s+(?=(?:the|my)\b)", re.I
)
# A thing and where it went, with nothing else: "broccoli in?", "wasabi on, yeah?", "the lid off?"
_TERSE_PLACE = re.compile(
    r"^(?:the\s+|my\s+|any\s+|some\s+)?([a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)\s+(in|on|out|off)"
    r"(\s+(?:yet|already|now))?(?:,?\s+(?:yeah|yes|right|innit|no|yep))?$",
    re.I,
)
_TERSE_SAID = {
    "in": "did the {} go in",
    "on": "did the {} go on",
    "out": "did I take the {} out",
    "off": "did I take the {} off",
}
# What is switched off rather than taken off: "the gas off?"
_SWITCHED = frozenset(
    "gas heat stove hob oven burner cooker tap light lights fan extractor kettle microwave".split()
)
_NOT_TERSE = frozenset(
    "i you we it they that this what which who how when where why did do does was were is are has have had "
    "put turn take get go went".split()
)
# A statement said without its subject: "made myself a drink, right?", "squirted some ketchup on
# top, didn't I?": the wearer did it
_NO_SUBJECT = re.compile(
    r"^([a-z]+ed|made|put|got|took|left|cut|threw|ate|drank|did|had|went|set)\s+(?!i\b)", re.I
)
_TOLD_TAG = re.compile(r",?\s+(?:right|yeah|yes|didn't\s+i|did\s+i|no|innit|correct)$", re.I)
# Words that stress and say nothing: "when the noodles actually went in", "what was I even making"
_STRESS = re.compile(r"\bactually\s+|(?<=\bi\s)even\s+|(?<=\bwas\s)like\s+|^and\s+like\s+", re.I)
# "after I'd diced the meat what did I do next?": the anchor said first, with no comma
_ANCHOR_FIRST = re.compile(
    r"^((?:right\s+|just\s+)?(?:after|once|before)\s+.+?),?\s+(?=(?:what|which|how|when|where)\b)",
    re.I,
)
# "came out the pan": out of it
_OUT_THE = re.compile(
    r"\b(come|came|comes|coming|take|took|taken|taking|get|got|getting)\s+out\s+(?=(?:the|my|a)\s)", re.I
)
# "..., or nah", "..., or what": asking both ways adds nothing
_OR_NOT = re.compile(r",?\s+or(?:\s+(?:nah|na|nope|what|whatever|no))?$", re.I)


_WEARER_TOLD = re.compile(r"^i\s+[a-z]+(?:\s+[a-z]+)?\s+(them|it)\b", re.I)
_PRONOUN_TOLD = re.compile(r"^(?:it|they)\s+(?!(?:did|does|do|was|were|is|are|has|have|had)\b)", re.I)


def _topic_said(body: str) -> str:
    """ "the egg -- it went on the lettuce" -> "the egg went on the lettuce" (a statement, asked back
    as one); "the rice -- did it go in" -> "the rice, did it go in"."""
    m = _TOPIC_DASH.match(body)
    if m is None:
        return body
    rest = body[m.end() :]
    if (told := _PRONOUN_TOLD.match(rest)) is not None:
        return f"{m.group(1)} {rest[told.end() :]}"
    if (wearer := _WEARER_TOLD.match(rest)) is not None:
        # "the eggs -- I boiled them, yeah?": the thing in the pronoun's place
        return f"{rest[: wearer.start(1)]}{m.group(1)}{rest[wearer.end(1) :]}"
    return f"{m.group(1)}, {rest}"


def said_in_full(question: str) -> str:
    """`question` with run-together words said in full and the thought before it and the reason
    after it left out; unchanged when it has none."""
    q = question
    for form, full in _FULL:
        q = form.sub(full, q)
    q = _WH_DID.sub(lambda m: f"{m.group(1)} did", q)
    end = q[len(q.rstrip("?.! ")) :]
    body = _THINKING.sub("", q.rstrip("?.! "))
    body = _topic_said(_BROKEN_OFF.sub("", body))
    body = _OR_NOT.sub("", _STRESS.sub("", body))
    body = _OUT_THE.sub(lambda m: f"{m.group(1)} out of ", body)
    body = _ANCHOR_FIRST.sub(lambda m: f"{m.group(1)}, ", body)
    if (m := _TERSE_PLACE.match(body)) and not _NOT_TERSE.intersection(m.group(1).lower().split()):
        said = _TERSE_SAID[m.group(2).lower()]
        if m.group(2).lower() == "off" and m.group(1).lower().split()[-1] in _SWITCHED:
            said = "did I turn the {} off"
        body = said.format(m.group(1)) + (m.group(3) or "")
    elif _NO_SUBJECT.match(body) and _TOLD_TAG.search(body):
        body = f"I {body}"
    cut = _REASON_TAIL.search(body)
    if cut is not None and _ASKS.match(body[: cut.start()].strip()):
        body = body[: cut.start()]
    body = body.strip(" ,")
    if not body:
        return question
    return f"{body}{end}"
