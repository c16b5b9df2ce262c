"""The caption's own word for a question's act, when it tells that act in other words.

"Scattered" tells adding, "melting butter in a frying skillet" puts the butter in, "adds onions
to the oil in the pan" starts cooking them, "places flour tortilla in the microwave" heats it.
"""

from __future__ import annotations

import re

from edge_assist.answers.focus import Asked
from edge_assist.answers.put_into import puts_into
from edge_assist.text.action_families import BROAD, covers_act, same_act
from edge_assist.text.put_on_verbs import PUTS_ON

# Where a caption cooks its thing: "in a steel frying skillet", "on the pan".
_IN_VESSEL = re.compile(
    r"\b(?:in|on|into)\s+(?:the|a|an|my)\s+(?:[a-z-]+\s+){0,2}(?:pan|skillet|pot|saucepan|wok)\b", re.I
)


def adds(verb: str) -> bool:
    """ "add", "put", "pour", "sprinkle": a way of putting a thing in or on something."""
    return same_act(verb, "add") or BROAD.get(verb) == BROAD["add"]


# Verbs that only place a thing somewhere: what is done to it is the place's act.
PLACES = frozenset(
    {
        "put",
        "place",
        "pop",
        "stick",
        "set",
        "transfer",
        "move",
        "return",
        "slide",
        "get",
        "throw",
        "bung",
        "shove",
    }
)


# Verbs that move a thing somewhere else when a destination is said: "take the tofu over to the
# table" puts it on the table.
_CARRIES = frozenset({"take", "bring", "carry", "walk", "move"})


def moves_to(words: list[str], verb: str, *, carried: bool = False) -> bool:
    """Whether the focus's verb (`words[0]`, base form `verb`) only places its thing: a verb of
    placing, or with `carried` only one of carrying said with where to ("take the tofu over to
    the table")."""
    if verb in PLACES - {"put"} and not carried:
        return True
    return verb in _CARRIES and "to" in (w.lower() for w in words[2:])


def said_as(asked: Asked, verbs: list[tuple[int, str]], caption_words: list[str], caption: str) -> str | None:
    """The caption's own word for the asked act, or None when none of its verbs tells it."""
    # the caption's own word ("scattered"): its word vector is the one the gate compares
    match = next((caption_words[i] for i, t in verbs if covers_act(asked.verb, t)), None)
    if (
        match is None
        and verbs
        and adds(asked.verb)
        and asked.verb not in PUTS_ON
        and puts_into(caption, asked.thing)
    ):
        # "grinding pepper to the dish", "squeezing lemon into the bowl": a verb of its
        # own manner that still puts the thing somewhere adds it; "salt the eggs" puts
        # salt on them, and eggs poured somewhere are not salted
        match = caption_words[verbs[0][0]]
    put_in = adds(asked.verb) and asked.verb not in PUTS_ON
    if match is None and put_in and asked.verb in _WAYS_OF_ADDING:
        # "did I splash some water in?" of "The person adds water.": a caption that says only that
        # the thing was added tells any way of pouring or sprinkling it in (not of plating it)
        match = next((caption_words[i] for i, t in verbs if t in _ADDED), None)
    heated = same_act("heat", asked.verb) and asked.verb not in BROAD
    if match is None and (put_in or heated) and _IN_VESSEL.search(caption):
        # "melting butter in a frying skillet", "frying the garlic in the pan", "softening butter
        # in the skillet": cooked in a vessel, the thing had gone in it, and made soft in a pan
        # it was heated ("softened butter" alone is no heating: it is only the butter's state)
        match = next((caption_words[i] for i, t in verbs if same_act("heat", t) or t == "soften"), None)
    if match is None and asked.verb in _ON_THE_HOB and _INTO_HOT.search(caption):
        # "when did I start cooking the onions?" of "adds onions to the oil in the pan": a thing put
        # into a pan, a pot or hot oil on the hob is being cooked from that moment
        match = next((caption_words[i] for i, t in verbs if adds(t)), None)
    if match is None and same_act("heat", asked.verb):
        # "heat the tortillas" of "places flour tortilla in the microwave": put in a heating
        # appliance, the thing is heated the way that appliance heats
        place = _INTO_HEATER.search(caption)
        heats = _HEATER_ACTS.get(re.sub(r"\W", "", place.group(1).lower()), frozenset()) if place else None
        if heats and asked.verb in _ANY_HEAT | heats:
            match = next((caption_words[i] for i, t in verbs if t in PLACES or adds(t)), None)
    return match


_ADDED = frozenset({"add", "put", "include"})
_WAYS_OF_ADDING = frozenset(
    "pour splash drizzle drip squirt tip dash shake sprinkle scatter dust strew shower mist squeeze".split()
)
# Heating said without saying how: any heating appliance does it.
_ANY_HEAT = frozenset({"heat", "warm", "reheat", "cook"})
_HEATER_ACTS = {
    "microwave": frozenset({"microwave", "zap", "nuke"}),
    "oven": frozenset({"bake", "roast"}),
    "toaster": frozenset({"toast"}),
    "fryer": frozenset({"fry", "deep-fry"}),
    "airfryer": frozenset({"fry", "roast", "bake"}),
    "steamer": frozenset({"steam"}),
}
_INTO_HEATER = re.compile(
    r"\b(?:in|into|inside)\s+(?:(?:the|a|an|my)\s+)?"
    r"(microwave|micro wave|oven|toaster|air fryer|fryer|steamer)\b(?!-)",
    re.I,
)
# Ways of cooking a thing on the hob, which start when it goes into the pan, pot or oil.
_ON_THE_HOB = frozenset(
    {"cook", "fry", "saute", "sauté", "stir-fry", "pan-fry", "sear", "brown", "boil", "simmer"}
)
_INTO_HOT = re.compile(
    r"\b(?:in|into|to|onto)\s+(?:(?:the|a|an|my|some)\s+)?(?:[a-z-]+\s+){0,2}"
    r"(?:pan|skillet|pot|saucepan|wok|oil|butter|water)\b",
    re.I,
)
