"""Questions about a thing, turned into questions about what the wearer did with it.

People ask with the thing as the subject as often as with themselves: "was the butter
softened?", "did the honey go in?", "when did the chilli go into the pan?", "how much mayo went
in?". Memory tells acts ("I added a third of a teaspoon of honey"), and the answerer looks up a
question's act and thing (answers/meaning.py). So these forms are said again with the wearer
as subject and the act as a verb: "did I soften the butter?", "did I add the honey?", "when
did I add the chilli into the pan?", "how much mayo did I add?". A thing that goes in, on or
into something is added; a thing that "gets" or "was" done to was done to by the wearer
(who else is in a wearer's own memory). Anything else is left as asked.
"""

from __future__ import annotations

import re

from edge_assist.text.action_families import APPLIANCE_ACTS, GROUPS
from edge_assist.text.kinds_of_things import is_food
from edge_assist.text.participles import participle_base
from edge_assist.text.question_places import appliance, switched, vessel
from edge_assist.text.spoken_idioms import got_going, said_plainly, time_said_first
from edge_assist.text.which_used import which_used

_DET = r"(?:(?:the|my|some|any|a|an|that|this|those|these)\s+)?"
# The thing: one to four words, none of them an auxiliary, a particle or a preposition.
# The thing is never a person: "when did I put cheese on it?" is the wearer's question already.
_NOT_THING = (
    r"(?!(?:i|you|we|he|she|they|it|go|goes|went|gone|get|gets|got|gotten|was|were|been|in|into|on|onto"
    r"|before|after|did|does|do|has|have|had)\b)"
)
_THING = rf"({_NOT_THING}[\w'-]+(?:\s+{_NOT_THING}[\w'-]+){{0,3}}?)"
_INTO = r"(in|into|on|onto|on top)\b"
# A past participle: "-ed", "-en", or one of the common irregular ones.
_PART = (
    r"([a-z]{2,}(?:ed|en)|cut|put|set|split|spread|shut|ground|made|left|kept|thrown|torn|spun|shred|done)"
)
_ADVERB = r"(?:(?:already|ever|actually|really|properly|all|both|just|even)\s+)?"

_DID_GO_IN = re.compile(
    rf"^(did|has|have|had)\s+{_DET}{_THING}\s+(?:go|gone|get|got|gotten|end up|ended up|make it|made it)\s+"
    rf"{_INTO}\s*(.*)$"
)
_WHEN_GO_IN = re.compile(
    rf"^(when|what time)\s+(?:did|does|has|have)\s+{_DET}{_THING}\s+(?:go|get|gone|got|end up|make it)\s+"
    rf"{_INTO}\s*(.*)$"
)
# "did the chilli hit the pan?": a thing that hits a pan or a pot went into it
_HIT_INTO = "pan pot skillet wok saucepan griddle grill tawa oil water bowl blender".split()
_HIT = re.compile(
    rf"^(did|has|have|had)\s+{_DET}{_THING}\s+hits?\s+((?:the|my|a)\s+(?:{'|'.join(_HIT_INTO)}))\b\s*(.*)$"
)
# "what came right after the tomatoes went in?": what was done after they were added
_AFTER_WENT_IN = re.compile(
    rf"^(what|which)\s+(?:came|happened|did\s+i\s+do|was\s+next)\s+((?:right\s+|just\s+|straight\s+"
    rf"|immediately\s+)?(?:after|before))\s+{_DET}{_THING}\s+(?:went|got|had gone|was put)\s+{_INTO}\s*(.*)$"
)
# "did the mango get some sugar?": the sugar added to it; "when did the toast come out?": taken out
_GOT_SOME = re.compile(
    rf"^(?:did|has|have|had)\s+{_DET}{_THING}\s+(?:get|got|gotten)\s+(?:some|any|a\s+bit\s+of|a\s+little"
    r"|a\s+(?:splash|pinch|drizzle|sprinkle|dash|dollop|squeeze)\s+of)\s+([a-z-]+(?:\s+[a-z-]+)??)"
    r"((?:\s+(?:before|after|when|at|yet|already|first|too)\b.*)?)$"
)
_CAME_OUT = re.compile(rf"^(when|what time|did)\s+(?:did\s+)?{_DET}{_THING}\s+(?:come|came)\s+out\b\s*(.*)$")
# "how many times did something go in the microwave?": how many times it was microwaved
_TIMES_IN = re.compile(
    rf"^how many times\s+(?:did|has|have)\s+(?:something|anything|it|they|{_DET}{_THING})\s+"
    r"(?:go|gone|get|been|got)\s+(?:in|into|in\s+to)\s+(?:the\s+)?(\w+)$"
)
_HOW_MUCH_WENT_IN = re.compile(
    rf"^how (much|many)\s+{_THING}\s+(?:went|go|goes|got|gone|have gone|has gone|did i put|did i use)\s+"
    rf"{_INTO}\s*(.*)$"
)
_PASSIVE = re.compile(
    rf"^(was|were|is|are|has been|have been|had been|did|has|have)\s+{_DET}{_THING}\s+"
    rf"(?:been\s+|get\s+|got\s+)?{_ADVERB}{_PART}\b\s*(.*)$"
)
# The same with a pronoun for the thing, which stays: "was it microwaved?" is "did I microwave it?"
_PRONOUN_PASSIVE = re.compile(
    rf"^(was|were|is|are|has been|have been|had been|has|have)\s+(it|they)\s+(?:been\s+|got\s+)?{_ADVERB}"
    rf"{_PART}\b\s*(.*)$"
)
_WHEN_PASSIVE = re.compile(
    rf"^(when|what time|how long)\s+(?:was|were|did)\s+{_DET}{_THING}\s+(?:get\s+)?{_ADVERB}{_PART}\b\s*(.*)$"
)
# "how long did the pizza go in for?", "how long was the pie in?": how long it was cooked
_HOW_LONG_IN = re.compile(
    rf"^how long\s+(?:did|was|were)\s+{_DET}{_THING}\s+(?:go\s+in|stay\s+in|in|cook|bake)(?:\s+for)?$"
)
_HOW_MUCH_PASSIVE = re.compile(
    rf"^how (much|many)\s+{_THING}\s+(?:was|were|got)\s+{_ADVERB}{_PART}\b\s*(.*)$"
)


# "did the butter melt?": what heat or cold does to a thing, said with the thing as subject, is
# the wearer heating it ("did I melt the butter?"). Other verbs stay as asked: "did the sauce
# thicken?" names no act of the wearer's we know.
_HEAT_ACT = re.compile(
    rf"^(did|does)\s+{_DET}{_THING}\s+({'|'.join(sorted(GROUPS['heat'] | GROUPS['cool']))})\b\s*(.*)$"
)


def _thing(det_and_thing: str) -> str:
    return " ".join(det_and_thing.split())


def _the(thing: str) -> str:
    """ "the honey"; a word that only points ("did that go in?") is "it"."""
    said = _thing(thing)
    return "it" if said in ("that", "this", "it", "those", "these", "they", "them") else f"the {said}"


def _tail(rest: str) -> str:
    return f" {rest}" if rest else ""


# Words said around a question that ask nothing: "um, when did I ...", "... , right?"
_FILLER_START = re.compile(
    r"^(?:(?:um+|uh+|er+|erm|so|ok|okay|oh|hey|right|well|wait)\b[,.]?\s+"
    r"|(?:now|listen|look|sorry|tell\s+me|quick\s+question|a\s+question|question|excuse\s+me"
    r"|quick\s+check|just\s+checking|hold\s+on|hang\s+on|one\s+more\s+thing|out\s+of\s+curiosity"
    r"|just\s+wondering|by\s+the\s+way)"
    r"\s*[,:]\s+)+",
    re.I,
)
# "did I remember to add the salt?", "did I manage to flip it?", "did I have to top it up?": whether
# the act was done
_REMEMBERED = re.compile(
    r"^(did|have|had)\s+(i|you)\s+(?:remember|remembered|manage|managed|get\s+round|got\s+round"
    r"|have|need|get)\s+to\s+(.+)$"
)
_FILLER_END = re.compile(
    r",?\s+(?:right|roughly|exactly|do you know|again please|please|then|at all|or not)$", re.I
)
# "is there any hot sauce in the tuna?", "any sugar in it?", "was there cheese in the eggs?": was
# the thing put in
_ANY_IN = re.compile(
    r"^(?:(?:is|are|was|were)\s+there\s+(?:any\s+|some\s+)?|(?:any|some)\s+)(.+?)\s+(?:in|on)\s+(.+)$"
)
# "was the oil on medium heat?", "was the pan on high?": the heat it was put over
_ON_HEAT = re.compile(
    rf"^(?:was|were|is|are)\s+{_DET}{_THING}\s+((?:on|over|at)\s+\S+(?:\s+\S+)?\s+(?:heat|flame)"
    r"|(?:on|at)\s+(?:high|low|medium|medium-high|medium-low|full|max|maximum|full power))$"
)
_IS_IN = re.compile(
    rf"^(?:is|are|was|were)\s+{_DET}{_THING}\s+(?:in|on)(?:\s+(?:the|my)\s+(?:pan|pot|bowl|mug|dish|skillet))?"
    r"(?:\s+yet|\s+already)?((?:\s+(?:before|after)\s+(?!(?:that|this|it|then|them)\b).+)?)$"
)
# "have I rolled it up yet?": did I roll it up
_HAVE_I = re.compile(
    r"^(?:have|had)\s+i\s+(?:already\s+|just\s+|ever\s+)?(?!got\b)(\S+)\s*(.*?)(\s+(?:yet|already))?$"
)
_YESNO_FIRST = re.compile(r"^(did|have|had) (i|you) (.+?) (?:first|first thing|to start with|to begin with)$")


# A statement asked back: "I added the salt, didn't I?", "the pepper went in first, right?"
_TAG = re.compile(
    r",?\s+(?:didn't|did|haven't|have|hasn't|has|hadn't|had|wasn't|was|weren't|were|isn't|is|aren't|are"
    r"|doesn't|does|don't|do)"
    r"(?:\s+not)?\s+(?:i|it|they|we|you|he|she)$|,?\s+(?:right|yeah|yes|no|correct|true|eh|huh"
    r"|am\s+i\s+right|(?:is|isn't)\s+that\s+(?:right|so|true|correct))$",
    re.I,
)
# What the wearer believes, said before the statement asked back: "I think I washed it, did I?"
_BELIEF = re.compile(
    r"^(?:i\s+(?:think|believe|guess|reckon|suppose|assume|feel\s+like)|(?:i'm|i\s+am)\s+"
    r"(?:pretty\s+|fairly\s+|quite\s+|almost\s+)?(?:sure|certain|positive)|pretty\s+sure)\s+(?:that\s+)?"
    r"(?=(?:i|the|my)\b)"
)
_I_NOT = re.compile(r"^i\s+(?:didn't|did not|never)\s+(.+)$")
_I_DID_DO = re.compile(r"^i\s+(?:did|do)\s+(?!not\b)([a-z]+\b.*)$")
_I_HAVE = re.compile(
    r"^i(?:'ve|\s+have|\s+had|'d)(\s+not|n't)?\s+(?:(?:already|just|ever|actually|definitely)\s+)?(\S+)\s*(.*)$"
)
_I_DID = re.compile(r"^i\s+(?:already\s+|just\s+|definitely\s+|actually\s+)?(\S+)\s*(.*)$")
_THING_WAS = re.compile(
    rf"^{_DET}{_THING}\s+(?:(?:only|already|just|all|also|definitely|actually)\s+)?"
    r"(was|were|is|are|went|got|had)\s+(.+)$"
)
# A thing named, then said what it was: "the cheese on there, that was parmesan"
_THAT_WAS = re.compile(
    rf"^{_DET}{_THING}(?:\s+(?:on|in)\s+(?:there|here|it|top))?\s*,\s*(?:that|it|they|those)\s+"
    r"(was|were|is|are)\s+(.+)$"
)
# The present perfect said as the past it asks about: "the egg's been whisked" (was whisked),
# "the onion has gone into the bowl" (went into it).
_PERFECT = (
    (re.compile(r"\b([a-z]+)'s\s+(been|gone|got|gotten)\b"), r"\1 has \2"),
    # "the honey's in", "there's salt in it": "is", not a possessive, before "in" or "on" ending the
    # thing's fate, or after "there"
    (
        re.compile(r"\b([a-z]+)'s\s+(in|on)(?=$|\s+(?:yet|already|now|there|the|it|before|after)\b)"),
        r"\1 is \2",
    ),
    (re.compile(r"\bthere's\b"), "there is"),
    (re.compile(r"\b(?:has|have|had)\s+been\b"), "was"),
    (re.compile(r"\b(?:has|have|had)\s+gone\b"), "went"),
    (re.compile(r"\b(?:has|have|had)\s+(?:got|gotten)\b"), "got"),
)
# A question word inside: "I stirred it, what now?" tells, then asks; it is no statement asked back.
_ASKS_WITHIN = re.compile(r"\b(?:what|what's|whats|when|where|how|which|who|why|next)\b")
# How a question opens; a statement that opens otherwise, asked, is a statement asked back.
_OPENS_AS_QUESTION = re.compile(
    r"^(?:did|do|does|was|were|is|are|has|have|had|when|where|how|what|what's|which|who|why|can|could"
    r"|should|will|would|any|anything|and|or)\b"
)


def is_tag_of(text: str) -> bool:
    """Whether lower-case `text` is only a tag that asks a statement back ("did I", "right")."""
    m = _TAG.match(f" {text}")
    return m is not None and m.end() == len(text) + 1


def statement_asked(q: str) -> str | None:
    """A statement asked back, said as the question it asks: "I didn't forget the salt" -> "did I
    forget the salt", "I've added the sugar" -> "did I add the sugar", "the oil was hot" -> "was
    the oil hot", "the pepper went in first" -> "did the pepper go in first"; else None."""
    # "no salt went in, did it": whether the salt went in
    low = re.sub(r"^no\s+(?=[a-z])", "the ", _BELIEF.sub("", q.lower()))
    if not low.startswith("i "):
        for perfect, past in _PERFECT:
            low = perfect.sub(past, low)
    if m := _I_NOT.match(low):
        return f"did I {m.group(1)}"
    if m := _I_DID_DO.match(low):
        return f"did I {m.group(1)}"  # "I did centrifuge the samples": an emphatic "did"
    if (m := _I_HAVE.match(low)) and (base := participle_base(m.group(2))):
        return f"did I {base}{_tail(m.group(3))}"
    if (m := _I_DID.match(low)) and (base := participle_base(m.group(1))):
        return f"did I {base}{_tail(m.group(2))}"
    if m := _THAT_WAS.match(low):
        return f"{m.group(2)} the {_thing(m.group(1))} {m.group(3)}"  # "the cheese, that was feta"
    if m := _THING_WAS.match(low):
        thing, verb, rest = _thing(m.group(0)[: m.end(1)]), m.group(2), m.group(3)
        if verb in ("went", "got"):
            return f"did {thing} {'go' if verb == 'went' else 'get'} {rest}"
        return f"{'did' if verb == 'had' else verb} {thing} {'have ' if verb == 'had' else ''}{rest}"
    return None


def as_wearers(question: str) -> str:
    """The question with the wearer as subject when it asks about a thing's fate, else unchanged
    (bar fillers around it)."""
    raw = " ".join(question.split())
    end = raw[len(raw.rstrip("?.! ")) :]
    q = _FILLER_START.sub("", raw.rstrip("?.! "))
    q = time_said_first(q)
    if (tag := _TAG.search(q)) is not None and (asked := statement_asked(q[: tag.start()])) is not None:
        q = asked
    elif (
        not _OPENS_AS_QUESTION.match(q.lower())
        and not _ASKS_WITHIN.search(q.lower())
        and (asked := statement_asked(q)) is not None
    ):
        q = asked  # "the oregano went in?", said with a rising voice
    q = said_plainly(_FILLER_END.sub("", q))
    said = _as_wearers(q, end)
    return said if said is not None else (f"{q}{end}" if q != raw.rstrip("?.! ") else question)


# "was it two tomatoes I sliced up?", "was it the big knife that I cut with?": did I slice two
# tomatoes; the thing comes first to be asked about, and the act is the wearer's all the same
_CLEFT = re.compile(
    r"^(?:was|were)\s+(?:it|that)\s+(?!(?:before|after|when|while|during|until|since|because|then|so|what|why|how"
    r"|where|who|me|you)\b)([a-z0-9][a-z0-9 -]*?)\s+(?:that\s+|which\s+)?(?:i|you)\s+([a-z]+)(?:\s+(.+))?$"
)

# "was the lid on while it cooked?": whether it was covered ("did I put the lid on?" asks the act
# as captions may tell it)
_LID_ON = re.compile(
    r"^(?:was|were|is)\s+(?:the|a)\s+lid\s+on"
    r"(?:\s+((?:the|my)\s+(?:pan|pot|skillet|saucepan|wok|bowl|dish|mug|cup|jar|casserole)|it|them))?"
    r"(\s+(?:while|when|during|as|before|after)\b.*)?$"
)
# "did I use a knife to split the muffin?", "did I use butter to grease the pan?": the act
# asked, with the tool or the thing used
_USE_TO = re.compile(
    r"^did\s+(i|you)\s+use\s+((?:a|an|the|my|some)\s+[a-z-]+(?:\s+[a-z-]+)?)\s+to\s+([a-z]+)\s+(.+)$"
)
_CLEFT_PREP = ("in", "into", "on", "onto", "with", "at", "under", "over", "from", "by")


def _clefted(thing: str, rest: str) -> str:
    """What follows the verb of a cleft said back in order: "two tomatoes" + "up"; "in the oven" +
    "it" -> "it in the oven"; "the big knife" + "with" -> "with the big knife"."""
    if thing.split()[0] in _CLEFT_PREP:
        return f"{rest} {thing}".strip()
    words = rest.split()
    if words and words[-1] in _CLEFT_PREP:
        return " ".join([*words[:-1], words[-1], thing])
    return f"{thing}{_tail(rest)}"


def _as_wearers(q: str, end: str) -> str | None:
    low = q.lower()
    if (going := got_going(low)) is not None:
        return f"{going}{end}"
    if m := _REMEMBERED.match(low):
        low = f"did I {m.group(3)}"
        return _as_wearers(low, end) or f"{low}{end}"
    if (used := which_used(low)) is not None:
        return f"{used}{end}"
    if m := _LID_ON.match(low):
        return f"did I cover {m.group(1) or 'it'}{m.group(2) or ''}{end}"  # a lid on it covers it
    if m := _USE_TO.match(low):
        return f"did I {m.group(3)} {m.group(4)} with {m.group(2)}{end}"  # the act, done with it
    if (m := _CLEFT.match(low)) and (base := participle_base(m.group(2))):
        return f"did I {base} {_clefted(_thing(m.group(1)), m.group(3) or '')}{end}"
    if m := _ANY_IN.match(low):
        # "in the tuna" is in the dish the tuna went into, under whatever name: asked as adding it;
        # a vessel named is where it went ("any fruit on the plate?" is not the banana in the blender)
        if machine := appliance(m.group(2)):
            return f"did I put {_thing(m.group(1))} in the {machine}{end}"  # "fish in the oven": put in it
        return f"did I add {_thing(m.group(1))}{vessel(low, m.group(2))}{end}"
    if (m := _ON_HEAT.match(low)) and not _PASSIVE.match(low):
        return f"did I heat the {_thing(m.group(1))} {m.group(2)}{end}"
    if (m := _IS_IN.match(low)) and not switched(m.group(1), low):
        # "is the egg in yet?", "is the cheese on?", "was the flour in before the milk?"
        return f"did I add the {_thing(m.group(1))}{m.group(2)}{end}"
    if (m := _HAVE_I.match(low)) and (base := participle_base(m.group(1))):
        # "yet" stays: a step still to come is a "Not yet" (answers/skipped_step.py)
        return f"did I {base}{_tail(m.group(2))}{m.group(3) or ''}{end}"
    if m := _YESNO_FIRST.match(low):
        return f"{m.group(1)} I {m.group(3)}{end}"  # "did I heat the oil first?": did I heat the oil
    if m := _HEAT_ACT.match(low):
        return f"did I {m.group(3)} the {_thing(m.group(2))}{_tail(m.group(4))}{end}"
    if (went := _went_in(low)) is not None:
        return f"{went}{end}"
    if (m := _TIMES_IN.match(low)) and m.group(2) in APPLIANCE_ACTS:
        thing = f" the {_thing(m.group(1))}" if m.group(1) else ""
        return f"how many times did I {APPLIANCE_ACTS[m.group(2)]}{thing}{end}"
    if m := _HOW_MUCH_WENT_IN.match(low):
        return f"how {m.group(1)} {_thing(m.group(2))} did I add{_tail(_where(m.group(3), m.group(4)))}{end}"
    if (m := _WHEN_PASSIVE.match(low)) and (base := participle_base(m.group(3))):
        return f"{m.group(1)} did I {base} the {_thing(m.group(2))}{_tail(m.group(4))}{end}"
    if m := _HOW_LONG_IN.match(low):
        return f"how long did I cook the {_thing(m.group(1))}{end}"
    if (m := _HOW_MUCH_PASSIVE.match(low)) and (base := participle_base(m.group(3))):
        return f"how {m.group(1)} {_thing(m.group(2))} did I {base}{_tail(m.group(4))}{end}"
    if (said := _pronoun_passive(low, end)) is not None:
        return said
    if (m := _PASSIVE.match(low)) and not low.startswith(("did i ", "did you ", "have i ", "has i ")):
        base = participle_base(m.group(3))
        # "did some of the dried herb end up ...": "of" opens no thing, "dried" names it
        if base is not None and m.group(2).split()[0] not in ("i", "you", "we", "it", "there", "of"):
            the = "" if m.group(2).split()[0] in ("everything", "anything", "something", "all") else "the "
            return f"did I {base} {the}{_thing(m.group(2))}{_tail(m.group(4))}{end}"
    return None


def _went_in(low: str) -> str | None:
    """ "did the honey go in?", "when did the chilli hit the pan?", "what came after the tomatoes
    went in?": the thing added, asked as the wearer's act; None for other questions."""
    if m := _HIT.match(low):
        return f"did I add the {_thing(m.group(2))} to {m.group(3)}{_tail(m.group(4))}"
    if m := _AFTER_WENT_IN.match(low):
        where = _tail(_where(m.group(4), m.group(5)))
        return f"{m.group(1)} did I do {m.group(2)} I added the {_thing(m.group(3))}{where}"
    if (m := _GOT_SOME.match(low)) and is_food(m.group(2).split()[-1]):
        return f"did I add {m.group(2)} to the {_thing(m.group(1))}{m.group(3)}"
    if (m := _CAME_OUT.match(low)) and (not m.group(3) or appliance(m.group(3).split()[-1])):
        # "when did the toast come out (of the toaster)?"; out of a pan it may have been spooned
        lead = "did" if m.group(1) == "did" else f"{m.group(1)} did"
        return f"{lead} I take the {_thing(m.group(2))} out{_tail(m.group(3))}"
    if m := _DID_GO_IN.match(low):
        return f"did I add {_the(m.group(2))}{_tail(_where(m.group(3), m.group(4)))}"
    if m := _WHEN_GO_IN.match(low):
        return f"{m.group(1)} did I add {_the(m.group(2))}{_tail(_where(m.group(3), m.group(4)))}"
    return None


def _pronoun_passive(low: str, end: str) -> str | None:
    """ "has it been plated up?", "were they flipped?": did I plate it up, did I flip them."""
    m = _PRONOUN_PASSIVE.match(low)
    if m is None or m.group(3) in ("done", "finished", "gone"):  # "is it done?" asks how far, not an act
        return None
    base = participle_base(m.group(3))
    them = "them" if m.group(2) == "they" else "it"
    return f"did I {base} {them}{_tail(m.group(4))}{end}" if base else None


def _where(particle: str, rest: str) -> str:
    """Where the thing went, kept: "into the pan", "on the toast"; a bare "in" says nothing, and
    what follows may be a clause of its own ("before I mixed it")."""
    if not rest or rest.split()[0] in ("before", "after", "yet", "already", "first"):
        return rest
    return f"{particle} {rest}"
