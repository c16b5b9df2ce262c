"""Which verbs tell the same act: "did I add cheese?" is answered by "sprinkle cheese on the cup".

People ask about an act in their own words, and a caption tells it in the recipe's or a
captioner's: "add" is what a step calls sprinkle, pour, put in, top with or line with;
"crack an egg" is "pour 1 egg into the cup". Words alone miss these, and a word encoder does
not tell a synonym from a sibling act ("peel"/"stripping" is as close as "peel"/"chop").

So verbs are grouped by the act they tell (`GROUPS`: a verb may sit in more than one), and a
few general verbs (`BROAD`) stand for several groups at once: "add" and "put" for every way
of putting a thing in or on something, "use" for any act. Two verbs tell the same act when
they share a group, or when one is a general verb that covers the other's group. Sibling
acts stay apart: cutting is not peeling, heating is not mixing. The groups are written for
any kitchen, household or workshop task, not for one recipe.
"""

from __future__ import annotations

from edge_assist.text.verb_forms import IRREGULAR_PAST, base_of_third_person, is_verb


def _groups(spec: dict[str, str]) -> dict[str, frozenset[str]]:
    return {name: frozenset(verbs.split()) for name, verbs in spec.items()}


GROUPS = _groups(
    {
        # a liquid or a runny thing goes in: "crack an egg" is "pour 1 egg into the cup"
        # ("squeeze a lime over" pours its juice; a drink is served by pouring it)
        "pour": "pour crack break drizzle splash tip empty squirt drip decant squeeze serve",
        # a loose thing is scattered over: cheese, salt, herbs
        "sprinkle": """sprinkle dust scatter season salt garnish top grate shake flavour flavor spice dash
            sift sieve strew shower mist""",
        # a thing is turned upside down: "flip the pancakes" is "turning over the pancakes"
        "flip": "flip invert overturn",
        # a thing is set in or on another: "line the muffin with lettuce", "top with salsa"
        "place": """place put set lay arrange layer line top stack position rest transfer move drop insert
            load fill stuff tuck spoon scoop ladle dump throw toss sandwich assemble
            chuck bung whack pop plonk shove dollop serve refill""",
        # a thing is set on a plate to be eaten: a way of putting it there, and no way of filling a mug
        "plate": "plate",
        # a thing goes back where it was: not a way of adding one ("replace the top of the muffin")
        "put back": "replace return restore",
        # a thing is spread over a surface: butter, oil, cooking spray
        "spread": "spread smear brush coat cover butter grease spray rub slather glaze baste oil paint dot",
        "mix": "mix stir whisk beat combine fold blend toss incorporate whip emulsify swirl dissolve",
        # a thing is parted into pieces, by a blade or by hand ("tear the bread into bits")
        "cut": """cut slice chop dice mince halve split cube julienne trim quarter carve shred grate snip
            tear rip segment shave crumble""",
        "peel": "peel skin strip zest pare hull core pit deseed shell shuck husk",
        "crush": """crush mash smash grind pound squeeze puree blitz pulse press blend juice squash squish
            liquidise liquidize process crumble""",
        "heat": """heat warm cook microwave zap nuke fry saute boil simmer bake roast toast grill broil
            steam poach sear brown reheat melt liquefy preheat blanch braise caramelize stir-fry deep-fry
            pan-fry caramelise parboil scramble char scorch sauté shallow-fry barbecue""",
        "cool": "cool chill refrigerate freeze",
        # made soft: by heat in a pan, or left out ("softened butter" is only its state)
        "soften": "soften thaw defrost",
        "wash": "wash rinse clean scrub wipe soak mop sponge",
        # water taken off: drying is no washing, though both are done to a washed tomato
        "dry": "dry pat dab blot",
        "take": "take grab pick get fetch lift retrieve collect hold carry bring",
        "remove": "remove discard drain strain sieve skim scrape rid bin trash dispose",
        # a thing is put into a liquid or a coating and out again: "dip the bread in the egg"
        "dip": "dip dunk dredge coat immerse submerge",
        # a thing is left in a liquid to take it in: tea in water, chicken in a marinade
        "steep": "steep soak marinate infuse brew",
        "open": "open unscrew uncap unlid unwrap unseal unpack unlock uncover",
        "close": "close cover seal cap wrap shut screw",
        # a thing is held closed or in place by something through or around it: a toothpick, a tie
        "fasten": "fasten pin secure skewer clip staple tie thread",
        "measure": "measure weigh portion",
        # things set in order where they belong: "sort out the utensils" is "arranges utensils"
        "tidy": "tidy arrange organise organize sort declutter",
        # a moment kept on a phone or a camera
        "record": "record film video photograph",
        # kneading, flattening and shaping are three stages of a dough, not one act
        "knead": "knead",
        "flatten": "flatten roll press",
        "shape": "shape form mould mold",
        "eat": "eat taste drink sample try",
        # a thing handed over to someone: "handed the plate to him" is "gives plate to man"
        "give": "give hand pass offer",
        # a day at home, away from the counter: "before I studied" is the studying
        "study": "study revise",
        "talk": "talk chat call phone",
        "play": "play",
        "browse": "browse scroll",
        "vacuum": "vacuum hoover",
    }
)

# General verbs: the groups each one stands for ("use" stands for every group).
_PUT_IN = frozenset({"pour", "sprinkle", "place", "spread", "plate"})
BROAD: dict[str, frozenset[str]] = {
    "add": _PUT_IN,
    "put": _PUT_IN,
    "include": _PUT_IN,
    "use": frozenset(GROUPS),
    "do": frozenset(GROUPS),  # "when did I do the lettuce?": whatever was done to it
    "cook": frozenset({"heat"}),
}


# Where a thing is put to undergo an act: "how long was it in the microwave?" asks how long it
# was microwaved, "in the blender" how long it was blended.
APPLIANCE_ACTS: dict[str, str] = {
    "microwave": "microwave",
    "micro": "microwave",
    "oven": "bake",
    "toaster": "toast",
    "grill": "grill",
    "pan": "cook",
    "skillet": "cook",
    "wok": "fry",
    "fryer": "fry",
    "pot": "cook",
    "saucepan": "cook",
    "steamer": "steam",
    "kettle": "boil",
    "blender": "blend",
    "processor": "blend",
    "mixer": "mix",
    "fridge": "chill",
    "refrigerator": "chill",
    "freezer": "freeze",
    "sink": "wash",
    "dishwasher": "wash",
}


# Appliances a thing is put in to be acted on, not to be added to something: "put it in the
# microwave" microwaves it, while "put the oil in the pan" adds oil (and water into the kettle
# fills it).
ACTING_APPLIANCES = frozenset(
    {
        "microwave",
        "micro",
        "oven",
        "toaster",
        "grill",
        "fryer",
        "steamer",
        "blender",
        "processor",
        "fridge",
        "refrigerator",
        "freezer",
        "dishwasher",
    }
)


# General verbs that stand for any act at all.
ANY_ACT = frozenset({"use", "do"})


def _own(verb: str) -> frozenset[str]:
    return frozenset(name for name, verbs in GROUPS.items() if verb in verbs)


def known(verb: str) -> bool:
    """A verb (base form) of some group, or a general one."""
    v = verb.lower()
    return v in BROAD or bool(_own(v))


_PAST_TO_BASE = {past: base for base, past in IRREGULAR_PAST.items()}


def verb_base(word: str) -> str | None:
    """The base form of `word` when it is a verb we know in any form ("poured" -> pour,
    "zapping" -> zap), else None."""
    w = word.lower()
    for cand in (w, base_of_third_person(w), _PAST_TO_BASE.get(w, "")):
        if cand and (is_verb(cand) or known(cand)):
            return cand
    stems: tuple[str, ...] = ()
    if w.endswith("ing") and len(w) > 5:
        stems = (w[:-3], w[:-3] + "e", w[:-4])
    elif w.endswith("ed") and len(w) > 4:
        stems = (w[:-2], w[:-1], w[:-3], w[:-3] + "y")
    return next((s for s in stems if is_verb(s) or known(s)), None)


def said_as_verbs(words: list[str]) -> list[tuple[str, str]]:
    """The words of a clause (its subject left out) that say an act, each with its base form:
    the first word, and any said as a verb form ("-ing", "-ed"): "In two bits, I'm slicing the
    muffin", "Microwave the plate, covered". A noun is no act ("stirs it in the microwave")."""
    out = []
    for i, w in enumerate(words):
        if i == 0 or w.endswith(("ing", "ed")):
            base = verb_base(w)
            if base is not None:
                out.append((w, base))
    return out


def same_act(asked: str, told: str) -> bool:
    """Whether the verb of a question (`asked`) and the verb of a caption (`told`), both in their
    base form, tell the same act: one group shared, or one a general verb covering the other."""
    a, t = asked.lower(), told.lower()
    if a == t:
        return True
    a_own, t_own = _own(a), _own(t)
    if a_own & t_own:
        return True
    return bool(BROAD.get(a, frozenset()) & t_own) or bool(BROAD.get(t, frozenset()) & a_own)


def covers_act(asked: str, told: str) -> bool:
    """Whether a caption's verb (`told`) tells the act a question's verb (`asked`) names: one group
    shared, or the question's verb a general one covering the caption's. A caption's general verb
    does not tell a specific act: "put the slices on a platter" is not "season the slices"."""
    a, t = asked.lower(), told.lower()
    t_own = _own(t)
    if a in BROAD and t in BROAD:
        return BROAD[t] <= BROAD[a]  # "did I put milk in?" for "I'm adding one tbsp milk"
    return a == t or bool(_own(a) & t_own) or bool(BROAD.get(a, frozenset()) & t_own)


def related_act(asked: str, told: str) -> bool:
    """Whether two verbs tell the same act or two ways of one general act ("pour the milk" and
    "fill the mug with milk" are both adding), "use" and "do" left out since they cover every act."""
    if same_act(asked, told):
        return True
    a_own, t_own = _own(asked.lower()), _own(told.lower())
    return any(a_own & groups and t_own & groups for verb, groups in BROAD.items() if verb not in ANY_ACT)
