"""How likely each candidate moment is to be the one a question is about: the answer gate
(answers/support.py) over the question as asked and as restated in the moment's own words
(answers/meaning.py)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from edge_assist.answers import anchored, contents, gate_words, meaning, thing_naming
from edge_assist.answers.support import AnswerGate, Words
from edge_assist.inference.base import TextEncoder
from edge_assist.retrieval.api import Moment
from edge_assist.tasks.details import parse_details, parse_number

# How far outside every time a caption states a time asked may be and still be that act: "about a
# minute" is fifty seconds, a range "two - three mins" holds two minutes.
_TIME_SLACK = 0.2
# How much a moment counts that names the thing only among what its vessel held ("I swirled the
# cup (butter, egg, vanilla)"): the act was on the vessel, so a moment whose own caption tells the
# act on the thing ("beating one egg with a fork") comes first.
READ_INTO_WEIGHT = 0.7
# What a caption whose verb tells the act backs a question that names the act and nothing else
# ("kneading"): above the gate's threshold, below a moment the gate itself backs well.
ACT_ALONE_BACKING = 0.5


def backing(
    gate: AnswerGate,
    encoder: TextEncoder,
    focus: str,
    found: Sequence[Moment],
    *,
    act_needed: bool | None = True,
) -> dict[Moment, float]:
    """P(the moment is what the question is about), per candidate: the better of the focus as
    asked and the focus restated in the caption's words when it tells the same act by meaning,
    weighed down when the caption tells only other acts on the thing (answers/meaning.py); or its
    anchor, the things it names and its act alone, weighed lower (answers/anchored.py)."""
    if not found:
        return {}
    readings = [meaning.read(focus, m.text) for m in found]
    kind_of = anchored.word_kinds(encoder).kind
    anchors: list[str | None] = [None] * len(found)  # act_needed None: no anchor (an order's acts)
    if act_needed is not None:
        anchors = [anchored.anchor(focus, m.text, act_needed=act_needed, kind_of=kind_of) for m in found]
    restated = [r.restated for r in readings]
    extra = list(dict.fromkeys(r for r in [*restated, *anchors] if r is not None))
    texts = [focus, *(m.text for m in found), *extra]
    words: list[Words | None] = [None] * len(texts)
    if hasattr(encoder, "encode_words"):
        words = list(encoder.encode_words(texts))
    n = len(found)
    said = dict(zip(extra, words[n + 1 :], strict=True))
    # The restated focus is compared with its caption as a sentence too: the retrieval score is
    # the question's own, in its own words.
    pairs = [(r.restated, m.text) for m, r in zip(found, readings, strict=True) if r.restated]
    near = _cosines(encoder, pairs + [(a, m.text) for m, a in zip(found, anchors, strict=True) if a])
    out: dict[Moment, float] = {}
    asked_times = _times(focus)
    asked = meaning.parse(focus)
    thing = asked.thing
    act_alone = meaning.act_alone(focus)
    features = functools.partial(gate_words.features, parts_too=gate.reads_parts)
    for m, w, r, a in zip(found, words[1 : n + 1], readings, anchors, strict=True):
        p = gate.probability(features(m.score, focus, m.text, words[0], w))
        if r.restated is not None:
            cosine = max(m.score, near.get((r.restated, m.text), m.score))
            feats = features(cosine, r.restated, m.text, said[r.restated], w)
            p = max(p, meaning.RESTATED_WEIGHT * gate.probability(feats))
            if act_alone:
                # "when did I start kneading?": a caption whose own verb tells the act answers a
                # question that names the act alone, however few words the gate had to compare
                p = max(p, ACT_ALONE_BACKING)
        if a is not None and not r.other_act:
            cosine = max(m.score, near.get((a, m.text), m.score))
            p = max(p, anchored.ANCHOR_WEIGHT * gate.probability(features(cosine, a, m.text, said[a], w)))
        if r.as_place:
            p *= meaning.PLACE_WEIGHT
        if thing and _named_only_as_read(thing, m.text):
            p *= READ_INTO_WEIGHT
        out[m] = p * meaning.OTHER_ACT_WEIGHT if r.other_act or _another_time(asked_times, m.text) else p
    return out


def _named_only_as_read(thing: str, text: str) -> bool:
    """Whether the moment names `thing` only among what its vessel held (the caption read with
    its contents: answers/contents.py), not in the caption as told: the act was on the vessel,
    and may have been on the other things in it. What "it" stood for is what the clip before
    named, and counts in full."""
    told = contents.as_told(text)
    return (
        told != text and bool(contents.vessels_referred(told)) and thing_naming.thing_in(thing, told) is None
    )


def _times(text: str) -> list[float]:
    return [a.value for a in parse_details(text).amounts if a.dim == "time"]


def _another_time(asked: list[float], caption: str) -> bool:
    """Whether the caption times its act otherwise than the question's times `asked` ("cook it
    for 3 minutes" over "frying for two mins"): the same act, another time it was done."""
    if not asked:
        return False  # most questions time nothing: the caption is not read
    told = parse_details(caption).amounts
    told_times = [a for a in told if a.dim == "time"]
    if not asked or not told_times:
        return False
    # every number the caption says, in the unit of its time: both ends of "fifteen - thirty secs"
    unit = told_times[0].value / (parse_number(told_times[0].text.split()[0]) or 1.0)
    said = [a.value for a in told_times]
    said += [n * unit for w in re.findall(r"[\w/.]+", caption) if (n := parse_number(w)) is not None]
    low, high = min(said) * (1 - _TIME_SLACK), max(said) * (1 + _TIME_SLACK)
    return all(not low <= v <= high for v in asked)


def _cosines(encoder: TextEncoder, pairs: list[tuple[str, str]]) -> dict[tuple[str, str], float]:
    """Sentence cosine of each (restated focus, caption) pair, encoded in one batch."""
    if not pairs:
        return {}
    texts = list(dict.fromkeys(t for pair in pairs for t in pair))
    vecs = dict(zip(texts, encoder.encode(texts), strict=True))
    return {(a, b): float(vecs[a] @ vecs[b]) for a, b in pairs}
