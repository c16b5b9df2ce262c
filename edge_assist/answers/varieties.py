"""Which variety of a thing: "did I use whole milk?" over "pouring skimmed milk into the pan" is a
"No" said with what was seen (skimmed, not whole); so is "brown sugar" over "white sugar".

A variety is a word right before the thing's name, from a closed set of words that exclude each
other for one thing: the fat in milk, the kind of sugar, a colour. Words of one group name one
variety ("skim", "skimmed", "fat-free"); a word no set knows says nothing, so a caption that
names the thing plainly, or in words of its own ("organic milk"), never earns a "No". Sizes are
left out: captions and the people asking say "small" and "big" loosely.
"""

from __future__ import annotations

import re

from edge_assist.tasks.details import Difference
from edge_assist.tasks.step_phrases import singular
from edge_assist.text.kinds_of_things import covers, same_thing

# Each set: groups of words that name one variety, separated by "|". A word may sit in more than
# one set ("white" is a sugar and a colour); two words differ when some set holds both in
# different groups, and no set holds them in one.
_SETS = [
    [group.split() for group in spec.split("|")]
    for spec in (
        "whole full-fat full-cream | skimmed skim fat-free nonfat non-fat | semi-skimmed low-fat reduced-fat",
        "white granulated caster table | brown demerara muscovado | icing powdered confectioners",
        "salted | unsalted",
        "sweetened | unsweetened",
        "fresh | frozen | canned tinned | dried",
        "plain all-purpose | self-raising self-rising | wholemeal whole-wheat wholewheat",
        "red | green | yellow | orange | white | black | purple | brown",
        "smooth creamy | crunchy chunky",
        # what a pan or a pot is made of
        "non-stick nonstick teflon | steel stainless stainless-steel | cast-iron iron | copper | ceramic",
    )
]
_WORD = re.compile(r"[a-z][a-z-]*")
_TWO_WORDS = re.compile(
    r"\b(semi|full|fat|non|low|reduced|all|self|whole|cast|stainless)\s+"
    r"(skimmed|fat|cream|free|purpose|raising|rising|wheat|stick|iron|steel)\b"
)


def _groups(word: str) -> list[tuple[int, int]]:
    return [(s, g) for s, groups in enumerate(_SETS) for g, words in enumerate(groups) if word in words]


def is_variety(word: str) -> bool:
    """Whether a word names a variety of some thing ("skimmed", "brown", "unsalted")."""
    return bool(_groups(word))


def differ(a: str, b: str) -> bool:
    """Whether two variety words name two varieties of one thing."""
    ga, gb = _groups(a), _groups(b)
    same_set = [(x, y) for x in ga for y in gb if x[0] == y[0]]
    return bool(same_set) and all(x[1] != y[1] for x, y in same_set)


def _joined(text: str) -> list[str]:
    """Lower-case words, with the two-word varieties joined ("semi skimmed" -> "semi-skimmed")."""
    t = _TWO_WORDS.sub(lambda m: f"{m.group(1)}-{m.group(2)}", text.lower())
    return _WORD.findall(t)


def varieties_of(thing: str, text: str) -> list[str]:
    """The variety words said right before each naming of `thing` (singular) in `text`."""
    words = _joined(text)
    out = []
    for i, w in enumerate(words):
        if not same_thing(thing, singular(w)):
            continue
        # right before the name, or before one word of its own ("green bell pepper")
        said = next((words[j] for j in (i - 1, i - 2) if j >= 0 and _groups(words[j])), None)
        if said is not None:
            out.append(said)
    return out


def named(thing: str, text: str) -> bool:
    return any(same_thing(thing, singular(w)) for w in _joined(text))


def asked_variety(focus: str, thing: str) -> str | None:
    """The variety the question asks of its thing ("whole" of "use whole milk"), or None."""
    said = varieties_of(thing, focus)
    return said[0] if said else None


def variety_difference(focus: str, thing: str, caption: str) -> Difference | None:
    """The variety of `thing` the question asks that the caption names otherwise (and never as
    asked), or None."""
    asked = asked_variety(focus, thing)
    if asked is None:
        return None
    told = varieties_of(thing, caption)
    if not told or asked in told or any(not differ(asked, t) for t in told):
        return None
    return Difference("variety", asked, told[0])


# Kinds whose members are told apart when one is asked: a cheddar is no mozzarella, basil no
# parsley, butter no oil. (Spices and vegetables are left out: a caption's "pepper" may be either.)
_SIBLING_KINDS = ("cheese", "herb", "nut", "fish", "meat", "fat")


def sibling_difference(thing: str, caption: str) -> Difference | None:
    """Another member of the kind the asked `thing` belongs to, when the caption names that one
    and never `thing` ("did I put cheddar on it?" over "scattering mozzarella cheese"), or None."""
    if not thing:
        return None
    named = [singular(w) for w in _WORD.findall(caption.lower())]
    if any(same_thing(thing, w) for w in named):
        return None
    for kind in _SIBLING_KINDS:
        if same_thing(kind, thing) or not covers(kind, thing):
            continue
        other = next((w for w in named if covers(kind, w) and not same_thing(kind, w)), None)
        if other is not None:
            return Difference("kind", thing, other)
    return None


def without_variety(focus: str, thing: str) -> str:
    """ "use whole milk" -> "use milk"."""
    asked = asked_variety(focus, thing)
    if asked is None:
        return focus
    said = r"[\s-]+".join(re.escape(w) for w in asked.split("-"))
    return " ".join(re.sub(rf"\b{said}\s+", "", focus, count=1, flags=re.I).split())
