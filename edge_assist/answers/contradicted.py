"""A yes/no question whose setting the remembered moment contradicts: "did I cook it on medium
heat?" over "I'm heating the oil on low heat" is a "No", said with what was seen; so is a
question whose tool the moment names otherwise: "did I whisk with a fork?" over "whisking the
eggs with a spoon".

The moment that answers tells the same act on the same thing, so it is the moment asked
about; when the question names a heat or power setting (or a temperature word) and that
moment names another, the act happened, but not as asked. The tracker reads such settings
the same way for its deviations (tasks/details.py), so "low" and "medium" are compared by
their order, not their wording. Amounts are left out: two captions may each add part of
what was asked ("did I add 2 eggs?" over two moments of one egg).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from edge_assist.answers import (
    appliances,
    contents,
    cooking_method,
    cut_size,
    meaning,
    thing_naming,
    varieties,
)
from edge_assist.answers.backing import backing
from edge_assist.answers.negated import negated_no
from edge_assist.answers.support import AnswerGate
from edge_assist.clock import Clock
from edge_assist.inference.base import TextEncoder
from edge_assist.reasoning.answer_text import tell
from edge_assist.retrieval.api import Moment
from edge_assist.tasks.details import Difference, parse_details, value_differences
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import TOOL, lexical_kind
from edge_assist.text.kinds_of_things import same_thing

if TYPE_CHECKING:
    from edge_assist.answers.answer_record import GroundedAnswer

# How many steps apart (tasks/details.py: low 1 ... high 5) two settings are to be told apart.
MIN_GAP = 2
# A setting as a question says it: "on medium heat", "at full power", "over a high flame", "on low".
_SETTING = re.compile(
    r"\s*\b(?:on|at|over|with)\s+(?:a\s+|the\s+)?(?:\S+\s+)?(?:heat|flame|power|setting)\b"
    r"|\s*\b(?:on|at)\s+(?:high|low|medium|full|max|maximum|minimum)\b",
    re.I,
)
# A tool as a question or a caption names it: "with a fork", "using the big whisk".
_WITH = re.compile(r"\b(?:with|using)\s+((?:[a-z-]+\s+){0,3}[a-z-]+)", re.I)
_LEAD = frozenset("a an the my your his her their some one two".split())
# Tools a captioner names by their part or their job ("with a blade", "with a turner"), and the
# hands a wearer names ("with my hands": no knife). Told back, they answer "with what?"; the
# tracker's deviations keep to the step's own tool words, where "blade" for the step's "knife"
# would read as another tool.
_SAID_TOOLS = frozenset("blade cleaver turner flipper hand hands fingers".split())
# How many of the closest moments are read for the act without its setting.
NEAREST = 3


def tool_named(text: str) -> tuple[str, tuple[int, int]] | None:
    """The tool a "with"/"using" phrase names (singular) and the phrase's span, or None: "with a
    fork" names one, "with cheese" does not (an ingredient)."""
    for m in _WITH.finditer(text):
        words = m.group(1).lower().split()
        at = 0
        while at < len(words) - 1 and words[at] in _LEAD:
            at += 1
        # the first word that is a tool, after at most two describing words ("the big wooden spoon")
        for i, w in enumerate(words[at : at + 3]):
            if lexical_kind(w) == TOOL or w in _SAID_TOOLS:
                end = m.start(1) + len(" ".join(m.group(1).split()[: at + i + 1]))
                return singular(w), (m.start(), end)
    return None


def _names(text: str, tool: str) -> bool:
    return any(same_thing(tool, singular(w)) for w in re.findall(r"[a-z-]+", text.lower()))


# Where a thing was put against another: on it, under it or beside it.
_ON = "on top of|onto|on|over|above"
_UNDER = "underneath|under|beneath|below"
_BESIDE = "beside|next to|alongside|by the side of"
_PLACED = re.compile(
    rf"\b({_BESIDE}|{_ON}|{_UNDER})\s+(?:the\s+|a\s+|an\s+|my\s+|some\s+)?(?:[a-z-]+\s+)?([a-z-]+)", re.I
)


def _placed(text: str) -> list[tuple[str, str]]:
    """("on"|"under"|"beside", the thing) for each place phrase: "under the lettuce" -> ("under",
    "lettuce")."""
    out = []
    for m in _PLACED.finditer(text):
        said = " ".join(m.group(1).lower().split())
        side = "under" if re.fullmatch(_UNDER, said) else "beside" if re.fullmatch(_BESIDE, said) else "on"
        out.append((side, singular(m.group(2).lower())))
    return out


def place_difference(focus: str, caption: str) -> Difference | None:
    """The side of a thing the question puts something on that the caption says otherwise ("on top
    of the lettuce" asked, "under the lettuce" told), or None."""
    told = _placed(caption)
    for side, thing in _placed(focus):
        other = [s for s, t in told if same_thing(t, thing)]
        if other and side not in other:
            return Difference("place", f"{side} the {thing}", f"{other[0]} the {thing}")
    return None


# Sides of a thing that exclude each other: "the top half" is not "the bottom bit" ("back" is
# left out: "put the top back on" says no side).
_SIDES = (("top", "bottom"), ("upper", "lower"), ("left", "right"), ("inside", "outside"))


def side_difference(focus: str, caption: str) -> Difference | None:
    """The side of a thing the question names that the caption names the other of (and not the
    one asked), or a state the caption says undone: "microwave the mug covered" over "nuking the
    mug uncovered"; or None."""
    asked, told = _words(focus), _words(caption)
    for a, b in (*_SIDES, *((y, x) for x, y in _SIDES)):
        if a in asked and b in told and a not in told:
            return Difference("side", a, b)
    # "dry the whole tomato" over "dry half tomato"; not the other way: "cut it in half" is told by
    # "slice the whole tomato into halves"
    whole = next((w for w in ("whole", "entire") if w in asked and w not in told), None)
    if whole is not None and (thing := _thing(focus)):
        part = next((p for p in ("half", "quarter", "third") if _part_of(p, thing, caption)), None)
        if part is not None:
            return Difference("side", whole, part)
    for w in asked:
        if len(w) > 4 and w.endswith("ed") and f"un{w}" in told and w not in told:
            return Difference("state", w, f"un{w}")
    return None


def _part_of(part: str, thing: str, caption: str) -> bool:
    """Whether the caption says a part of the thing: "half tomato", "a quarter of the onion"."""
    said = rf"\b{part}\s+(?:of\s+)?(?:(?:a|an|the|one)\s+)?(?:[a-z-]+\s+)?{re.escape(singular(thing))}"
    return re.search(said, caption, re.I) is not None


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def tool_difference(focus: str, caption: str) -> Difference | None:
    """The tool the question names that the caption names otherwise (and never names as asked)."""
    asked = tool_named(focus)
    told = tool_named(caption)
    if asked is None or told is None or same_thing(asked[0], told[0]) or _names(caption, asked[0]):
        return None
    return Difference("tool", asked[0], told[0])


def difference(focus: str, caption: str) -> Difference | None:
    """The setting the question names that the caption names otherwise, or None. Settings a step
    apart are not told apart ("medium-high" asked, "medium high heat" said): a "No" needs them at
    least two steps apart (low against medium, medium against high)."""
    asked = parse_details(focus)
    if not asked.levels and not asked.temperatures:
        return (
            tool_difference(focus, caption)
            or place_difference(focus, caption)
            or varieties.variety_difference(focus, _thing(focus), caption)
            or cut_size.size_difference(focus, caption)
            or appliances.appliance_difference(focus, caption)
            or cooking_method.method_difference(focus, caption)
            or varieties.sibling_difference(_thing(focus), caption)
            or side_difference(focus, caption)
        )
    # "moderate" is a captioner's medium; the tracker's reading leaves it out (its deviations
    # were fitted without it), a question's answer may not
    told = parse_details(re.sub(r"\bmoderate\b", "medium", caption, flags=re.I))
    if asked.levels and told.levels:
        gap = min(abs(a - c) for _, a in asked.levels for _, c in told.levels)
        return Difference("setting", asked.levels[0][0], told.levels[0][0]) if gap >= MIN_GAP else None
    return next((d for d in value_differences(asked, told) if d.kind == "temperature"), None)


def _told_as_asked(d: Difference, focus: str, caption: str) -> bool:
    """Whether the caption tells the tool or the place the question asks about, as asked."""
    if d.kind == "tool":
        return _names(caption, d.expected)
    if d.kind == "place":
        return bool(set(_placed(focus)) & set(_placed(caption)))
    if d.kind == "variety":
        return d.expected in varieties.varieties_of(_thing(focus), caption)
    if d.kind == "appliance":
        return appliances.tells_asked(focus, caption)
    if d.kind == "size":
        return cut_size.says_size(caption, d.expected)
    if d.kind == "method":
        return cooking_method.tells_asked(focus, caption)
    if d.kind in ("side", "state"):
        return side_difference(focus, caption) is None and d.expected in _words(caption)
    if d.kind == "kind":
        return thing_naming.thing_in(d.expected, caption, general=False) is not None
    return False


def _thing(focus: str) -> str:
    return meaning.parse(focus, verb_first=True).thing


def compose(d: Difference, m: Moment) -> str:
    """ "No: at 0:04 you were heating three tablespoon oil on low heat (low, not medium)." The
    moment is told as its caption was (contents.as_told): the difference is what the No says."""
    told = tell(contents.as_told(m.text), m.t0, m.note).rstrip(".")
    return f"No: {told[0].lower()}{told[1:]} ({d.observed}, not {d.expected})."


def without_setting(focus: str) -> str:
    """ "heat the oil on medium heat" -> "heat the oil"; "whisk it with a fork" -> "whisk it"; "use
    whole milk" -> "use milk"."""
    bare = cut_size.without_size(varieties.without_variety(_SETTING.sub("", focus), _thing(focus)))
    bare = appliances.without_appliance(bare)
    tool = tool_named(bare)
    if tool is not None:
        start, end = tool[1]
        bare = bare[:start] + bare[end:]
    return " ".join(bare.split())


def no_by_setting(
    gate: AnswerGate, encoder: TextEncoder, focus: str, ranked: Sequence[Moment], threshold: float
) -> tuple[str, Difference, Moment] | None:
    """A yes/no question no moment answered as asked: when one of the closest moments tells the
    act asked about once the setting is left out ("heat the oil") and names another setting, the
    "No" that moment earns; else None."""
    bare = without_setting(focus)
    asked, tool = parse_details(focus), tool_named(focus)
    thing = _thing(focus)
    variety = varieties.asked_variety(focus, thing) if thing else None
    method = cooking_method.asked(focus)
    if method is not None and bare == focus:
        bare = cooking_method.cooked(focus)  # "boil the egg": was the egg cooked, and how
    if method is not None and any(cooking_method.tells_asked(focus, m.text) for m in ranked):
        return None  # a moment tells the method asked about
    other = (
        variety is not None
        or cut_size.sizes(focus)
        or appliances.asked(focus) is not None
        or method is not None
    )
    if bare == focus or not asked.levels and not asked.temperatures and tool is None and not other:
        return None
    near = list(ranked[:NEAREST])
    if tool is not None and any(_names(m.text, tool[0]) for m in ranked):
        return None  # a moment names the tool asked about: no "No" by another
    if variety is not None and any(variety in varieties.varieties_of(thing, m.text) for m in ranked):
        return None  # a moment names the variety asked about
    if any(appliances.tells_asked(focus, m.text) for m in ranked):
        return None  # a moment tells the appliance asked about
    p = backing(gate, encoder, bare, near)
    for m in sorted(near, key=lambda m: -p[m]):
        if p[m] >= threshold and (d := difference(focus, m.text)) is not None:
            return compose(d, m), d, m
    return None


async def checked(
    ga: GroundedAnswer, focus: str, gate: AnswerGate, encoder: TextEncoder, clock: Clock, threshold: float
) -> tuple[str, Moment, dict[str, Any]] | None:
    """The No a setting earns for a grounded yes/no answer (its text, the moment it rests on and
    the difference for the trace), or None when the answer stands."""
    if ga.moment is not None:
        d = difference(focus, ga.moment.text) if ga.text.startswith("Yes") else None
        if d is not None and any(_told_as_asked(d, focus, m.text) for m in ga.candidates):
            d = None  # another moment tells the tool or the place asked about
        if d is not None:
            return compose(d, ga.moment), ga.moment, d.to_json()
    else:
        said = await clock.run_blocking(no_by_setting, gate, encoder, focus, ga.candidates, threshold)
        if said is not None:
            return said[0], said[2], said[1].to_json()
    if ga.moment is not None and not ga.text.startswith("Yes"):
        return None
    # "did I cover it when I microwaved it?" over "nuking the mug uncovered"
    found = negated_no(focus, ga.candidates)
    return None if found is None else (found[0], found[1], {"kind": "negated", "observed": found[1].text})
