"""A task given as a plain list of steps: its order is a default, not a law.

A list says in which order someone wrote the steps, not which must come first. Two listed
steps that share nothing may be done in either order; a swap of them is no skip and no
order error. Where a later step shares a thing with an earlier one, the listed order holds
between them as if written in `after` ("Fill the kettle with water" before "Boil the water":
both name the water; "Put a tea bag in the mug" before "Remove the tea bag").

"Share" is read from the step texts, without a model, the same for every task:

- a step's things are its content words (no grammar words, units, amounts, settings, no
  "-ing" or "-ly" words of doing and manner), without its leading verb ("Boil the water" ->
  water), singular ("eggs" -> egg): what it works on, with and for (tools too: "Clean the
  knife" and "Use the knife to scoop jelly" share the knife);
- two steps share a thing when they have a thing in common, apart from vessels and work
  surfaces (bowl, mug, pan, tray, board, ...): adding flour to the bowl and adding sugar to
  the bowl may be done in either order, and most recipe and lab steps name one;
- what a step makes counts by the word it leaves behind: "Boil the water" and "Pour the
  boiling water" share "water"; a product renamed ("Whisk the eggs", then "Pour the
  mixture") is not linked, so its order is not enforced (a miss, never a false alarm).

Each step is after the latest earlier step that names each of its things; the order of the
rest is free. That order is soft: a step begun without one it shares a thing with reports
the earlier one as skipped ("Did you skip ...?", while it can still be done), but the
skipped step done late after all is no order error (a list does not say it had to come
first). A TOML task's `after` is the way to state a hard order the words do not show.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from edge_assist.tasks.model import Task, make_step
from edge_assist.text.stop_words import STEP_STOP_WORDS
from edge_assist.text.units import UNIT_NAMES

# Things every step of a kind names without depending on another: where things go, and
# words of shape, amount, state or extent. A shared one of these orders nothing.
VESSELS = frozenset(
    """bowl bowls mug mugs cup cups glass jar jars pan pans pot pots skillet saucepan wok tray
    baking sheet plate plates dish dishes board container lid ramekin tube tubes rack counter
    surface table workbench bench oven microwave stove hob sink tap""".split()
)
_GENERIC = frozenset(
    """mixture contents ingredients everything rest remaining end ends edge edges top bottom
    middle center centre inch inches layer layers amount until together about each every between
    enough almost apart halfway direction opposite length shape thick thin tight loose high low
    covered uncovered small large big fresh hot cold warm cool lukewarm frozen chilled""".split()
)
_WORD = re.compile(r"[a-z][a-z'-]+")


def singular(word: str) -> str:
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "oes")):
        return word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def things(text: str) -> frozenset[str]:
    """The things a step names (see the module's doc)."""
    words = [re.sub(r"'s?$", "", w.strip("-")) for w in _WORD.findall(text.lower())]
    if words and words[0] not in STEP_STOP_WORDS:
        words = words[1:]  # the imperative verb: "Boil the water", "Whisk the eggs"
    out = {
        singular(w)
        for w in words
        if len(w) > 2
        and w not in STEP_STOP_WORDS
        and w not in UNIT_NAMES
        and w not in _GENERIC
        # Doing and manner ("slicing", "boiling water", "gently"): the thing is the noun.
        and not (len(w) > 5 and w.endswith(("ing", "ly")))
    }
    return frozenset(w for w in out if w not in VESSELS and w not in _GENERIC)


def list_task(
    name: str, title: str, texts: Sequence[str], *, source: str = "", kind: str = "procedure", where: str = ""
) -> Task:
    """A task from listed step texts (ids "1", "2", ...), ordered only where steps share a thing."""
    named = [things(t) for t in texts]
    steps = []
    for j, text in enumerate(texts):
        after: list[str] = []
        for w in sorted(named[j]):
            last = next((i for i in range(j - 1, -1, -1) if w in named[i]), None)
            if last is not None and str(last + 1) not in after:
                after.append(str(last + 1))
        steps.append(make_step(str(j + 1), text, sorted(after, key=int)))
    return Task.build(name, title, steps, source=source, kind=kind, where=where, listed=True)
