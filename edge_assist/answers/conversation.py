"""A short conversation with the wearer: the questions just asked, so the next one may lean
on the last answer ("and after that?", "how much?", "where was that?", "how long ago?", "and the salt?").

A follow-up is recognised by its form alone (`follow_up`): a whole question made of "after
that", "where was that", "how long ago" or "and" with a bare noun phrase. An ordinary
question ("what did I do after cutting the muffin?") never matches one of these forms, so it
is never read as a follow-up.

A turn counts as "the last answer" for `WINDOW_S` seconds of the asker's clock: two minutes
is long enough to hear an answer and ask on, and short enough that "and after that?" asked
a quarter of an hour later is not taken to mean a question the wearer has forgotten. Live,
the asker's clock is the pipeline's (stream time in a replay); `edge-assist ask --continue`
uses the wall clock, since its turns span processes. There the conversation is kept in the
data folder (`FILE_NAME`, readable by the wearer only), and only its last `KEEP` turns.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from edge_assist.config.privacy import make_private_file
from edge_assist.retrieval.api import Moment

log = logging.getLogger(__name__)

WINDOW_S = 120.0
KEEP = 6
FILE_NAME = "conversation.json"
ABOUT_WHAT = "About what? Ask the whole question."

KINDS = (
    "after",
    "before",
    "amount",
    "where",
    "ago",
    "purpose",
    "tool",
    "object",
    "named",
    "pointer",
    "vague",
    "occurrence",
)

_THAT = r"(?:that|this|it|then)"
_FORMS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "after",
        re.compile(
            rf"^(?:what\s+(?:did\s+i\s+do|happened|came|was\s+next)\s+)?(?:right\s+|just\s+|straight\s+)?"
            rf"after(?:\s+{_THAT})?"
            r"|^then\s+what|^what\s+then|^then|^what\s+came\s+next"
        ),
    ),
    (
        "before",
        re.compile(
            rf"^(?:what\s+(?:did\s+i\s+do|happened|came)\s+)?(?:right\s+|just\s+|straight\s+)?before(?:\s+{_THAT})?"
        ),
    ),
    # "how much?", "for how long?", "how many was that?": the amount the last moment says.
    (
        "amount",
        re.compile(
            rf"^(?:for\s+)?how\s+(?:much|many|long)(?:\s+(?:was|is|were)\s+{_THAT})?(?:\s+for)?"
            r"(?:\s+of\s+(?:it|that|them|those|this))?"
            # "how much did I use?" names no thing, so it asks of the last one; "how long did I
            # cook?" names its act and is a question of its own
            r"|^how\s+(?:much|many)(?:\s+of\s+(?:it|that|them|those|this))?\s+did\s+(?:i|you)"
            r"\s+(?:use|add|put(?:\s+in)?|need|pour|sprinkle|take)"
            # "how long did that take?": how long the last moment's act went on
            rf"|^how\s+long\s+(?:did|does)\s+{_THAT}\s+(?:take|last|go\s+on)(?:\s+me)?"
        ),
    ),
    (
        "where",
        re.compile(
            rf"^where(?:\s+(?:was|is|did\s+i\s+do|did\s+that\s+happen)\s+{_THAT})?(?:\s+again)?"
            r"|^where\s+did\s+(?:it|they|that|those|them)\s+(?:go|end\s+up)"
        ),
    ),
    # "what for?": what the last moment was doing with the thing asked about
    (
        "purpose",
        re.compile(
            rf"^what\s+for|^for\s+what|^what\s+(?:was|is|were)\s+{_THAT}\s+for"
            r"|^what\s+did\s+(?:i|you)\s+use\s+(?:it|that|them)\s+for|^why"
        ),
    ),
    # "with what?", "what did I use to flip them?": the tool the last moment was done with
    (
        "tool",
        re.compile(
            r"^(?:with|using)\s+what(?:\s+(?:tool|utensil))?|^what\s+with"
            r"|^what\s+(?:tool|utensil)(?:\s+(?:was\s+that|did\s+i\s+use))?"
            r"|^what\s+did\s+(?:i|you)\s+(?:use|do\s+(?:it|that)\s+with)"
            r"(?:\s+to\s+(?P<act>[a-z]+)(?:\s+(?:it|them|that))?)?"
        ),
    ),
    (
        "ago",
        re.compile(
            rf"^how\s+long\s+ago(?:\s+(?:was|is|did\s+i\s+do)\s+{_THAT})?|^when\s+was\s+{_THAT}"
            r"|^how\s+long\s+has\s+it\s+been|^what\s+time\s+was\s+that"
        ),
    ),
)
_LEAD = re.compile(r"^(?:and|so|ok(?:ay)?|oh|um|then|wait|hmm|right)\s*,?\s+")
# "what about that one?": a pointer with nothing it points to in words
_VAGUE = re.compile(
    r"^(?:(?:and|wait|so)\s+)?(?:what|how)\s+about\s+(?:that|this|it|them|those|these|the\s+other)(?:\s+one)?$"
    r"|^and\s+(?:that|the\s+other)\s+one$"
)
# "and the egg, is that in yet?": a thing named, then a question about it by a pronoun
_NAMED_THEN = re.compile(r"^(?:and|what about|how about)\s+(?P<obj>[a-z][a-z' -]*?)\s*,\s*(?P<rest>.+)$")
_POINTER = re.compile(r"\b(?:that|it|they|them|this)\b")
# "and when did they go in the pan?": a whole question whose thing is the last one's
_AND_QUESTION = re.compile(r"^and\s+(?P<rest>(?:when|where|how|did|was|were|is|are|what\s+time)\b.*)$")
_OBJECT = re.compile(r"^(?:and\s+what\s+about|and\s+how\s+about|what\s+about|how\s+about|and)\s+(?P<obj>.+)$")
# Words that make "and ..." a question or a clause of its own, not a bare thing.
_NOT_THING = frozenset(
    "i you we he she they it did do does have has had was were is are am can could will would should "
    "when where what which who how why then that this there next after before".split()
)


@dataclass(frozen=True)
class FollowUp:
    """What a follow-up asks of the last answer: the clip after or before its moment, its
    place, its age, or the last question again about another thing (`obj`)."""

    kind: str  # one of KINDS
    obj: str = ""  # "object": the new thing; "amount": "much", "many" or "long"; "tool": the act named


# "and the last one?", "what about the second time?": the last question of another time the act
# was done
_OCCURRENCE = re.compile(
    r"^(?:and\s+)?(?:(?:what|how)\s+about\s+|when\s+(?:was|is)\s+)?(?:on\s+|for\s+)?(?:the\s+|my\s+)?"
    r"(?:(first|second|last|final|latest|most\s+recent)\s+(?:one|time|round|go|batch)|(other)\s+(?:time|round|go|batch))$"
)
# Which time each word of `_OCCURRENCE` names; "other" is the one the last question did not ask.
_OCCURRENCE_TIME = {"final": "last", "latest": "last", "most recent": "last"}


# "and after the water?", "and just before the cumin?": an act of its own named as the anchor
_ANCHORED = re.compile(
    r"^(?:(?:and|so|ok|okay|then|what\s+about|how\s+about)\s+)+((?:(?:just|right|straight|immediately)\s+)?"
    r"(?:after|before))\s+(?!(?:that|this|it|then|them|those|these)\b)((?:the|my|adding|putting)\b.*)$"
)


def follow_up(question: str) -> FollowUp | None:
    """The follow-up `question` is by its form, or None for an ordinary question."""
    q = " ".join(question.lower().replace("’", "'").split()).strip(" ?.!")
    if _VAGUE.match(q):
        return FollowUp("vague")
    if occurrence := _OCCURRENCE.match(q):
        said = " ".join((occurrence.group(1) or occurrence.group(2)).split())
        return FollowUp("occurrence", _OCCURRENCE_TIME.get(said, said))
    named = _NAMED_THEN.match(q)
    if named is not None and _POINTER.search(named.group("rest")) and len(named.group("obj").split()) <= 4:
        # the whole question is here: "is the egg in yet?"
        return FollowUp("named", _POINTER.sub(named.group("obj"), named.group("rest"), count=1) + "?")
    if (anchored := _ANCHORED.match(q)) is not None:
        # "and just before the cumin?": what was done then, a question of its own
        return FollowUp("named", f"what did I do {anchored.group(1)} {anchored.group(2)}?")
    pointed = _AND_QUESTION.match(q)
    if pointed is not None and re.search(r"\b(?:it|they|them)\b", pointed.group("rest")):
        return FollowUp("pointer", pointed.group("rest"))
    m = _OBJECT.match(q)
    if m is not None:
        obj = m.group("obj").strip()
        words = obj.split()
        if (
            0 < len(words) <= 4
            and not _NOT_THING.intersection(words)
            and re.fullmatch(r"[a-z][a-z' -]*", obj)
        ):
            return FollowUp("object", obj)
    bare = _LEAD.sub("", q)
    for kind, form in _FORMS:
        if form.fullmatch(q) or form.fullmatch(bare):
            how = re.search(r"\bhow\s+(much|many|long)\b", bare)
            if kind == "where" and re.search(r"\b(?:go|end\s+up)$", bare):
                return FollowUp(kind, "went")  # "where did they go?": where they were put
            if kind == "tool":
                m = form.fullmatch(bare) or form.fullmatch(q)
                return FollowUp(kind, (m.group("act") or "") if m else "")
            return FollowUp(kind, how.group(1) if kind == "amount" and how else "")
    return None


@dataclass(frozen=True)
class Turn:
    """One question and its answer, with what the answer rests on."""

    question: str  # as asked
    resolved: str  # the whole question it was answered as (a follow-up's, filled in)
    answer: str
    asked_at: float  # the asker's clock
    session_id: str | None = None
    about_t: float | None = None  # the stream time it was asked about (None: now)
    moment: Moment | None = None  # what the answer rests on; None when it rests on no moment

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["moment"] = asdict(self.moment) if self.moment is not None else None
        return out

    @staticmethod
    def from_json(d: dict[str, Any]) -> Turn:
        m = d.get("moment")
        about = d.get("about_t")
        return Turn(
            question=str(d["question"]),
            resolved=str(d.get("resolved") or d["question"]),
            answer=str(d.get("answer", "")),
            asked_at=float(d["asked_at"]),
            session_id=d.get("session_id"),
            about_t=float(about) if about is not None and math.isfinite(float(about)) else None,
            moment=Moment(**m) if isinstance(m, dict) else None,
        )


class Conversation:
    """The last few turns between the wearer and the assistant."""

    def __init__(
        self,
        window_s: float = WINDOW_S,
        *,
        now: Callable[[], float] = time.time,
        path: Path | None = None,
    ) -> None:
        self.window_s = window_s
        self.now = now  # the asker's clock, when a question does not bring its own time
        self.path = path  # where `save` keeps it; None: in this process only
        self.turns: list[Turn] = []

    def last(self, at: float | None = None) -> Turn | None:
        """The last turn, if it was asked within the window before `at` (the asker's clock)."""
        if not self.turns:
            return None
        at = self.now() if at is None else at
        turn = self.turns[-1]
        return turn if 0.0 <= at - turn.asked_at <= self.window_s else None

    def add(self, turn: Turn) -> None:
        self.turns = [*self.turns, turn][-KEEP:]

    def clear(self) -> None:
        self.turns = []

    @classmethod
    def load(cls, path: Path, window_s: float = WINDOW_S) -> Conversation:
        """The conversation kept at `path`; an empty one when there is none (or it is unreadable)."""
        conv = cls(window_s, path=path)
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            conv.turns = [Turn.from_json(d) for d in raw.get("turns", [])][-KEEP:]
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError, TypeError) as e:
            log.warning("conversation at %s unreadable (%s): starting a new one", path, e)
        return conv

    def save(self, path: Path | None = None) -> None:
        """Keep the turns at `path` (or where it was loaded from), readable by the wearer only."""
        path = path or self.path
        if path is None:
            return
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps({"turns": [t.to_json() for t in self.turns]}, ensure_ascii=False))
        make_private_file(tmp)
        tmp.replace(path)
