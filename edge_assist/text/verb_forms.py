"""Verb forms: which first words of a caption are verbs, and their past tense.

A caption is an imperative step ("Cut the muffin"), a narration ("C cuts the muffin") or a
note; an answer tells it back in the past ("you cut the muffin"). The irregular pasts are
one table for every reader: the answer's wording, its check for words the evidence did not
hold ("took" is the "take" of the caption), and the evaluation's rewording of steps.
"""

from __future__ import annotations

import re


def _base_past(pairs: str) -> dict[str, str]:
    """ "begin/began cut/cut" -> {"begin": "began", "cut": "cut"}."""
    return dict(pair.split("/", 1) for pair in pairs.split())


IRREGULAR_PAST = _base_past(
    """
    be/were beat/beat become/became begin/began bend/bent bite/bit bleed/bled blow/blew break/broke
    bring/brought build/built buy/bought catch/caught choose/chose come/came cut/cut deal/dealt
    dig/dug do/did draw/drew drink/drank drive/drove eat/ate fall/fell feed/fed feel/felt
    fight/fought find/found fit/fit fling/flung fly/flew forget/forgot freeze/froze get/got
    give/gave go/went grind/ground grow/grew hang/hung have/had hear/heard hide/hid hit/hit
    hold/held hurt/hurt keep/kept know/knew lay/laid lead/led leave/left lend/lent let/let lie/lay
    light/lit lose/lost make/made mean/meant meet/met pay/paid put/put quit/quit read/read ride/rode
    ring/rang rise/rose run/ran say/said see/saw seek/sought sell/sold send/sent set/set sew/sewed
    shake/shook shed/shed shine/shone shoot/shot show/showed shred/shredded shut/shut sing/sang
    sink/sank sit/sat slide/slid sling/slung slit/slit speak/spoke spend/spent spin/spun spit/spat
    split/split spread/spread spring/sprang stand/stood steal/stole stick/stuck sting/stung
    stir/stirred strike/struck swear/swore sweep/swept swim/swam swing/swung take/took teach/taught
    tear/tore tell/told think/thought throw/threw thrust/thrust understand/understood wake/woke
    wear/wore weep/wept win/won wind/wound wring/wrung write/wrote transfer/transferred
    refer/referred prefer/preferred zip/zipped overcook/overcooked undercook/undercooked
    rewrap/rewrapped
    """
)
# Verbs a caption may start with (recipes, household tasks, VLM captions); any verb in
# IRREGULAR_PAST counts too. A first word not listed is not taken for a verb.
CAPTION_VERBS = frozenset(
    """add adjust allow apply arrange assemble bake baste blanch blend blitz boil bounce braise brown brush
    bake carry check chill chop clean clear close coat collect combine continue cook cool cover crack cross
    crush cube dab dice dip discard dissolve drain drizzle drop dry dust empty extract fill filter finish
    flatten flip float fold fry garnish glaze grab grate grease grill halve handle heat insert invert juice
    knead ladle lift line load lower marinate mash measure melt mince mix move nudge open pack pat peel pick
    pinch place plate plug poach pour preheat prepare press pull puree push rinse roast roll rub salt saute
    scoop scrape scrub season secure serve shape shift simmer skim skip slice smash smear soak spiralize
    splash spoon spray sprinkle squeeze stack start steam steep stop store strain stuff sweeten switch
    taste tilt tip toast top toss transfer trim tuck turn twist unwrap use wait warm wash weigh whip
    whisk wipe wrap zap zest microwave replace return increase check drop fetch hand mop swap set slide
    dice dunk shave snip slather smooth stripe strip skin tap toss tug type walk watch look reach
    change fix repair inflate massage tend refill""".split()
)
_VOWELS = re.compile(r"[aeiouy]+")


def is_verb(word: str) -> bool:
    """A verb in its base form that a caption may start with."""
    w = word.lower()
    return w in CAPTION_VERBS or w in IRREGULAR_PAST


def past_tense(verb: str) -> str:
    """Past tense of an English verb in its base form (rules plus the table of irregulars)."""
    v = verb.lower()
    if v in IRREGULAR_PAST:
        return IRREGULAR_PAST[v]
    if v.endswith("e"):
        return v + "d"
    if len(v) > 2 and v.endswith("y") and v[-2] not in "aeiou":
        return v[:-1] + "ied"
    if _doubles_last(v):
        return v + v[-1] + "ed"
    return v + "ed"


def _doubles_last(v: str) -> bool:
    """One syllable ending consonant-vowel-consonant doubles its last letter (stop, chop, pat),
    also after "un" or "re" (unclip, rewrap)."""
    if v.startswith(("un", "re")) and len(v) > 4 and _doubles_last(v[2:]):
        return True
    return (
        len(_VOWELS.findall(v)) == 1
        and len(v) >= 3
        and v[-1] not in "aeiouwxy"
        and v[-2] in "aeiou"
        and v[-3] not in "aeiou"
    )


def present_participle(verb: str) -> str:
    """ "dice" -> "dicing", "stir" -> "stirring", "tie" -> "tying", "grate" -> "grating"."""
    v = verb.lower()
    if _doubles_last(v) or IRREGULAR_PAST.get(v) == v + v[-1:] + "ed":  # stir, put, transfer
        return v + v[-1] + "ing"
    if v.endswith("ie"):
        return v[:-2] + "ying"
    if v.endswith("e") and not v.endswith(("ee", "ye", "oe")) and len(v) > 2:
        return v[:-1] + "ing"
    return v + "ing"


def base_of_third_person(word: str) -> str:
    """ "cuts" -> "cut", "whisks" -> "whisk", "fries" -> "fry", "washes" -> "wash"."""
    w = word.lower()
    if w == "has":
        return "have"
    for suffix, repl in (
        ("ies", "y"),
        ("shes", "sh"),
        ("ches", "ch"),
        ("sses", "ss"),
        ("xes", "x"),
        ("zzes", "zz"),  # "buzzes"; "organizes", "freezes" and "squeezes" lose only their -s
        ("oes", "o"),
    ):
        if w.endswith(suffix):
            return w[: -len(suffix)] + repl
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w
