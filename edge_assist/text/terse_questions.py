"""A question said tersely, the thing first and the asking after it, said as the plain question.

People ask an assistant the way they jot notes: "salsa, how much?", "eggs: how many did I whisk?",
"cheese on top - when?", "the egg: did I beat it before zapping?", "blender - how long did I
blitz it?", and a bare participle for a yes/no: "pan greased with oil?", "dried herbs sprinkled
in?". A done act said first asks what follows: "blitzed. now what?". The answerer reads plain
questions, so these are said as "how much salsa did I use", "how many eggs did I whisk", "when
did the cheese go on top", "did I beat the egg before zapping", "how long did I blitz it in the
blender", "did I grease the pan with oil", "what's next". Anything else is left as said.
"""

from __future__ import annotations

import re

from edge_assist.text.action_families import APPLIANCE_ACTS, known
from edge_assist.text.kinds_of_things import is_food
from edge_assist.text.participles import participle_base
from edge_assist.text.question_voice import is_tag_of
from edge_assist.text.verb_forms import is_verb

# The thing, then a colon, a dash, a comma or a full stop, then the asking: "salsa, how much".
_SPLIT = re.compile(r"^(?P<topic>[^:,.?!]+?)\s*(?::|\s[-\u2013\u2014]|,|\.)\s+(?P<rest>\S.*)$")
_QUESTION = re.compile(r"^(?:did|do|does|was|were|is|are|has|have|had|when|where|how|what|what's|which)\b")
# A topic that is a time or a place said first ("at the two-minute mark"), not a thing.
_NOT_A_TOPIC = re.compile(
    r"^(?:at|about|around|after|before|by|in|on|towards?|during|when|while|so|ok|okay|and|but|i|you|it)\b"
)
_DETERMINER = re.compile(r"^(?:the|my|a|an|some|that|those|these)\s+")
_NEXT = re.compile(r"^(?:(?:and\s+)?now\s+what|what\s+now|what\s+next|what's\s+next|next)$")
_AMOUNT = re.compile(r"^how\s+(much|many)(?:\s+(?:of\s+(?:that|it|them|those)|in\s+all|altogether))?$")
_AMOUNT_ASKED = re.compile(r"^how\s+(much|many)\s+((?:did|have|had)\s+(?:i|you)\b.*)$")
_SKIPPED = re.compile(
    r"^(?:(?:is\s+there\s+)?anything\s+(?:i|you)\s+(?:skipped|missed|left\s+out|forgot)"
    r"|did\s+(?:i|you)\s+(?:skip|miss|leave\s+out|forget)\s+anything|what\s+did\s+(?:i|you)\s+"
    r"(?:skip|miss|leave\s+out|forget))$"
)
_ASKED_LAST = re.compile(r"^(\S+)\s+(.+?)\s+(when|how long|how much|how many|where)$")
_PRONOUN = re.compile(r"\b(it|them|they|that|one)\b")
# Where a thing is said to be in a topic: "cheese on top", "the red bits into the bowl".
_PLACED = re.compile(r"^(?P<thing>.+?)\s+(?P<where>(?:on|in|into|onto|over)\b.*)$")
# Vessels: a pronoun asked of one is what is in it ("blender - did I blitz it").
_VESSELS = frozenset("bowl cup mug dish plate jar glass tray".split())
# Past forms that are no participle of a thing's fate ("the salt went in" is a statement).
_NOT_PARTICIPLES = frozenset("went got was were had did is are".split())
# A verb "to be" or "have" in the words before a participle: the words are a clause, not a thing.
_BE = re.compile(r"\b(?:is|are|was|were|has|have|had|been|being)\b|'s\b|'re\b|'ve\b")


# Two things and their order, no verb: "salt, then the black pepper?", "the garlic before the onion?"
_THEN = re.compile(
    r"^((?:the\s+|my\s+)?[a-z-]+(?:\s+[a-z-]+){0,2}?)\s*,?\s+(?:and\s+)?(then|before|after|followed\s+by)\s+"
    r"((?:the\s+|my\s+)?[a-z-]+(?:\s+[a-z-]+){0,2})$"
)

_FIRST = re.compile(r"^((?:the\s+|my\s+)?[a-z-]+(?:\s+[a-z-]+)?)\s+first\b")
_LAST_PLACE = re.compile(r"\s+(?:on\s+top|on\s+it|in\s+it|on\s+there|in\s+there)$")


def plain(text: str) -> str | None:
    """The plain question a terse one asks, or None when `text` is not terse."""
    low = " ".join(text.lower().split()).rstrip("?.! ")
    head, comma, tag = low.rpartition(",")
    if comma and is_tag_of(tag.strip()) and (said := _things_in_order(head) or _thing_placed(head)):
        return said  # "lettuce first and then the egg on top, right?"
    if (said := _things_in_order(low)) is not None:
        return said
    if (m := _SPLIT.match(low)) is not None:
        if (said := _topic_then_asking(m.group("topic").strip(), m.group("rest").strip())) is not None:
            return said
    return _done_then_asking(low) or _bare_participle(low) or _thing_placed(low) or _act_setting(low)


# A setting an act had, the act said by a noun or a bare verb: "was the first zap on full power?",
# "microwave on full power at the end?".
_SETTING = (
    r"(?:on|at)\s+(?:high|low|medium|medium-high|medium-low|full|max|maximum|half)(?:\s+(?:power|heat))?"
)
_WAS_ACT_ON = re.compile(
    rf"^(?:was|were)\s+(?:the|my)\s+(?:(first|second|last|final)\s+)?([a-z]+)\s+({_SETTING})$"
)
_ACT_ON = re.compile(
    rf"^([a-z]+)\s+({_SETTING})(\s+(?:at\s+the\s+(?:end|start)|the\s+(?:first|second|last)\s+time|at\s+first))?$"
)


def _act_setting(low: str) -> str | None:
    """ "was the first zap on full power" -> "did I zap it on full power the first time";
    "microwave on full power at the end" -> "did I microwave it on full power at the end"."""
    if m := _WAS_ACT_ON.match(low):
        act, which = m.group(2), {"final": "last"}.get(m.group(1) or "", m.group(1) or "")
        when = f" the {which} time" if which else ""
        return f"did I {act} it {m.group(3)}{when}" if is_verb(act) and known(act) else None
    if (m := _ACT_ON.match(low)) and is_verb(m.group(1)) and known(m.group(1)):
        return f"did I {m.group(1)} it {m.group(2)}{m.group(3) or ''}"
    return None


# A thing and where it went, no verb: "milk in the eggs", "cheese on the toast".
_THING_PLACED = re.compile(
    r"^((?:the\s+|my\s+|some\s+)?[a-z-]+(?:\s+[a-z-]+){0,2}?)\s+((?:in|into|on|onto|over)\s+(?:the|my|a|an)\s+.+)$"
)


_ANY = re.compile(r"^(?:any|anything|something|no|nothing)\b")  # "any fruit on the plate?" is asked as said
_STATES = frozenset("hot cold warm cool ready done set melted runny still now".split())


def _thing_placed(low: str) -> str | None:
    """ "milk in the eggs" -> "did I add the milk in the eggs": a food only, named by nouns."""
    m = _THING_PLACED.match(low)
    if m is None or _QUESTION.match(low) or _NOT_A_TOPIC.match(low) or _ANY.match(low):
        return None
    thing = _DETERMINER.sub("", m.group(1))
    if any(_said_of_a_thing(w) for w in thing.split()) or _BE.search(thing):
        return None
    if not is_food(thing.split()[-1]):
        return None  # "umbrella in the hall?" asks where it is, not whether it was added
    where = m.group(2).split()
    if any(_said_of_a_thing(w) and w not in _NOT_THINGS for w in where) or where[-1] in _STATES:
        return None  # "eggs in the pan sizzling", "the oil in the pan hot": more is said than where
    return f"did I add the {thing} {m.group(2)}"


_NOT_THINGS = frozenset(
    """what which who how when where next now then and it them they that this one i you we in on into onto
    up out off over with to""".split()
)


def _said_of_a_thing(word: str) -> bool:
    """Whether `word` is no part of a thing's name: a verb's form, a particle, a pronoun or a
    question word ("went", "in", "it", "what"); "bread" and "seed" are things."""
    if word in _NOT_THINGS or word in _NOT_PARTICIPLES or word.endswith("ing"):
        return True
    base = participle_base(word)
    return base is not None and base != word and (is_verb(base) or known(base))


def _things_in_order(low: str) -> str | None:
    """ "salt, then the black pepper" -> "did I add the salt before the black pepper": things only,
    each named by nouns (no verb, no participle, no pronoun), asked in the order said."""
    # "lettuce first and then the egg on top": the order, said with where the second went
    said = _FIRST.sub(r"\1", low)
    place = _LAST_PLACE.search(said)
    m = _THEN.match(said[: place.start()] if place else said)
    if m is None or _QUESTION.match(low) or _NOT_A_TOPIC.match(low):
        return None
    first, how, second = (_DETERMINER.sub("", m.group(k)) for k in (1, 2, 3))
    words = f"{first} {second}".split()
    if any(_said_of_a_thing(w) for w in words) or _BE.search(" ".join(words)):
        return None
    where = place.group(0) if place else ""
    return f"did I add the {first} {'after' if how == 'after' else 'before'} the {second}{where}"


def _done_then_asking(low: str) -> str | None:
    """ "flipped them when?" -> "when did I flip them": the act first, the asking word last."""
    m = _ASKED_LAST.match(low)
    if m is None or (base := participle_base(m.group(1))) is None or m.group(1) in _NOT_PARTICIPLES:
        return None
    if not (is_verb(base) or known(base)):
        return None
    return f"{m.group(3)} did I {base} {m.group(2)}"


def is_tag(text: str) -> bool:
    """Whether `text` is a tag that asks a statement back ("did I", "right", "yeah")."""
    return is_tag_of(" ".join(text.lower().split()).rstrip("?.! "))


def _topic_then_asking(topic: str, rest: str) -> str | None:
    if is_tag_of(rest):
        return None  # "no salt went in, did it": a statement asked back, not a thing first
    if _NEXT.match(rest):
        return "what's next"  # "blitzed. now what?", "batter's mixed - what now?"
    if _NOT_A_TOPIC.match(topic) or len(topic.split()) > 8 or _QUESTION.match(topic):
        return None
    if _SKIPPED.match(rest):
        return "did I skip anything"  # the session's task is what the topic names
    the = topic if _DETERMINER.match(topic) else f"the {topic}"
    the = re.sub(r"^(?:that|those|these)\b", "the", the)
    bare = _DETERMINER.sub("", topic)
    if m := _AMOUNT.match(rest):
        return f"how {m.group(1)} {bare} did I use"
    if m := _AMOUNT_ASKED.match(rest):
        return f"how {m.group(1)} {bare} {m.group(2)}"
    if rest == "when":
        if placed := _PLACED.match(the):
            return f"when did {placed.group('thing')} go {placed.group('where')}"
        return f"when did {the} go in"
    if rest == "how long":
        place = next((w for w in topic.split() if w in APPLIANCE_ACTS), None)
        return f"how long did I {APPLIANCE_ACTS[place]} {the}" if place else None
    if not _QUESTION.match(rest):
        return None
    if (p := _PRONOUN.search(rest)) is None or re.match(r"which\s+one\b", rest):
        # a whole question after the thing ("salsa or oregano, which (one) went in first")
        return None
    head = bare.split()[-1]
    if head in APPLIANCE_ACTS or head in _VESSELS:
        return f"{rest} in {the}"  # "blender - how long did I blitz it": what was in the blender
    return f"{rest[: p.start()]}{the}{rest[p.end() :]}"


def _bare_participle(low: str) -> str | None:
    """ "pan greased with oil" -> "did I grease the pan with oil": a thing and what was done to it,
    with no verb to ask by. Only a participle of a verb we know counts, after one to three words."""
    words = low.split()
    if not words or _QUESTION.match(low) or _NOT_A_TOPIC.match(low):
        return None
    for i in range(1, min(4, len(words))):
        base = participle_base(words[i])
        if base is None or not (is_verb(base) or known(base)) or words[i] in _NOT_PARTICIPLES:
            continue
        before = words[:i]
        said = any(participle_base(w) == w or w in _NOT_PARTICIPLES or w in _NOT_THINGS for w in before)
        said = said or any("'" in w for w in before)  # "didn't i already cut", "any chance i left"
        if said or _BE.search(" ".join(before)):
            return None  # "the eggs are whisked", "the tofu got pressed": a statement asked back
        thing = " ".join(words[:i])
        the = thing if _DETERMINER.match(thing) else f"the {thing}"
        rest = " ".join(words[i + 1 :])
        return f"did I {base} {the}{' ' + rest if rest else ''}"
    return None
