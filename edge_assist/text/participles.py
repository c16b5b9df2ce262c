"""Past participles read back to their verb: "softened" -> soften, "beaten" -> beat, "cut" -> cut.
A question that says a thing's state ("was the butter softened?") asks about the act that made it."""

from __future__ import annotations

from edge_assist.text.action_families import known
from edge_assist.text.verb_forms import IRREGULAR_PAST, is_verb

# Past participles that are not past tenses too ("beaten", not "beat").
_PARTICIPLES = {
    "beaten": "beat",
    "broken": "break",
    "frozen": "freeze",
    "taken": "take",
    "shaken": "shake",
    "thrown": "throw",
    "eaten": "eat",
    "given": "give",
    "done": "do",
    "gone": "go",
    "gotten": "get",
    "ground": "grind",
    "written": "write",
    "torn": "tear",
    "drawn": "draw",
    "stolen": "steal",
    "chosen": "choose",
    "hidden": "hide",
    "woken": "wake",
    "worn": "wear",
    "spun": "spin",
    "thawn": "thaw",
    "forgotten": "forget",
    "fallen": "fall",
    "risen": "rise",
    "shown": "show",
    "bitten": "bite",
}
_PAST_TO_BASE = {past: base for base, past in IRREGULAR_PAST.items()}


def participle_base(word: str) -> str | None:
    """The base of a past participle we know for a verb ("softened" -> soften, "beaten" -> beat)."""
    w = word.lower()
    if w in _PARTICIPLES:
        return _PARTICIPLES[w]
    if w in _PAST_TO_BASE:
        return _PAST_TO_BASE[w]
    if w in IRREGULAR_PAST and IRREGULAR_PAST[w] == w:
        return w  # "cut", "put", "set"
    if not w.endswith("ed") or len(w) < 4:
        return None
    for stem in (w[:-2], w[:-1], w[:-3], w[:-3] + "y"):
        if is_verb(stem) or known(stem):
            return stem
    # A verb no list knows ("softened"): a word after "was the butter" ending in -ed is its
    # participle; its base drops the -ed, and a doubled last consonant ("zipped").
    stem = w[:-2]
    return stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "aeiouls" else stem
