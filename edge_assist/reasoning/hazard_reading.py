"""A structured reading of one caption for the hazard detector: which hazard sources it names,
what is exposed to them and how, and what guards against them, by the documented lexicon
`edge_assist/data/hazard_lexicon.toml`; and the compositional features built from it (a source
together with an exposure, unguarded). Pure text and numpy: no model.

Relations are read, not only words: an exposure said not to happen ("never walks away") does not
count, and a guard said absent or taken away ("not wearing gloves", "the guard removed", "no one
watching", "not turned off") is the exposure it leaves (unprotected, unattended, still on).
Where they are named counts too: a relation or body part within a few words of a source ("the
cable ... in a puddle") is read apart from one somewhere else in a long scene description, and so
is a guard next to the source or exposure rather than elsewhere in the scene.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from edge_assist.errors import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

LEXICON = Path(__file__).resolve().parents[1] / "data" / "hazard_lexicon.toml"
ROLES = ("source", "exposure", "guard")
# Exposures that relate a source to a person (the body alone is not one: "both hands on the
# handle" names hands and is safe).
RELATIONS = (
    "happening",
    "contact",
    "unattended",
    "unprotected",
    "hurry",
    "mixing",
    "misuse",
    "container",
    "strain",
    "unstable",
)


def _term_pattern(term: str) -> str:
    parts = []
    for word in term.split():
        if word == "..":
            parts.append(r"(?:\S+\s+){0,3}?")
            continue
        w = re.escape(word.rstrip("*")) + (r"[\w'-]*" if word.endswith("*") else "(?:'s)?")
        parts.append(w + r"\s+")
    body = "".join(parts)
    return body[: -len(r"\s+")] + r"(?![\w'-])" if body.endswith(r"\s+") else body


def _compile(terms: list[str]) -> re.Pattern[str]:
    # One word-start check for all terms: the alternatives are tried only where a word begins.
    return re.compile(r"(?<![\w'-])(?:" + "|".join(f"(?:{_term_pattern(t)})" for t in terms) + ")")


# A vision-language captioner frames and hedges what it sees ("The frame shows...", "It looks like
# a person appears to be..."). Those words say nothing about the scene, and some are lexicon terms
# ("frame" is a pinch point), so they are read as nothing.
FRAMING = re.compile(
    r"(?<![\w'-])(?:(?:the|this) (?:first-person |egocentric )?"
    r"(?:image|frame|picture|photo|scene|footage|view|shot|video|clip|camera) "
    r"(?:shows|depicts|captures|pans around|pans across|pans over|is showing|reveals)"
    r"|in (?:this|the) (?:first-person |egocentric )?"
    r"(?:image|frame|picture|photo|scene|footage|view|shot|video|clip)"
    r"|(?:it|this) (?:looks|appears|seems) (?:like|that|as if|as though)"
    r"|what (?:looks|appears|seems) (?:like|to be)"
    r"|(?:appears|seems|appear|seem) to(?: be)?|apparently|possibly|presumably)(?![\w'-])"
)


def normalise(text: str) -> str:
    """Lower case, curly quotes straight, punctuation to spaces (apostrophes and hyphens kept), a
    captioner's framing and hedges dropped."""
    t = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    t = " ".join(re.sub(r"[^\w'\- ]+", " ", t).split())
    return " ".join(FRAMING.sub(" ", t).split())


Match = tuple[str, int, int]  # a concept read at a span of the normalised text

# A reading said not to be there ("not locked", "no lid on", "without the guard", "doesn't walk
# away") is not there; a guard said absent, or taken away after it is named ("the guard
# removed", "gloves off"), is an exposure instead (ABSENT).
NEGATORS = (
    "not|no|no one|nobody|nothing|without|never|nor|isn't|aren't|wasn't|hasn't|haven't|don't|doesn't"
    "|didn't|won't"
)
NEGATION = re.compile(rf"(?:^|\s)(?:{NEGATORS})\s+(?:\S+\s+)?$")
TAKEN_AWAY = re.compile(
    r"^\s+(?:\S+\s+)?(?:removed|missing|taken off|taken away|lifted|broken|gone|undone|disabled"
    r"|pinned back|taped back|left open|propped open)(?![\w'-])"
)
# What each guard means when it is said to be absent.
ABSENT = {"guarded": "unprotected", "stopped": "active", "present": "unattended"}
# Exposures whose terms already say an absence ("no gloves"): a negator before them is part of them.
SAYS_ABSENCE = frozenset({"unprotected"})


def _affirmed(text: str, start: int) -> bool:
    return NEGATION.search(text[max(0, start - 40) : start]) is None


def _taken_away(text: str, end: int) -> bool:
    return TAKEN_AWAY.match(text[end : end + 40]) is not None


@dataclass(frozen=True)
class Reading:
    sources: frozenset[str]
    exposures: frozenset[str]
    guards: frozenset[str]
    intensity: int  # the stage of worsening named (0 none, 1 smoke, 2 thick smoke, 3 flames or an alarm)
    # A relation or body part named within a few words of a source ("the cable ... lies in a
    # puddle", "fingers at the rollers"), rather than somewhere else in a long scene description.
    near: bool = False
    # A guard named within a few words of a source or exposure, rather than elsewhere in the scene.
    guard_near: bool = False

    def has(self, *names: str) -> bool:
        return any(n in self.sources or n in self.exposures or n in self.guards for n in names)


@dataclass(frozen=True)
class Lexicon:
    concepts: dict[str, dict[str, re.Pattern[str]]]  # role -> name -> pattern
    kinds: dict[str, str]  # source name -> hazard kind
    intensity: tuple[re.Pattern[str], ...]  # stage 1, 2, 3
    say: dict[str, str]

    @classmethod
    def load(cls, path: str | Path = LEXICON) -> Lexicon:
        p = Path(path)
        try:
            doc = tomllib.loads(p.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{p}: the hazard lexicon is missing; reinstall edge-assist") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise ConfigError(f"{p}: not a valid hazard lexicon ({e})") from None
        concepts: dict[str, dict[str, re.Pattern[str]]] = {}
        kinds: dict[str, str] = {}
        try:
            for role in ROLES:
                concepts[role] = {}
                for name, entry in doc.get(role, {}).items():
                    terms = [str(t) for t in entry["terms"]]
                    if not terms:
                        raise ValueError(f"[{role}.{name}] has no terms")
                    concepts[role][name] = _compile(terms)
                    if role == "source":
                        kinds[name] = str(entry["kind"])
            intensity = tuple(_compile([str(t) for t in doc["intensity"][f"level_{i}"]]) for i in (1, 2, 3))
            say = {str(k): str(v) for k, v in doc["say"].items()}
        except (KeyError, TypeError, ValueError, AttributeError, re.error) as e:
            raise ConfigError(f"{p}: not a valid hazard lexicon ({e!r})") from None
        if not concepts["source"] or not concepts["exposure"] or "hazard" not in say:
            raise ConfigError(
                f"{p}: the hazard lexicon needs [source.*], [exposure.*] and a [say] hazard line"
            )
        return cls(concepts, kinds, intensity, say)

    def matches(self, t: str) -> dict[str, list[Match]]:
        """Every lexicon term found in normalised text `t`, per role: (concept, start, end)."""
        return {
            role: [
                (n, m.start(), m.end())
                for n, pat in self.concepts.get(role, {}).items()
                for m in pat.finditer(t)
            ]
            for role in ROLES
        }

    def read(
        self, text: str, extra: Callable[[str, dict[str, list[Match]]], dict[str, list[Match]]] | None = None
    ) -> Reading:
        """The reading of a caption. `extra`, given the normalised text and the lexicon's matches,
        returns more matches (words read as a concept by other means) that are read as if they
        were lexicon terms at their place: negation, nearness and absent guards apply to them."""
        t = normalise(text)
        found = self.matches(t)
        if extra is not None:
            for role, more in extra(t, found).items():
                found[role] = found[role] + more
        return self._reading(t, found)

    def _reading(self, t: str, found: dict[str, list[Match]]) -> Reading:
        source_at = [(a, b) for _, a, b in found["source"]]
        sources = frozenset(n for n, _, _ in found["source"])
        exposures: set[str] = set()
        related_at: list[tuple[int, int]] = []
        for n, a, b in found["exposure"]:
            if n in SAYS_ABSENCE or _affirmed(t, a):
                exposures.add(n)
                if n in RELATIONS or n == "body":
                    related_at.append((a, b))
        guards = set()
        guard_at = []
        for n, a, b in found["guard"]:
            if _affirmed(t, a) and not (n == "guarded" and _taken_away(t, b)):
                guards.add(n)
                guard_at.append((a, b))
            elif n in ABSENT:
                exposures.add(ABSENT[n])
                related_at.append((a, b))
        intensity = max((i for i, pat in enumerate(self.intensity, start=1) if pat.search(t)), default=0)
        return Reading(
            sources,
            frozenset(exposures),
            frozenset(guards),
            intensity,
            # a fire under way (smoke, flames, an alarm) needs no one near it
            _close(source_at, related_at) or ("fire" in sources and intensity > 0),
            _close(guard_at, source_at + related_at),
        )


NEAR_CHARS = 40  # about seven words


def _close(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    """Whether a span of `a` and a span of `b` are within NEAR_CHARS of each other (or overlap)."""
    return any(max(s1, s2) - min(e1, e2) <= NEAR_CHARS for s1, e1 in a for s2, e2 in b)
