"""A question said inside a frame, said as the plain question it asks.

People hedge and frame what they ask: "yes or no, did I use the whisk?", "honestly did I stir it
at all?", "would I have added sugar to the tea?", "any chance I left the fridge open?", "is it
true that I microwaved it twice?", "you saw me put the spinach in, right?", "have we added the
milk yet?", "did I or did I not add the vanilla?". Each asks whether the wearer did something,
so each is said as "did I ...". A time is asked in frames too: "roughly when did the onions go
in?", "at what point did I flip it?", "what time was it when I put the kettle on?", "when was it
that I added the salt?", "how long ago did I turn the oven on?" ask "when did I ...", and "for
how long did I ..." asks "how long". The frames are general speech, not any task's words; what
is not one of them is left as said (None).
"""

from __future__ import annotations

import re

from edge_assist.text.action_families import verb_base
from edge_assist.text.participles import participle_base
from edge_assist.text.question_voice import statement_asked

# Words said before the question that ask nothing of their own ("remind me, did I ...")
_LEAD = re.compile(
    r"^(?:remind\s+me|yes\s+or\s+no|true\s+or\s+false|honestly|seriously|be\s+honest|real\s+quick"
    r"|quick\s+one|just\s+curious|actually|basically|so\s+tell\s+me|tell\s+me\s+honestly"
    r"|wait|hey|oh|okay|ok|so|well|hmm)"
    r"(?:\s*[,:]?\s+(?=(?:did|have|had|was|were|is|are|do|does|would|could|any|i|you|the|my)\b)"
    r"|\s*[,:]\s+(?=(?:when|what|how|where|which)\b))",
    re.I,
)
# "would I have added sugar?", "could I have forgotten the baking powder?": whether it was done
# ("should I have ..." asks for advice, not memory)
_MODAL_PERFECT = re.compile(r"^(?:would|could|might|may)\s+(?:i|we)\s+have\s+(\S+)\s*(.*)$", re.I)
# The wearer and whoever cooks beside them: "have we added the milk", "did we turn it off"
_WE = re.compile(r"(^|\b(?:when|much|many|long|what|where|which|time)\s+)(did|have|had)\s+we\b", re.I)
_WERE_WE = re.compile(r"^were\s+we\b", re.I)
# A modal perfect inside a question for a time or an amount: "when would I have put the butter in?"
_WH_MODAL = re.compile(
    r"^((?:when|what\s+time|how\s+(?:much|many|long)\b.*?))\s+(?:would|could|might)\s+(?:i|we)"
    r"\s+have\s+(\S+)\s*(.*)$",
    re.I,
)
# How near the time need be, said around it: "roughly when", "when exactly", "about what time"
_NEAR = re.compile(
    r"^(?:(?:roughly|about|approximately|around|more\s+or\s+less|exactly|precisely)\s+(?=when\b|what\s+time"
    r"|how\b)|for\s+(?=how\s+long\b))",
    re.I,
)
_EXACTLY = re.compile(r"^(when|what\s+time)\s+(?:exactly|roughly|precisely|approximately)\b", re.I)
# A time asked in other words: "at what point did I", "how long ago did I", "what time was it when I"
_WHEN_WORDS = re.compile(
    r"^(?:at\s+what\s+(?:point|time|stage|moment)|how\s+long\s+ago|what\s+time|when)\s+(?=did\b)", re.I
)
_TIME_OF_CLAUSE = re.compile(
    r"^(?:(?:what\s+time|when)\s+was\s+it\s+(?:when|that)|at\s+what\s+(?:point|time)\s+(?:was\s+it\s+that|did\s+it\s+happen"
    r"\s+that))\s+((?:i|we)\s+.+)$",
    re.I,
)
# A statement framed as a chance or a truth: "any chance I left the fridge open?"
_CHANCE = re.compile(
    r"^(?:(?:is\s+there\s+)?(?:any|a)\s+chance|is\s+it\s+(?:true|right|possible|the\s+case|likely)"
    r"|am\s+i\s+right|could\s+it\s+be|do\s+you\s+think|would\s+you\s+say|is\s+there\s+any\s+way)"
    r"\s+(?:that\s+)?((?:i|we)\s+.+)$",
    re.I,
)
# What the assistant saw the wearer do: "you saw me put the spinach in, right?", "did you see me
# add the salt?"
_WITNESS = re.compile(
    r"^(?:you\s+(?:saw|watched|noticed|caught)\s+me|did\s+you\s+(?:see|watch|notice|catch)\s+me)\s+"
    r"([a-z]+)\s*(.*?)(?:,?\s+(?:right|yeah|didn't\s+you|did\s+you|yes|no))?$",
    re.I,
)
# "didn't I already cut the bread?", "haven't we added the milk?": whether it was done
_NEGATED = re.compile(r"^(did|have|had|was|were)n't\s+(i|we)\b", re.I)
# "had I already chopped the garlic when I heated the pan?": was it done before that
_HAD_WHEN = re.compile(
    r"^had\s+(?:i|we)\s+(?:already\s+)?(\S+)\s+(.+?)\s+(?:when|by\s+the\s+time)\s+((?:i|we)\s+.+)$", re.I
)
# "did I or did I not add the vanilla?", "did I or didn't I ...": whether it was done
_OR_NOT = re.compile(r"^did\s+(i|you)\s+or\s+(?:did\s+(?:i|you)\s+not|didn't\s+(?:i|you))\s+", re.I)


# Eating and drinking said as having: "did I have something to drink?", "have I had a bite to eat
# yet?" ask whether the wearer drank or ate; "make myself a coffee" is making a coffee.
_HAVE_TO = re.compile(
    r"\b(?:have|had|has|get|got)\s+(?:something|anything|a\s+bite|a\s+little|a\s+bit|some\s*thing)\s+to\s+"
    r"(eat|drink)\b",
    re.I,
)
_FOR_MYSELF = re.compile(
    r"\b(make|made|get|got|pour|poured|fix|fixed)\s+(?:myself|me|ourselves|us)\s+(?=a\b|an\b|some\b)", re.I
)


# "once I'd plated the food", "once we had drained it": after it
_ONCE = re.compile(r"\bonce\s+(?:i|we)(?:'d|\s+had)?\s+(?=[a-z]+ed\b|[a-z]+en\b|[a-z]+t\b)", re.I)
# "once I was done stir-frying", "after I'd finished with the dough": after the act itself, its
# last time ("finally")
_DONE = re.compile(
    r"\b(?:once|after|when)\s+(?:i|we)(?:'d|'m|\s+was|\s+were|\s+had|\s+am)?\s+(?:done|finished|through)"
    r"\s+(?:with\s+)?(?=\S)",
    re.I,
)


def _ate_or_drank(m: re.Match[str]) -> str:
    """ "have something to drink" -> "drink something"; after "had" or "has": "drunk something"."""
    act = m.group(1).lower()
    done = m.group(0).lower().startswith(("had", "has"))
    return f"{ ({'eat': 'eaten', 'drink': 'drunk'}[act] if done else act) } something"


# Getting an activity going is starting it: "when did I get going on my studying?", "got started
# on the dishes", "before I got on with the onions".
_GET_GOING = re.compile(
    r"\b(?:get|gets|got|getting|gotten)\s+(?:going|started|cracking|stuck\s+in)\s+(?:on|with)\s+(?:my\s+)?"
    r"|\b(?:get|gets|got|getting|gotten)\s+on\s+with\s+(?:my\s+)?",
    re.I,
)


_AFTER_AUX = re.compile(r"\b(?:did|do|does|to|will|can)\s+(?:i|you|we)\s+$|\bto\s+$", re.I)


def _started(m: re.Match[str]) -> str:
    return "start " if _AFTER_AUX.search(m.string[: m.start()]) else "started "


def unframed(question: str) -> str | None:
    """The plain "did I ..." a framed yes/no question asks, or None when it has no such frame."""
    q = " ".join(question.split())
    end = q[len(q.rstrip("?.! ")) :]
    body = q.rstrip("?.! ")
    said = _EXACTLY.sub(r"\1", _NEAR.sub("", _LEAD.sub("", body)))
    said = _WHEN_WORDS.sub("when ", said)
    said = _NEGATED.sub(lambda m: f"{'was' if m.group(1) == 'were' else m.group(1)} I", said)
    said = _OR_NOT.sub(lambda m: f"did {m.group(1)} ", said)
    said = _WERE_WE.sub("was I", _WE.sub(lambda m: f"{m.group(1)}{m.group(2)} I", said))
    said = _FOR_MYSELF.sub(r"\1 ", _HAVE_TO.sub(_ate_or_drank, said))
    said = _ONCE.sub("after I ", _DONE.sub("after I finally ", said))
    said = _GET_GOING.sub(_started, said)
    asked = _asked(said)
    if asked is not None:
        return f"{asked}{end}"
    return f"{said}{end}" if said != body else None


def _asked(q: str) -> str | None:
    if (m := _HAD_WHEN.match(q)) and (base := participle_base(m.group(1))):
        return f"did I {base} {m.group(2)} before {m.group(3)}"
    if (m := _WH_MODAL.match(q)) and (base := participle_base(m.group(2))):
        return f"{m.group(1)} did I {base}{_tail(m.group(3))}"
    if (m := _TIME_OF_CLAUSE.match(q)) and (
        did := statement_asked(re.sub(r"^we\b", "i", m.group(1), flags=re.I))
    ):
        return f"when {did}" if did.startswith("did ") else None
    if (m := _MODAL_PERFECT.match(q)) and (base := participle_base(m.group(1))):
        return f"did I {base}{_tail(m.group(2))}"
    if m := _CHANCE.match(q):
        return statement_asked(re.sub(r"^we\b", "i", m.group(1), flags=re.I))
    if (m := _WITNESS.match(q)) and (base := verb_base(m.group(1))):
        return f"did I {base}{_tail(m.group(2))}"
    return None


def _tail(rest: str) -> str:
    return f" {rest}" if rest else ""
