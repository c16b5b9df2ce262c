"""How small a thing was cut: "did I cut the bell pepper into tiny pieces?" over "dicing a
quarter red bell pepper in large bits" is a "No" said with what was seen (large, not tiny); so is
"did I cut the tomato in half?" over "chopped tomato into some small bits".

Only sizes said of the pieces ("small bits", "large chunks"), as the manner of a cut ("finely",
"thinly") or as halves count: "a large bowl" is the size of a bowl, not of a cut. Sizes are
compared within closed sets, as varieties are (answers/varieties.py): fine against large against
halves, thin against thick; a word no set knows says nothing.
"""

from __future__ import annotations

import re

from edge_assist.tasks.details import Difference

_SETS = [
    [frozenset(group.split()) for group in spec.split("|")]
    for spec in (
        "tiny small little fine finely bite-size bite-sized | large big chunky coarse coarsely rough roughly"
        " | half halves halved two",
        "thin thinly | thick thickly",
    )
]
_PIECES = r"(?:pieces?|bits?|chunks?|cubes?|dice|strips?|slices?|rings?|wedges?|rounds?)"
_SIZE = re.compile(
    rf"\b(tiny|small|little|fine|bite-sized?|large|big|chunky|coarse|rough|thin|thick)\s+(?:[a-z]+\s+)?{_PIECES}\b"
    r"|\b(finely|coarsely|roughly|thinly|thickly)\b"
    r"|\b(?:in|into)\s+(half|halves|two)\b|\b(halved)\b",
    re.I,
)


def sizes(text: str) -> list[str]:
    """The size words said of a cut's pieces, in order."""
    return [next(g for g in m.groups() if g).lower() for m in _SIZE.finditer(text)]


def _group(word: str) -> tuple[int, int] | None:
    return next(((s, g) for s, groups in enumerate(_SETS) for g, ws in enumerate(groups) if word in ws), None)


def size_difference(focus: str, caption: str) -> Difference | None:
    """The size of the pieces the question asks that the caption says otherwise (and never as
    asked), or None."""
    asked = [(w, _group(w)) for w in sizes(focus)]
    told = [(w, _group(w)) for w in sizes(caption)]
    for word, group in asked:
        if group is None:
            continue
        same_set = [(w, g) for w, g in told if g is not None and g[0] == group[0]]
        if same_set and all(g != group for _, g in same_set):
            return Difference("size", word, same_set[0][0])
    return None


def says_size(text: str, word: str) -> bool:
    """Whether `text` says the pieces were of the size `word` names ("small" for "tiny")."""
    group = _group(word)
    return group is not None and any(_group(w) == group for w in sizes(text))


def without_size(focus: str) -> str:
    """ "cut the pepper into tiny pieces" -> "cut the pepper"."""
    bare = re.sub(rf"\s*\b(?:in|into)\s+(?:some\s+|a\s+few\s+)?(?:{_SIZE.pattern})", " ", focus, flags=re.I)
    return " ".join(_SIZE.sub(" ", bare).split())
