"""Deterministic first-person rewording of recipe-style step captions.

Why: in CaptainCook4D, correctly performed steps reuse the recipe's own wording, so "the
caption differs from the recipe text" would flag errors in a way no real captioner allows.
The paraphrased variant narrates each step as a wearer or a captioner would: first person,
synonyms, numbers in words, phrases moved to the front. It is seeded and rule-based (no
model), so the same input always gives the same stream.
"""

from __future__ import annotations

import random
import re

from edge_assist.tasks.formats import clean_step as _clean_step
from edge_assist.text.numbers import spelled
from edge_assist.text.verb_forms import IRREGULAR_PAST

# Imperative verbs of the recipes, with synonyms (base forms) a narrator might use instead.
VERB_SYNONYMS: dict[str, tuple[str, ...]] = {
    "add": ("put in", "toss in", "tip in"),
    "allow": ("let",),
    "apply": ("put on", "smear on"),
    "beat": ("whisk", "whip"),
    "blitz": ("blend", "pulse"),
    "boil": ("bring to a boil",),
    "brush": ("coat", "paint"),
    "check": ("test", "look at"),
    "chop": ("dice", "cut up"),
    "clean": ("wipe", "wash"),
    "coat": ("cover", "grease"),
    "combine": ("mix together", "bring together"),
    "continue": ("keep on", "go on"),
    "cook": ("fry", "heat through"),
    "cover": ("put a lid on", "close up"),
    "crack": ("break", "open"),
    "cut": ("slice", "chop"),
    "discard": ("throw away", "get rid of"),
    "drain": ("strain", "pour off the liquid from"),
    "drizzle": ("trickle", "pour a little of"),
    "extract": ("pull out", "take out"),
    "fill": ("top up", "load"),
    "flip": ("turn over", "flip over"),
    "garnish": ("decorate", "finish off"),
    "grind": ("crush", "mill"),
    "heat": ("warm", "warm up"),
    "insert": ("push in", "stick in"),
    "invert": ("turn upside down", "tip over"),
    "lay": ("set down", "place"),
    "let": ("allow",),
    "line": ("cover", "lay out"),
    "lower": ("turn down", "reduce"),
    "measure": ("portion out", "weigh out"),
    "melt": ("liquefy", "soften"),
    "microwave": ("nuke", "zap"),
    "mince": ("finely chop", "dice finely"),
    "mix": ("stir together", "blend"),
    "open": ("unseal", "unlid"),
    "pat": ("dab", "blot"),
    "peel": ("skin", "strip"),
    "place": ("put", "set", "lay"),
    "pour": ("tip", "empty"),
    "prepare": ("get ready", "set up"),
    "pull": ("draw", "tug"),
    "puree": ("blend smooth", "mash"),
    "put": ("place", "set"),
    "remove": ("take off", "take out"),
    "replace": ("put back", "swap back"),
    "return": ("put back", "bring back"),
    "rinse": ("wash", "run water over"),
    "roll": ("wrap up", "roll up"),
    "saute": ("pan-fry", "fry"),
    "scoop": ("spoon", "ladle"),
    "seal": ("close", "shut"),
    "season": ("flavour", "spice"),
    "secure": ("fasten", "pin"),
    "serve": ("plate up", "dish up"),
    "set": ("put", "place"),
    "simmer": ("cook gently", "stew"),
    "slice": ("cut", "carve"),
    "slide": ("ease", "move"),
    "soften": ("loosen", "warm"),
    "splash": ("dash", "sprinkle"),
    "spiralize": ("cut into spirals", "spiral-cut"),
    "spoon": ("scoop", "ladle"),
    "spread": ("smear", "smooth"),
    "sprinkle": ("scatter", "dust"),
    "squeeze": ("press", "wring"),
    "start": ("begin",),
    "stir": ("mix", "swirl"),
    "stop": ("halt", "end"),
    "take": ("grab", "get"),
    "tear": ("rip", "pull apart"),
    "thaw": ("defrost",),
    "toast": ("brown", "crisp"),
    "top": ("finish", "cover"),
    "transfer": ("move", "shift"),
    "trim": ("cut back", "clip"),
    "turn": ("switch", "flip"),
    "wait": ("hold on", "pause"),
    "weigh": ("measure",),
    "whisk": ("beat", "whip"),
    "wipe": ("clean",),
    "wash": ("rinse", "clean"),
    "assemble": ("put together", "build"),
    "spill": ("slop", "knock over"),
    "crush": ("smash", "press"),
    "skip": ("leave out", "pass over"),
    "drop": ("let fall", "dump"),
    "wrap": ("roll up", "fold"),
    "use": ("take", "work with"),
    "keep": ("hold", "maintain"),
    "begin": ("start",),
    "serve ": ("plate",),
}

WORD_SYNONYMS: dict[str, tuple[str, ...]] = {
    "bowl": ("dish", "basin"),
    "pan": ("skillet",),
    "skillet": ("pan",),
    "plate": ("dish",),
    "mug": ("cup",),
    "teaspoon": ("tsp",),
    "teaspoons": ("tsp",),
    "tsp": ("teaspoon",),
    "tablespoon": ("tbsp",),
    "tablespoons": ("tbsp",),
    "tbsp": ("tablespoon",),
    "minutes": ("mins",),
    "minute": ("min",),
    "seconds": ("secs",),
    "second": ("sec",),
    "large": ("big",),
    "small": ("little",),
    "medium": ("moderate",),
    "pieces": ("bits", "chunks"),
    "piece": ("bit", "chunk"),
    "contents": ("stuff",),
    "mixture": ("mix", "blend"),
    "until": ("till",),
    "about": ("roughly", "around"),
    "approximately": ("roughly",),
    "into": ("in",),
    "onto": ("on",),
    "over": ("on top of",),
    "chopped": ("diced",),
    "minced": ("finely chopped",),
    "sliced": ("cut",),
    "knife": ("blade",),
    "spatula": ("turner",),
    "well": ("thoroughly",),
    "thin": ("fine",),
    "thick": ("chunky",),
    "high": ("full power",),
    "low": ("gentle",),
    "cup": ("mug",),
    "oil": ("cooking oil",),
    "then": ("after that",),
    "and": ("plus",),
    "the": ("the",),
}

# The numbers the rewording spells out (others stay digits), and the fractions it says.
NUMBER_WORDS = {
    **{str(n): spelled(n) for n in (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30)},
    "1/2": "half a",
    "1/4": "a quarter",
    "3/4": "three quarters of a",
    "1/3": "a third of a",
    "1/8": "an eighth of a",
    "1/6": "a sixth of a",
    "1/16": "a sixteenth of a",
    "1.5": "one and a half",
}
# The rewording's past tense knows only these irregular verbs and doubles only the finals
# in _DOUBLE_FINAL, which is narrower than `text.verb_forms.past_tense` ("built" there,
# "builded" here): the paraphrased streams the evaluation is measured on are written with it.
_IRREGULAR = frozenset(
    "cut put set let spread beat take grind begin keep get tear lay bring hold break shut go make draw stick "
    "throw wring".split()
)
_DOUBLE_FINAL = frozenset(
    """chop cut stir pat top set put flip trim wrap drop whip dip slip strip clip rip tug let get
    begin plan spin rub grab skin scrub zap dab shut tip pop slop drip""".split()
)
# Leading phrases moved to the front change word order ("For 30 secs, I'm ...").
_MOVABLE = re.compile(
    r"^(?P<head>.+?)\s+(?P<tail>(?:for|until|till|with|on|in|into|over|onto|using|from|to)\s.+)$"
)
_TOKEN = re.compile(r"\d+(?:[./:]\d+)?|[A-Za-z]+(?:[-'][A-Za-z]+)*|[^\sA-Za-z\d]")
# One definition of the label cleaning, shared with the task library's recipe import.
clean_step = _clean_step


def gerund(verb: str) -> str:
    words = verb.split(" ", 1)
    v = words[0]
    if v.endswith("ie"):
        g = v[:-2] + "ying"
    elif v.endswith("e") and not v.endswith(("ee", "ye", "oe")) and len(v) > 2:
        g = v[:-1] + "ing"
    elif v in _DOUBLE_FINAL:
        g = v + v[-1] + "ing"
    else:
        g = v + "ing"
    return " ".join([g, *words[1:]])


def past(verb: str) -> str:
    words = verb.split(" ", 1)
    v = words[0]
    if v in _IRREGULAR:
        p = IRREGULAR_PAST[v]
    elif v.endswith("e"):
        p = v + "d"
    elif v.endswith("y") and len(v) > 2 and v[-2] not in "aeiou":
        p = v[:-1] + "ied"
    elif v in _DOUBLE_FINAL:
        p = v + v[-1] + "ed"
    else:
        p = v + "ed"
    return " ".join([p, *words[1:]])


_PAST_TO_BASE = {past(v): v for v in VERB_SYNONYMS}


def _join(tokens: list[str]) -> str:
    out = ""
    for tok in tokens:
        if out and not re.fullmatch(r"[,.;:!?)]", tok) and not out.endswith("("):
            out += " "
        out += tok
    return out


def _reword(tokens: list[str], rng: random.Random) -> list[str]:
    out: list[str] = []
    for i, tok in enumerate(tokens):
        low = tok.lower()
        prev = tokens[i - 1].lower() if i else ""
        if low in NUMBER_WORDS:
            out.append(NUMBER_WORDS[low])
        elif low in VERB_SYNONYMS and prev in ("and", "then", "while", ",", ";", "."):
            # A second action in the same step ("... and replace the top"); only after a
            # conjunction, because "top", "set" or "mix" are nouns elsewhere.
            out.append(rng.choice(VERB_SYNONYMS[low]))
        elif low in WORD_SYNONYMS and rng.random() < 0.85:
            out.append(rng.choice(WORD_SYNONYMS[low]))
        else:
            out.append(low if tok[:1].isupper() and not tok.isupper() else tok)
    return out


def _base_verb(token: str) -> str:
    """The recipe verb a token is (imperative or past: "Stirred" -> "stir"), or ""."""
    low = token.lower()
    if low in VERB_SYNONYMS:
        return low
    return _PAST_TO_BASE.get(low, "")


def paraphrase(text: str, rng: random.Random) -> str:
    """One first-person rewording of an imperative step description."""
    tokens = _TOKEN.findall(clean_step(text))
    if not tokens:
        return "I'm carrying on."
    vi = next((i for i, t in enumerate(tokens) if _base_verb(t)), None)
    lead: list[str] = []
    if vi is None:
        # Quantities with no verb ("1/2 tsp baking powder to a blender") are additions.
        verb = rng.choice(VERB_SYNONYMS["add"]) if re.match(r"\d", tokens[0]) else "handle"
        rest = tokens
    else:
        lead = tokens[:vi]
        base = _base_verb(tokens[vi])
        verb = rng.choice(VERB_SYNONYMS[base]) if rng.random() < 0.8 else base
        rest = tokens[vi + 1 :]
        if len(rest) >= 2 and rest[0] == "-" and rest[1].lower() == base:
            rest = rest[2:]  # "add-add the tofu": the label left inside the text
        # "Measure and add ...": both verbs take the narrated form.
        if len(rest) >= 2 and rest[0].lower() == "and" and rest[1].lower() in VERB_SYNONYMS:
            verb = f"{verb} and {rng.choice(VERB_SYNONYMS[rest[1].lower()])}"
            rest = rest[2:]
    body = _join(_reword(rest, rng)).strip(" .")
    lead_text = _join(_reword(lead, rng)).strip(" ,.")
    style = rng.randrange(4)
    if " and " in verb:
        first, second = verb.split(" and ", 1)
        v_ing, v_past = f"{gerund(first)} and {gerund(second)}", f"{past(first)} and {past(second)}"
    else:
        v_ing, v_past = gerund(verb), past(verb)
    moved = _MOVABLE.match(body) if style in (0, 3) else None
    if moved and not lead_text:
        tail, head = moved.group("tail"), moved.group("head")
        out = f"{tail[:1].upper()}{tail[1:]}, I'm {v_ing} {head}"
    elif style == 1:
        out = f"I {v_past} {body}"
    elif style == 2:
        out = f"Now I am {v_ing} {body}"
    else:
        out = f"I'm {v_ing} {body}"
    if lead_text:
        first = out if out.startswith(("I ", "I'm")) else out[:1].lower() + out[1:]
        out = f"{lead_text[:1].upper()}{lead_text[1:]}, {first}"
    return " ".join(out.split()).rstrip(" ,") + "."


def normalise(text: str) -> str:
    """Lower-case words only: the form in which 'verbatim' is checked."""
    return " ".join(re.findall(r"[a-z0-9/.]+", clean_step(text).lower())).strip(" .")


def contains_verbatim(caption: str, step: str) -> bool:
    s = normalise(step)
    return bool(s) and s in normalise(caption)
