"""A structured reading of one caption for the hazard detector: which hazard sources it names,
what is exposed to them and how, and what guards against them, by the documented lexicon
`edge_assist/data/hazard_lexicon.toml`; and the compositional features built from it (a source
together with an exposure, unguarded). Pure text and numpy: no model.
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
    return r"(?<![\w'-])" + body[: -len(r"\s+")] + r"(?![\w'-])" if body.endswith(r"\s+") else body


def _compile(terms: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{_term_pattern(t)})" for t in terms))


def normalise(text: str) -> str:
    """Lower case, curly quotes straight, punctuation to spaces (apostrophes and hyphens kept)."""
    t = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    return " ".join(re.sub(r"[^\w'\- ]+", " ", t).split())


# A guard said not to be there ("not locked", "no lid on", "without the guard") guards nothing.
NEGATORS = "not|no|without|never|isn't|aren't|wasn't|hasn't|haven't|don't|doesn't"
NEGATION = re.compile(rf"(?:^|\s)(?:{NEGATORS})\s+(?:\S+\s+)?$")


def _affirmed(text: str, match: re.Match[str]) -> bool:
    return NEGATION.search(text[max(0, match.start() - 40) : match.start()]) is None


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
        found = {
            role: frozenset(n for n, pat in cs.items() if pat.search(t)) for role, cs in self.concepts.items()
        }
        guard_patterns = self.concepts.get("guard", {}).items()
        guards = frozenset(n for n, pat in guard_patterns if any(_affirmed(t, m) for m in pat.finditer(t)))
        return Reading(
            found["source"],
            found["exposure"],
            guards,
            max((i for i, pat in enumerate(self.intensity, start=1) if pat.search(t)), default=0),
        )
