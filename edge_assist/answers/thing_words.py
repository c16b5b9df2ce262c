"""How the question's words for a thing are said in a caption's words, for the answer gate to
compare like with like: the caption's own name for it ("scallion" for "spring onion", "cilantro"
for "the green stuff"), the noun a name-giving word stands for ("the balsamic" is the caption's
"balsamic vinegar"), a vessel by the caption's name for it ("bowl" said as "basin"), and the
describing words the caption does not say left out.
"""

from __future__ import annotations

from edge_assist.answers.contents import one_vessel
from edge_assist.answers.focus import VAGUE, WORDS_OF, Asked, verb_base
from edge_assist.answers.varieties import is_variety
from edge_assist.tasks.step_phrases import singular
from edge_assist.tasks.word_kinds import MATERIAL, lexical_kind
from edge_assist.text.kinds_of_things import LOOKS
from edge_assist.text.stop_words import DETERMINERS, FUNCTION_WORDS
from edge_assist.text.units import UNITS


def say_as(out: list[str], asked: Asked, named: str) -> None:
    """The thing asked said in `out` as the caption's word for it, `named`."""
    out[asked.thing_at] = named
    if "-" in asked.thing:
        out[asked.thing_at - 1] = ""  # "spring onion" said as the caption's "scallion"
    if asked.thing_at + 1 < len(out) and out[asked.thing_at + 1].lower() in VAGUE:
        out[asked.thing_at + 1] = ""  # "the green stuff" said as "the cilantro"
    if asked.thing_at > 0 and out[asked.thing_at - 1].lower() in LOOKS:
        out[asked.thing_at - 1] = ""  # "the yellow fruit" said as "the banana"


def with_its_noun(out: list[str], at: int, caption: str) -> None:
    """A thing asked by a word that only gives a name ("the balsamic", "the maple", "the dijon"),
    said with the noun the caption names after it ("balsamic vinegar"): the question means the
    caption's thing. A word the lexicons know as a thing of its own ("tomato" of "tomato sauce",
    "egg" of "egg mixture") names that thing, not the caption's compound."""
    word = out[at].lower()
    if lexical_kind(word) is not None or (at + 1 < len(out) and out[at + 1]):
        return
    words = [w.lower() for w in WORDS_OF.findall(caption)]
    for i, w in enumerate(words[:-1]):
        if w == word and lexical_kind(words[i + 1]) == MATERIAL:
            out[at] = f"{out[at]} {words[i + 1]}"
            return


def unsaid_describers(out: list[str], at: int, caption: str) -> None:
    """Words that describe the thing at `at` in the question and that the caption does not say are
    left out of `out` ("the herby seasoning" of "italian seasoning", "the little bits"): people
    describe things their own way. A variety word stays ("whole milk" is not "skimmed milk"), as
    does an amount."""
    said = {w.lower() for w in WORDS_OF.findall(caption)}
    j = at - 1
    while (
        j >= 0 and out[j] and out[j].lower() not in DETERMINERS | FUNCTION_WORDS and not out[j][0].isdigit()
    ):
        if out[j].lower() in UNITS:
            return  # "1/4 tsp salt": an amount says how much, not what the thing is like
        if out[j].lower() not in said and not is_variety(out[j].lower()) and not verb_base(out[j]):
            out[j] = ""
        j -= 1


def vessels_as_said(out: list[str], caption: str) -> None:
    """Each vessel of `out` the caption names only by another of its names said as the caption
    does ("salt the eggs in the bowl" of "to the basin, tossing in salt": "in the basin")."""
    said = WORDS_OF.findall(caption.lower())
    for j, w in enumerate(out):
        s = singular(w.lower())
        if not s or s in (singular(x) for x in said):
            continue
        other = next((x for x in said if s != singular(x) and one_vessel(s, singular(x))), None)
        if other is not None:
            out[j] = other
