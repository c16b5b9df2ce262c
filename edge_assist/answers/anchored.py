"""A question read by the things it names and its act, with the rest of its wording left out.

People wrap what they ask in words of their own: "vanilla, how much?", "can't recall when the
salt went on", "did I melt the butter first thing?", "blender - how long did I blitz it?". The
answer gate (answers/support.py) scores how much of the question's wording a caption covers,
word by word, so each word a caption cannot say ("much", "recall", "thing") pulls the right
moment below the threshold, however plainly the caption names the thing asked about. Lists of
such shapes follow the writers they were read from; a new writer brings new ones.

So the question is also read as its anchor: the things it names, said as the caption says them,
with its act said as the caption's verb when the act-family lexicon knows it, and nothing else.
The anchor exists only when the caption names every thing the question names (a tool, a food, a
vessel it was put in), and an act the lexicon knows is one of the caption's acts: "did I peel the
garlic?" has no anchor in "chop 1 garlic clove", nor "when did I add the cumin?" in "season with
salt". A yes/no question needs its act told: its verb is what it asks. The gate then scores the
anchor against the caption with its features unchanged, weighed below the question as asked or
restated (answers/meaning.py), so a caption that says what was asked still ranks first.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from edge_assist.answers.focus import WORDS_OF, parse, things, tokens, verb_base
from edge_assist.answers.meaning import caption_verbs
from edge_assist.answers.thing_naming import general_word, look_before, thing_in
from edge_assist.inference.base import TextEncoder
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import OTHER, TOOL, WordKinds, lexical_kind
from edge_assist.text.action_families import ANY_ACT, covers_act, known
from edge_assist.text.kinds_of_things import same_thing
from edge_assist.text.stop_words import DETERMINERS, FUNCTION_WORDS, PREPOSITIONS, PRONOUNS
from edge_assist.text.units import UNIT_NAMES

# How much the anchor's score counts beside the question's own: a clear anchor ("vanilla" of "I
# tossed in one tsp vanilla extract") stays well above the threshold, below a full match.
ANCHOR_WEIGHT = 0.7
# Words after which a verb's form is a noun: "on top of", "the spread", "a slice".
_NOT_BEFORE_VERB = PREPOSITIONS | frozenset("a an the my your this that some any each".split())
_NOT_DESCRIBERS = DETERMINERS | FUNCTION_WORDS | PRONOUNS | PREPOSITIONS
_TIME_OR_AMOUNT = re.compile(r"\b(?:when|what time|how (?:much|many|long))\b", re.I)


def asks_time_or_amount(question: str) -> bool:
    """ "when ...", "how much / many / long ...", in any place: what is asked is told by the moment
    of the act on the thing, whatever else is said around it."""
    return bool(_TIME_OR_AMOUNT.search(question))


def anchor(
    focus: str, caption: str, *, act_needed: bool = True, kind_of: Callable[[str], str] | None = None
) -> str | None:
    """The focus said as the things it names and its act, in the caption's words, or None when
    the caption does not name every thing, tells another act, or there is nothing to anchor.
    Every verb of the question the act families know must be told by a verb of the caption.
    `act_needed` (any question but a when or a how much / many / long): the caption must tell
    the act asked, its verb one the families know; what is asked may be the act itself ("pan
    greased with oil?") or something no caption tells ("what colour was the platter?").
    `kind_of`: a word's kind by the encoder (tasks/word_kinds.py), for words no lexicon holds:
    in a when or how question, one it reads as no thing ("recall", "herby") that the caption
    does not say is the asker's own wording, left out."""
    words = tokens(focus)
    head = parse(focus, verb_first=act_needed)
    asked = [t for t in things(focus, verb_first=act_needed) if t != head.verb]  # "how many did I whisk"
    lowered = [w.lower() for w in words]
    named = _things_named(words, asked, caption, act_needed, kind_of)
    if not named:
        return None  # a thing the caption does not name, or none asked
    if len(named) < len(asked) and all(_loose_vessel(t, w) for t, w in named.items()):
        return None  # "the little red bits into the bowl" of "to the dish": anything went there
    verbs = caption_verbs(caption)
    caption_words = tokens(caption)
    out: list[str] = []
    act_told = False
    for i, w in enumerate(words):
        s = singular(w.lower())
        if s in named:
            out.append(named.pop(s))
            continue
        if w[0].isdigit() or w.lower() in UNIT_NAMES:
            out.append(w)
            continue
        base = verb_base(w)
        if base is None or not known(base) or base in asked or (i and lowered[i - 1] in _NOT_BEFORE_VERB):
            continue  # "on top of the egg": a noun, not the act
        told = next((caption_words[j] for j, t in verbs if covers_act(base, t)), None)
        if told is None:
            return None  # an act the caption does not tell ("when did I mix it?" of "handling the cup")
        out.append(told)
        act_told = act_told or base not in ANY_ACT  # "use" and "do" tell no act of their own
    if act_needed and (not act_told or (head.verb and not known(head.verb))):
        return None  # "did I dry the herbs?", "did I check the water?": the act asked is not told
    out += list(named.values())  # a thing said in a form the loop did not meet ("spring onion")
    said_as = " ".join(out)
    return said_as if said_as and said_as.lower() != " ".join(WORDS_OF.findall(focus.lower())) else None


def _things_named(
    words: list[str], asked: list[str], caption: str, act_needed: bool, kind_of: Callable[[str], str] | None
) -> dict[str, str] | None:
    """Each thing asked and the caption's word for it; None when the caption does not name one,
    or names it while the question describes it otherwise."""
    lowered = [w.lower() for w in words]
    named: dict[str, str] = {}
    for t in asked:
        head_word = t.split("-")[-1]  # "spring-onion" stands at "onion"
        at = next((i for i, w in enumerate(lowered) if singular(w) == head_word or w == head_word), -1)
        look = look_before(words, at) if at >= 0 else ""
        general = at < 0 or bool(look) or general_word(words, at)
        said = thing_in(t, caption, general=general, look=look)
        named_two = "-" in t and at > 0  # "hot sauce" is one thing: "hot" describes nothing
        if (
            said is not None
            and at > 0
            and not look
            and not named_two
            and _unsaid_describer(lowered[at - 1], caption)
        ):
            return None  # "any hot sauce?" of mayonnaise, "a non-stick pan?" of a steel skillet
        if said is not None:
            named[t] = said
        elif act_needed or lexical_kind(t) is not None or kind_of is None or kind_of(t) != OTHER:
            return None  # a thing the caption does not name: it tells something else
    return named


def _loose_vessel(thing: str, said: str) -> bool:
    """Whether the caption names the vessel `thing` only by another of its names (`said`)."""
    return lexical_kind(thing) == TOOL and not same_thing(thing, singular(said.lower()))


def _unsaid_describer(word: str, caption: str) -> bool:
    """Whether `word`, right before a thing asked about, describes it in words the caption does not
    say: "hot" of "hot sauce", "non-stick" of "non-stick pan". Grammar, numbers and verbs do not."""
    if word in _NOT_DESCRIBERS or word[0].isdigit() or word in UNIT_NAMES or verb_base(word) is not None:
        return False
    return word not in {w.lower() for w in WORDS_OF.findall(caption)} | set(tokens(caption.lower()))


_KINDS: dict[int, tuple[TextEncoder, WordKinds]] = {}


def word_kinds(encoder: TextEncoder) -> WordKinds:
    """The kinds of words by `encoder`'s prototypes, kept (with what it has read) per encoder."""
    held = _KINDS.get(id(encoder))
    if held is None or held[0] is not encoder:
        held = _KINDS[id(encoder)] = (encoder, WordKinds(encoder.encode))
    return held[1]
