"""What "the contents of the mug" were: the things seen going into that vessel before.

Recipes and captioners name a vessel's contents without naming them: "Microwave the contents of
the mug", "whipping the stuff of the dish", "pour the mixture in the bowl into the pan". A
question names the things ("did I heat the milk?", "when did the eggs go in the pan?"), so such
a moment reads as not about them and the act is not found, or a "No" rests on the wrong moments.

So each caption that refers to a vessel's contents is read with what earlier captions of the
same stream put in that vessel, said after it ("warming the stuff of the cup (milk, sugar)").
Only the past is read: what went in later is not in it yet. A vessel's contents poured into
another go with them ("the mixture from the bowl into the pan" fills the pan with the bowl's
things). The caption as told stays what an answer says; only the reading for matching gains
the things.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace

from edge_assist.answers import referents
from edge_assist.answers.focus import WORDS_OF, verb_base
from edge_assist.answers.varieties import is_variety
from edge_assist.clock import Clock
from edge_assist.retrieval.api import Moment
from edge_assist.retrieval.recall import Recall
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind
from edge_assist.text.action_families import same_act
from edge_assist.text.kinds_of_things import same_thing

# "the contents of the mug", "stuff in the dish", "the mixture from the bowl", "ingredients of a cup"
_REFERENCE = re.compile(
    r"\b(?:contents?|stuff|mixture|mix|ingredients|everything)\s+(?:of|in|inside|from)\s+"
    r"(?:the|a|an|my|your|this|that)\s+([a-z-]+)",
    re.I,
)
# An act done to a vessel is done to what it holds: "zapping the ramekin mug", "stirring the cup".
_HOLDERS = "bowl cup mug dish ramekin pan skillet pot saucepan jar glass basin blender container".split()
_ACT_ON_VESSEL = re.compile(
    rf"\b([a-z]+)\s+(?:the|a|an|my|your|this|that)\s+(?:[a-z-]+\s+){{0,2}}?({'|'.join(_HOLDERS)})s?\b",
    re.I,
)
# The acts that work on what a vessel holds (heating it, mixing it, cooling it).
_ON_CONTENTS = ("heat", "mix", "cool")
# How many things the reading names at most: the latest ones, so a long recipe's first vessel
# does not drown the caption.
MOST = 6


def vessels_referred(caption: str) -> list[str]:
    """The vessels whose contents the caption names without naming them (singular)."""
    out = []
    for m in _REFERENCE.finditer(caption):
        word = singular(m.group(1).lower())
        if lexical_kind(word) != MATERIAL:  # "the contents of an egg" is the egg itself
            out.append(word)
    for m in _ACT_ON_VESSEL.finditer(caption):
        verb = verb_base(m.group(1))
        if verb and any(same_act(verb, act) for act in _ON_CONTENTS):
            out.append(m.group(2).lower())
    return out


_TOLD_WITH = re.compile(r"^(.*) \(([^()]*)\)\.$")


def as_told(text: str) -> str:
    """A moment's text without the contents `readings` said after it: the caption as told."""
    m = _TOLD_WITH.match(text)
    return m.group(1) if m is not None and _refers(m.group(1)) else text


def _refers(caption: str) -> bool:
    """Whether the caption names what it works on only by a vessel's contents or a pronoun."""
    return bool(vessels_referred(caption)) or referents.refers_back(caption, _materials(caption))


def _materials(caption: str) -> list[str]:
    """The things a caption names, each with the variety word said before it ("skimmed milk"),
    so a question about another variety is still told apart; not the word that names a tool's
    use ("tea towel")."""
    words = WORDS_OF.findall(caption.lower())
    out = []
    for i, w in enumerate(words):
        if i + 1 < len(words) and lexical_kind(singular(words[i + 1])) == TOOL:
            continue  # a tool named by what it is for: "a tea towel", "the butter knife"
        if lexical_kind(singular(w)) == MATERIAL:
            variety = words[i - 1] if i and is_variety(words[i - 1]) else ""
            out.append(f"{variety} {singular(w)}".strip())
    return out


def _vessels(caption: str, holders: bool = False) -> list[str]:
    """The tools a caption names (and, with `holders`, the vessels no lexicon calls a tool: "basin")."""
    words = (singular(x) for x in WORDS_OF.findall(caption.lower()))
    return [w for w in words if lexical_kind(w) == TOOL or holders and w in _HOLDERS]


Same = Callable[[str, str], bool]

# Vessels a captioner calls by each other's names from one clip to the next: the bowl the pepper
# went into is "the basin" that is microwaved, the mug "the cup"; a ramekin is a little dish too.
_ONE_VESSEL = (frozenset({"bowl", "dish", "basin", "ramekin"}), frozenset({"cup", "mug", "ramekin"}))


def one_vessel(a: str, b: str) -> bool:
    """Whether two vessel names may name the vessel in use (`same_thing`, or one of `_ONE_VESSEL`)."""
    return same_thing(a, b) or any(a in group and b in group for group in _ONE_VESSEL)


def _held(contents: dict[str, list[str]], vessel: str, same: Same = same_thing) -> list[str]:
    return next((things for v, things in contents.items() if same(v, vessel)), [])


def _add(contents: dict[str, list[str]], vessel: str, things: Iterable[str], same: Same = same_thing) -> None:
    key = next((v for v in contents if same(v, vessel)), vessel)
    have = contents.setdefault(key, [])
    for t in things:
        if t in have:
            have.remove(t)  # kept once, as the latest
        have.append(t)


def readings(captions: Iterable[str], *, loose: bool = False) -> list[str | None]:
    """Per caption of one stream, in time order: the caption with the things its referred vessels
    held before it, or with what its "it" stands for (answers/referents.py), or None when it
    refers to neither (or they held nothing seen). `loose`: the names a captioner gives one
    vessel in turn are one vessel (`one_vessel`), "basin" too."""
    same: Same = one_vessel if loose else same_thing
    contents: dict[str, list[str]] = {}
    out: list[str | None] = []
    captions = list(captions)
    meant_by = referents.readings(captions, _materials)
    for caption, meant in zip(captions, meant_by, strict=True):
        referred = vessels_referred(caption)
        held = [t for v in referred for t in _held(contents, v, same)]
        said = [t for t in dict.fromkeys(held) if t not in _materials(caption)][-MOST:] or meant[-MOST:]
        out.append(f"{caption.rstrip('. ')} ({', '.join(said)})." if said else None)
        # What this caption puts in every vessel it names: its own things, what it poured in and
        # what its "it" stood for.
        put, vessels = [*_materials(caption), *held, *meant], _vessels(caption, holders=loose)
        for vessel in vessels:
            if not any(same(vessel, v) for v in referred) or len(vessels) == 1:
                _add(contents, vessel, [t for t in put if not same_thing(t, vessel)], same)
    return out


async def with_contents(
    recall: Recall, clock: Clock, found: Sequence[Moment], *, before_t: float, asked: str = ""
) -> list[Moment]:
    """`found`, each moment that refers to a vessel's contents told with what its stream put in
    that vessel before it (`readings`). A question that itself says "the contents of the mug"
    (`asked`) is matched in those words, and the moments are left as told."""
    if vessels_referred(asked):
        return list(found)
    sessions = {m.session_id for m in found if _refers(m.text)}
    read: dict[tuple[str, int, float], str | None] = {}
    for session_id in sorted(sessions):
        clips, _ = await clock.run_blocking(recall.clips_in_period, session_id, 0.0, before_t)
        clips = sorted(clips, key=lambda c: c.t0)
        told = readings(c.text for c in clips)
        read.update({(session_id, c.clip_index, c.t0): s for c, s in zip(clips, told, strict=True)})
    out = []
    for m in found:
        said = read.get((m.session_id, m.clip_index, m.t0))
        out.append(replace(m, text=said) if said is not None and said.startswith(m.text.rstrip(". ")) else m)
    return out
