"""A structured reading of one caption for the hazard detector: which hazard sources it names,
what is exposed to them and how, and what guards against them, by the documented lexicon
`edge_assist/data/hazard_lexicon.toml`; and the compositional features built from it (a source
together with an exposure, unguarded). Pure text and numpy: no model.

Relations are read, not only words: an exposure said not to happen ("never walks away") does not
count, and a guard said absent or taken away ("not wearing gloves", "the guard removed", "no one
watching", "not turned off") is the exposure it leaves (unprotected, unattended, still on).
"""

from __future__ import annotations

import re
import sys
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


def normalise(text: str) -> str:
    """Lower case, curly quotes straight, punctuation to spaces (apostrophes and hyphens kept)."""
    t = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(re.sub(r"[^\w'\- ]+", " ", t).split())


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


def _affirmed(text: str, match: re.Match[str]) -> bool:
    return NEGATION.search(text[max(0, match.start() - 40) : match.start()]) is None


def _taken_away(text: str, match: re.Match[str]) -> bool:
    return TAKEN_AWAY.match(text[match.end() : match.end() + 40]) is not None


@dataclass(frozen=True)
class Reading:
    sources: frozenset[str]
    exposures: frozenset[str]
    guards: frozenset[str]
    intensity: int  # the stage of worsening named (0 none, 1 smoke, 2 thick smoke, 3 flames or an alarm)

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

    def read(self, text: str) -> Reading:
        t = normalise(text)
        sources = frozenset(n for n, pat in self.concepts["source"].items() if pat.search(t))
        exposures = {
            n
            for n, pat in self.concepts["exposure"].items()
            if any(n in SAYS_ABSENCE or _affirmed(t, m) for m in pat.finditer(t))
        }
        guards = set()
        for n, pat in self.concepts.get("guard", {}).items():
            for m in pat.finditer(t):
                if _affirmed(t, m) and not (n == "guarded" and _taken_away(t, m)):
                    guards.add(n)
                elif n in ABSENT:
                    exposures.add(ABSENT[n])
        return Reading(
            sources,
            frozenset(exposures),
            frozenset(guards),
            max((i for i, pat in enumerate(self.intensity, start=1) if pat.search(t)), default=0),
        )
