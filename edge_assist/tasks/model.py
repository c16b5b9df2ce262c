"""A task: named steps, which step must precede which (a DAG), and per step its typed
details (amounts, durations, settings, tools, objects) and hazards.

Built only through `Task.build`, which validates (unique ids, known ids in edges, no
cycle, at least two steps) and raises `TaskFileError` naming the file and the field, so a
task in memory is always a valid graph.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from edge_assist.errors import EdgeAssistError
from edge_assist.tasks.details import Details, parse_details
from edge_assist.tasks.word_kinds import MATERIAL, TOOL, lexical_kind, singular

HAZARDS = (
    "hot",
    "sharp",
    "electric",
    "chemical",
    "fall",
    "traffic",
    "fire",
    "spill",
    "pinch",
    "pressure",
    "biohazard",
)


class TaskFileError(EdgeAssistError):
    """A task file is malformed: the message names the file, the line or field, and the fix."""


@dataclass(frozen=True)
class Step:
    id: str
    text: str
    after: tuple[str, ...] = ()  # ids that must be done before this one
    details: Details = field(default_factory=Details)
    hazards: tuple[str, ...] = ()

    def to_json(self) -> dict:
        out: dict = {"id": self.id, "text": self.text}
        if self.after:
            out["after"] = list(self.after)
        d = self.details.to_json()
        if d:
            out["details"] = d
        if self.hazards:
            out["hazards"] = list(self.hazards)
        return out


@dataclass(frozen=True)
class Task:
    name: str
    title: str
    steps: tuple[Step, ...]
    source: str = ""  # where it came from (file path, dataset and licence)
    kind: str = "procedure"
    # Its order comes from a list (`listed.py`): a step is after another only where they share
    # a thing, and that order is soft: a step skipped is reported, one done late is no error.
    listed: bool = False

    # -- construction --------------------------------------------------------------
    @staticmethod
    def build(
        name: str,
        title: str,
        steps: Sequence[Step],
        *,
        source: str = "",
        kind: str = "procedure",
        where: str = "",
        listed: bool = False,
    ) -> Task:
        """Validate and freeze. `where` (a file name) prefixes every error."""
        at = f"{where}: " if where else ""
        if not name or not name.strip():
            raise TaskFileError(f"{at}task.name is missing; give the task a short name")
        if len(steps) < 2:
            raise TaskFileError(
                f"{at}task {name!r} has {len(steps)} step(s); a task needs at least two [[step]] tables"
            )
        ids: dict[str, int] = {}
        for i, s in enumerate(steps):
            if not s.id:
                raise TaskFileError(f'{at}step {i + 1} has no id; add id = "..."')
            if not s.text.strip():
                raise TaskFileError(f'{at}step {s.id!r} has no text; add text = "..."')
            if s.id in ids:
                raise TaskFileError(
                    f"{at}step id {s.id!r} is used twice (steps {ids[s.id] + 1} and {i + 1}); ids must be "
                    f"unique"
                )
            ids[s.id] = i
            for h in s.hazards:
                if h not in HAZARDS:
                    raise TaskFileError(
                        f"{at}step {s.id!r}: unknown hazard {h!r} (known: {', '.join(HAZARDS)})"
                    )
        for s in steps:
            for a in s.after:
                if a not in ids:
                    raise TaskFileError(f"{at}step {s.id!r}: after = {a!r} is not a step id of this task")
                if a == s.id:
                    raise TaskFileError(f"{at}step {s.id!r} lists itself in after")
        task = Task(name.strip(), title.strip() or name.strip(), tuple(steps), source, kind, listed)
        cycle = task._find_cycle()
        if cycle:
            raise TaskFileError(
                f"{at}the steps form a cycle ({' -> '.join(cycle)}); 'after' must describe an order"
            )
        return task

    def _find_cycle(self) -> list[str]:
        color: dict[str, int] = {}
        parent: dict[str, str] = {}
        pre = {s.id: s.after for s in self.steps}
        for root in pre:
            if color.get(root):
                continue
            stack = [(root, iter(pre[root]))]
            color[root] = 1
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    color[node] = 2
                    stack.pop()
                    continue
                if color.get(nxt) == 1:
                    path = [nxt, node]
                    while path[-1] != nxt and path[-1] in parent:
                        path.append(parent[path[-1]])
                    return list(reversed(path))
                if not color.get(nxt):
                    color[nxt] = 1
                    parent[nxt] = node
                    stack.append((nxt, iter(pre[nxt])))
        return []

    # -- graph views ---------------------------------------------------------------
    @property
    def n(self) -> int:
        return len(self.steps)

    def index(self) -> Mapping[str, int]:
        return {s.id: i for i, s in enumerate(self.steps)}

    def prereq_masks(self) -> list[int]:
        """Per step, a bitmask of its direct prerequisites (by step position)."""
        idx = self.index()
        return [sum(1 << idx[a] for a in s.after) for s in self.steps]

    def ancestor_masks(self) -> list[int]:
        """Per step, a bitmask of every step that must come before it (transitively)."""
        direct = self.prereq_masks()
        out = [0] * self.n
        for i in self.topological():
            m = direct[i]
            for j in range(self.n):
                if direct[i] >> j & 1:
                    m |= out[j]
            out[i] = m
        return out

    def topological(self) -> list[int]:
        """Step positions in a topological order (the earliest-listed ready step first)."""
        direct = self.prereq_masks()
        indeg = [bin(m).count("1") for m in direct]
        succ: list[list[int]] = [[] for _ in self.steps]
        for i, m in enumerate(direct):
            for j in range(self.n):
                if m >> j & 1:
                    succ[j].append(i)
        ready = [i for i, d in enumerate(indeg) if d == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            i = heapq.heappop(ready)
            order.append(i)
            for k in succ[i]:
                indeg[k] -= 1
                if indeg[k] == 0:
                    heapq.heappush(ready, k)
        return order

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "kind": self.kind,
            "source": self.source,
            "steps": [s.to_json() for s in self.steps],
        }


def make_step(
    id: str,
    text: str,
    after: Sequence[str] = (),
    *,
    tools: Sequence[str] = (),
    objects: Sequence[str] = (),
    amounts: Sequence[str] = (),
    hazards: Sequence[str] = (),
) -> Step:
    """A step whose details are parsed from its text, plus any written out explicitly."""
    parsed = parse_details(text)
    extra = parse_details(" ; ".join(amounts)) if amounts else Details()
    # What a step's text says with "with ..." is a tool only when its head is no ingredient or
    # material ("with lettuce", "with a little hot water" are not tools); a count whose noun
    # starts a tool ("two tyre levers") counts tools, it is no amount. An amount the file also
    # writes out is the same amount, listed once.
    found_tools = [t for t in parsed.tools if _may_be_tool(t)]
    all_tools = tuple(dict.fromkeys([*(t.lower() for t in tools), *found_tools]))
    parsed_amounts = tuple(
        a
        for a in parsed.amounts
        if not (a.dim == "count" and any(t.startswith(a.text.split()[-1] + " ") for t in all_tools))
    )
    details = Details(
        amounts=tuple(dict.fromkeys(parsed_amounts + extra.amounts)),
        levels=tuple(dict.fromkeys(parsed.levels + extra.levels)),
        temperatures=tuple(dict.fromkeys(parsed.temperatures + extra.temperatures)),
        tools=all_tools,
        objects=tuple(dict.fromkeys(o.lower() for o in objects)),
    )
    return Step(id, " ".join(text.split()), tuple(after), details, tuple(hazards))


def _may_be_tool(phrase: str) -> bool:
    """Its head a tool ("butter knife"), or a word of no known kind in a phrase naming no
    ingredient or material ("tuna mixture" is none); never a head that is an ingredient, a verb,
    a place or a function word."""
    words = [singular(w) for w in phrase.split()]
    head = lexical_kind(words[-1])
    if head is not None:
        return head == TOOL
    return all(lexical_kind(w) != MATERIAL for w in words)
