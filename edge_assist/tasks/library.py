"""The task library: the tasks that ship (CaptainCook4D's 24 recipes, converted, and a few
non-cooking procedures) plus the wearer's own, and how a stream's task context picks one.

Bundled tasks live in `edge_assist/data/tasks/**.toml`; the wearer's in
`<general.data_dir>/tasks/` as `.toml`, `.txt` (a plain list) or `.json` (`edge-assist tasks add
FILE` copies a checked file there).
A wearer's task with a bundled task's name replaces it.

A stream says what is under way in its metadata (`task`, or `recipe` for CaptainCook4D
streams) or in a free-text task context. `resolve` finds the library task it names or
lists; a context that lists steps of no known task becomes an ad-hoc task whose listed order
holds only between steps that share a thing (`listed.py`); a stream that says its task is
its list (`LIST_TASK`) gets that, even where the steps are a library task's; no context at
all leaves the task to recognition (`recognition.py`).
"""

from __future__ import annotations

import logging
import re
import shutil
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from edge_assist.config.privacy import make_private_dir
from edge_assist.tasks.formats import MAX_TASK_FILE_BYTES, load_file, load_toml
from edge_assist.tasks.listed import list_task
from edge_assist.tasks.model import Task, TaskFileError
from edge_assist.tasks.vector_file import digest

log = logging.getLogger(__name__)

BUNDLED_DIR = Path(__file__).resolve().parents[1] / "data" / "tasks"
# A context whose listed steps are at least this share of a library task's steps (same
# words) is that task.
LISTED_SHARE = 0.6
TASK_SUFFIXES = (".toml", ".json", ".txt")
# The name a stream gives its task (`{"task_list": true}` in its metadata) when the task is the
# list in its task context, as listed, even where the steps are a library task's.
LIST_TASK = "@list"


def stream_task(meta: Mapping[str, object]) -> str:
    """The task a stream's metadata names: its list (`"task_list": true`), else its `task`
    (CaptainCook4D streams say `recipe`); "" when it names none."""
    if meta.get("task_list") is True:
        return LIST_TASK
    return str(meta.get("task") or meta.get("recipe") or "")


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9/]+", text.lower()))


def parse_listed_steps(task: str) -> tuple[str, tuple[str, ...]]:
    """(heading, steps) from "Recipe: x. Steps: a; b; c" or a numbered / bulleted list."""
    m = re.search(r"\bsteps?\b[^:.;]{0,20}:\s*(.+)$", task, flags=re.IGNORECASE | re.DOTALL)
    if m:
        body, head = m.group(1), task[: m.start()].strip().rstrip(".")
    else:
        body, head = task, ""
    parts = re.split(r";|\n", body)
    steps = tuple(
        s for s in (re.sub(r"^\s*(\d+[.)]|[-*•])\s*", "", p).strip().rstrip(".") for p in parts) if s
    )
    if len(steps) < 2:
        return task.strip(), ()
    return head, steps


class TaskLibrary:
    def __init__(self, tasks: Iterable[Task] = (), file_hashes: Mapping[str, str] | None = None) -> None:
        self._tasks: dict[str, Task] = {}
        for t in tasks:
            self._tasks[t.name] = t
        # Task name -> sha256 of the file it was read from: what its stored step vectors are kept by.
        self._hashes = {n: h for n, h in (file_hashes or {}).items() if n in self._tasks}
        self._by_step: dict[str, set[str]] = {}
        for t in self._tasks.values():
            for s in t.steps:
                self._by_step.setdefault(_norm(s.text), set()).add(t.name)

    @classmethod
    def load(cls, dirs: Sequence[str | Path] = (), *, bundled: bool = True) -> TaskLibrary:
        """Bundled tasks, then each directory's `*.toml`/`*.txt`/`*.json` (later ones replace earlier)."""
        tasks: dict[str, Task] = {}
        hashes: dict[str, str] = {}
        roots = ([BUNDLED_DIR] if bundled else []) + [Path(d) for d in dirs]
        for root in roots:
            if not root.is_dir():
                continue
            for p in sorted(root.rglob("*")):
                if p.suffix.lower() not in TASK_SUFFIXES or not p.is_file():
                    continue
                try:
                    t = load_file(p)
                except TaskFileError as e:
                    # One bad user file must not take the wearer's other tasks down with it.
                    if root == BUNDLED_DIR:
                        raise
                    log.warning("skipping a task file: %s (fix it, then `edge-assist tasks check %s`)", e, p)
                    continue
                tasks[t.name] = t
                hashes[t.name] = digest(p.read_bytes())
        return cls(tasks.values(), hashes)

    def __len__(self) -> int:
        return len(self._tasks)

    def __contains__(self, name: object) -> bool:
        return name in self._tasks

    def names(self) -> list[str]:
        return sorted(self._tasks)

    def tasks(self) -> list[Task]:
        return [self._tasks[n] for n in self.names()]

    def file_hash(self, name: str) -> str:
        """The sha256 of the file the task was read from; "" for a task that came from no file."""
        return self._hashes.get(name, "")

    def get(self, name: str) -> Task | None:
        return self._tasks.get(name) or self._tasks.get(name.strip().lower().replace(" ", ""))

    def resolve(self, context: str, *, name: str = "") -> Task | None:
        """The task a stream names (metadata) or lists (its task context); None: unknown."""
        if name and name != LIST_TASK and self.get(name) is not None:
            return self.get(name)
        if not context.strip():
            return None
        heading, listed = parse_listed_steps(context)
        if name == LIST_TASK:
            return _chain(heading, listed) if listed else None
        if listed:
            votes: dict[str, int] = {}
            for s in listed:
                for t in self._by_step.get(_norm(s), ()):
                    votes[t] = votes.get(t, 0) + 1
            if votes:
                best = max(sorted(votes), key=lambda t: votes[t])
                if votes[best] >= LISTED_SHARE * max(self._tasks[best].n, len(listed)):
                    return self._tasks[best]
        for word in re.findall(r"[A-Za-z][\w-]+", heading or context[:80]):
            if self.get(word.lower()) is not None:
                return self.get(word.lower())
        return _chain(heading, listed) if listed else None


def _chain(heading: str, listed: tuple[str, ...]) -> Task:
    # Only a list: its order holds only between steps that share a thing (listed.py).
    return list_task("ad-hoc", heading or "the task in the stream's context", listed, source="task context")


def add_user_task(
    path: str | Path, user_dir: str | Path, *, max_bytes: int = MAX_TASK_FILE_BYTES
) -> tuple[Task, Path]:
    """Check a task file and copy it into the wearer's task directory (atomically)."""
    task = load_file(path, max_bytes=max_bytes)
    d = Path(user_dir)
    make_private_dir(d)
    dest = d / f"{task.name}{Path(path).suffix.lower()}"
    tmp = dest.with_suffix(dest.suffix + ".tmp")
    shutil.copyfile(path, tmp)
    tmp.replace(dest)
    # Read back what was written: a copy that does not load is not added.
    try:
        (load_toml if dest.suffix == ".toml" else load_file)(dest)
    except TaskFileError:
        dest.unlink(missing_ok=True)
        raise
    return task, dest
