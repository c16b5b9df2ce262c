"""Entities and relations in a caption: LLM extraction and name resolution.

Owns the JSON schema the LLM must fill, the prompt, and `entity_key`, the normalised
name that decides which mentions are one real thing ("The Knives", "a knife", "knife"
are one node). Resolution is deliberately lexical and deterministic: it must give the
same key on every re-application after a crash, which an embedding threshold would not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from edge_assist.inference.base import LLM, StopFlag

KINDS = ("object", "tool", "food", "person", "place", "appliance", "container", "other")
MAX_ENTITIES = 6
MAX_RELATIONS = 4

ENTITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "maxItems": MAX_ENTITIES,
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "minLength": 1, "maxLength": 32},
                    "kind": {"type": "string", "enum": list(KINDS)},
                },
                "required": ["name", "kind"],
            },
        },
        "relations": {
            "type": "array",
            "maxItems": MAX_RELATIONS,
            "items": {
                "type": "object",
                "properties": {
                    "subject": {"type": "string", "minLength": 1, "maxLength": 32},
                    "relation": {"type": "string", "minLength": 1, "maxLength": 30},
                    "object": {"type": "string", "minLength": 1, "maxLength": 32},
                },
                "required": ["subject", "relation", "object"],
            },
        },
    },
    "required": ["entities", "relations"],
}

_SYSTEM = (
    "You extract the things mentioned in one sentence from a first-person video log. "
    "List every physical object, tool, food, container, appliance, person and place as an entity "
    "with a short name (one or two words, no adjectives of quantity). "
    "List relations between two listed entities as subject, a short verb phrase, object. Answer in JSON."
)
_EXAMPLE_IN = "Use a butter knife to scoop nut butter from the jar"
_EXAMPLE_OUT = (
    '{"entities": [{"name": "butter knife", "kind": "tool"}, {"name": "nut butter", "kind": "food"}, '
    '{"name": "jar", "kind": "container"}], "relations": [{"subject": "butter knife", "relation": "scoops", '
    '"object": "nut butter"}, {"subject": "nut butter", "relation": "taken from", "object": "jar"}]}'
)

# Leading words that never change which thing is meant.
_DETERMINERS = {
    "a",
    "an",
    "the",
    "some",
    "any",
    "this",
    "that",
    "these",
    "those",
    "my",
    "your",
    "his",
    "her",
    "their",
    "our",
    "its",
    "one",
    "two",
    "three",
    "another",
    "other",
    "more",
    "each",
    "every",
}
# Common names for one thing (kitchen and household first: the demo data is cooking).
ALIASES = {
    "fridge": "refrigerator",
    "frig": "refrigerator",
    "hob": "stove",
    "cooktop": "stove",
    "stovetop": "stove",
    "microwave oven": "microwave",
    "skillet": "frying pan",
    "fry pan": "frying pan",
    "chopping board": "cutting board",
    "tap": "faucet",
    "cellphone": "phone",
    "cell phone": "phone",
    "mobile phone": "phone",
    "smartphone": "phone",
    "tea towel": "towel",
    "dish towel": "towel",
    "kitchen towel": "towel",
    "bin": "trash can",
    "garbage can": "trash can",
    "rubbish bin": "trash can",
    "i": "wearer",
    "me": "wearer",
    "person": "wearer",
    "user": "wearer",
    "camera wearer": "wearer",
}
_IRREGULAR = {
    "knives": "knife",
    "leaves": "leaf",
    "loaves": "loaf",
    "halves": "half",
    "shelves": "shelf",
    "wolves": "wolf",
    "lives": "life",
    "wives": "wife",
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
    "dice": "die",
    "potatoes": "potato",
    "tomatoes": "tomato",
    "heroes": "hero",
    "echoes": "echo",
    "glasses": "glass",
    "dishes": "dish",
    "boxes": "box",
    "matches": "match",
    "peaches": "peach",
    "sandwiches": "sandwich",
    "radishes": "radish",
    "brushes": "brush",
    "lunches": "lunch",
}
# Words that end in s but are not plurals.
_NOT_PLURAL_ENDINGS = ("ss", "us", "is", "ous", "ics")
_NOT_PLURAL = {
    "floss",
    "hummus",
    "couscous",
    "asparagus",
    "molasses",
    "lens",
    "gas",
    "bus",
    "series",
    "species",
    "news",
    "scissors",
    "tongs",
    "pants",
    "jeans",
    "oats",
    "grits",
    "salsa",
    "swiss",
}


def _singular(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or word in _NOT_PLURAL or word.endswith(_NOT_PLURAL_ENDINGS) or not word.endswith("s"):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    return word[:-1]


def entity_key(name: str) -> str:
    """The canonical name one real thing is stored under: lowercase, no articles, singular, aliased."""
    s = re.sub(r"[^a-z0-9 \-']+", " ", name.lower().replace("_", " "))
    words = [w.strip("'-") for w in s.split()]
    words = [w for w in words if w]
    while words and words[0] in _DETERMINERS:
        words = words[1:]
    if not words:
        return ""
    phrase = " ".join(words)
    if phrase in ALIASES:
        return ALIASES[phrase]
    words[-1] = _singular(words[-1])
    phrase = " ".join(words)
    return ALIASES.get(phrase, phrase)


def relation_key(relation: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]+", " ", relation.lower()).split())[:30]


@dataclass(frozen=True)
class Extraction:
    """What one caption mentions, already resolved to entity keys."""

    entities: tuple[tuple[str, str, str], ...]  # (key, display name, kind)
    relations: tuple[tuple[str, str, str], ...]  # (subject key, relation, object key)

    def to_json(self) -> dict[str, Any]:
        return {"entities": [list(e) for e in self.entities], "relations": [list(r) for r in self.relations]}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Extraction:
        if not data:
            return cls((), ())
        return cls(
            tuple((str(a), str(b), str(c)) for a, b, c in data.get("entities", [])),
            tuple((str(a), str(b), str(c)) for a, b, c in data.get("relations", [])),
        )


def _words(text: str) -> set[str]:
    return {_singular(w) for w in re.findall(r"[a-z0-9]+", text.lower())}


def grounded(name: str, text_words: set[str]) -> bool:
    """Every word of the name occurs in the caption: a small model also 'sees' its prompt example."""
    words = _words(name) - _DETERMINERS
    return bool(words) and words <= text_words


def resolve(raw: dict[str, Any], text: str | None = None) -> Extraction:
    """Turn the LLM's JSON into keyed entities; relations to unlisted things add them as 'other'.

    With `text`, only names grounded in it are kept.
    """
    tw = _words(text) if text is not None else None

    def ok(name: str) -> bool:
        return tw is None or grounded(name, tw)

    ents: dict[str, tuple[str, str, str]] = {}
    for e in raw.get("entities", []) or []:
        key = entity_key(str(e.get("name", "")))
        if key and key not in ents and ok(str(e.get("name", ""))):
            kind = str(e.get("kind", "other"))
            ents[key] = (key, str(e.get("name", "")).strip()[:40], kind if kind in KINDS else "other")
    rels: list[tuple[str, str, str]] = []
    for r in raw.get("relations", []) or []:
        a, b, rel = (
            entity_key(str(r.get("subject", ""))),
            entity_key(str(r.get("object", ""))),
            relation_key(str(r.get("relation", ""))),
        )
        if (
            not a
            or not b
            or not rel
            or a == b
            or not ok(str(r.get("subject", "")))
            or not ok(str(r.get("object", "")))
        ):
            continue
        for k, name in ((a, r.get("subject", "")), (b, r.get("object", ""))):
            ents.setdefault(k, (k, str(name).strip()[:40], "other"))
        if (a, rel, b) not in rels:
            rels.append((a, rel, b))
    return Extraction(tuple(ents.values()), tuple(rels))


def extract(llm: LLM, text: str, *, max_tokens: int = 192, stop: StopFlag | None = None) -> Extraction:
    """One schema-constrained LLM call for one caption."""
    messages = [
        {"role": "system", "content": _SYSTEM},
        {"role": "user", "content": _EXAMPLE_IN},
        {"role": "assistant", "content": _EXAMPLE_OUT},
        {"role": "user", "content": text},
    ]
    raw = llm.chat_json(messages, ENTITY_SCHEMA, max_tokens=max_tokens, temperature=0.0, stop=stop)
    return resolve(raw, text)


def grounded_in(ex: Extraction, text: str) -> Extraction:
    """The part of a batch's extraction that one caption of the batch mentions."""
    tw = _words(text)
    ents = tuple(e for e in ex.entities if grounded(e[1] or e[0], tw) or grounded(e[0], tw))
    keys = {e[0] for e in ents}
    return Extraction(ents, tuple(r for r in ex.relations if r[0] in keys and r[2] in keys))


def extract_batch(
    llm: LLM, texts: list[str], *, max_tokens: int = 256, stop: StopFlag | None = None
) -> list[Extraction]:
    """One schema-constrained LLM call for several captions, split back per caption by grounding.

    The answer costs about as many tokens as one caption's (the schema caps its lists, and
    consecutive captions name the same things), so the call is shared by the batch.
    """
    if len(texts) == 1:
        return [extract(llm, texts[0], max_tokens=max_tokens, stop=stop)]
    joined = "\n".join(texts)
    messages = [
        {"role": "system", "content": _SYSTEM.replace("one sentence", "these sentences")},
        {"role": "user", "content": _EXAMPLE_IN},
        {"role": "assistant", "content": _EXAMPLE_OUT},
        {"role": "user", "content": joined},
    ]
    raw = llm.chat_json(messages, ENTITY_SCHEMA, max_tokens=max_tokens, temperature=0.0, stop=stop)
    whole = resolve(raw, joined)
    return [grounded_in(whole, t) for t in texts]
