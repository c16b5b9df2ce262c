"""Task files: the human-writable TOML format, a plain list of steps, and CaptainCook4D's
task-graph JSON.

TOML (documented in `edge_assist/tasks/README.md`):

    [task]
    name = "inner-tube"              # what `tasks show` and stream metadata call it
    title = "Change a bicycle inner tube"
    source = "written by ..."

    [[step]]
    id = "remove-wheel"
    text = "Open the brake and take the wheel out of the frame"
    after = []                       # ids that must be done first (none: may start at once)
    tools = ["tyre levers"]          # optional typed details, added to what the text says
    amounts = ["4 bar"]
    hazards = ["pinch"]

CaptainCook4D JSON: {"steps": {"0": "START", "1": "Verb-text", ...}, "edges": [[a, b], ...]}
where START and END are graph anchors, not steps.

A plain list (`.txt`): one step per line, optionally numbered ("1." or "1)") or bulleted;
blank lines and lines starting with "#" are skipped; a first line ending in ":" is the title.
The task is named after the file; its order is a default, not a law (`listed.py`).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from edge_assist.tasks.listed import list_task
from edge_assist.tasks.model import Step, Task, TaskFileError, make_step

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_STEP_KEYS = {"id", "text", "after", "tools", "objects", "amounts", "hazards"}
_TASK_KEYS = {"name", "title", "source", "kind"}

# Hazards of a converted recipe step, from what the step does (the recipe JSON has none).
_HAZARD_WORDS = {
    "sharp": r"\b(knife|knives|cut|cuts|slice|slices|chop|mince|dice|peel|trim|grate|blade|scissors|"
    r"julienne)\b",
    "hot": r"\b(microwave|heat|heated|boil|boiling|fry|toast|bake|oven|stove|pan|skillet|simmer|saute|sauté|"
    r"hot|melt|kettle|steam|cook|roast|grill)\b",
    "electric": r"\b(blender|blend|mixer|toaster|kettle|microwave)\b",
}


def _line_of(raw: str, needle: str) -> int | None:
    for n, line in enumerate(raw.splitlines(), start=1):
        if needle in line:
            return n
    return None


def _strings(v: object, where: str) -> tuple[str, ...]:
    if isinstance(v, str):
        return (v,)
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise TaskFileError(f"{where} must be a list of strings")
    return tuple(v)


def _field(step: dict[str, Any], key: str, at: Callable[[], str], sid: str) -> tuple[str, ...]:
    v = step.get(key, [])
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return tuple(v)
    return _strings(v, f"{at()} ({sid}): {key}")


def load_toml(path: str | Path, text: str | None = None) -> Task:
    """A task from its TOML file; every error names the file and the line or field."""
    p = Path(path)
    if text is None:
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise TaskFileError(f"{p}: no such task file") from None
        except (OSError, UnicodeDecodeError) as e:
            raise TaskFileError(f"{p}: cannot read it ({e}); save it as UTF-8 text") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TaskFileError(f"{p}: not valid TOML ({e})") from None
    except RecursionError:
        raise TaskFileError(f"{p}: not a task file (nesting too deep)") from None
    head = _task_table(p, doc, text)
    raw_steps = doc.get("step")
    if not isinstance(raw_steps, list):
        raise TaskFileError(f"{p}: no [[step]] tables; a task needs at least two steps")
    steps = [_step_table(p, i, s, text) for i, s in enumerate(raw_steps, start=1)]
    try:
        return Task.build(
            head.get("name", ""),
            head.get("title", ""),
            steps,
            source=head.get("source", str(p)),
            kind=head.get("kind", "procedure"),
            where=str(p),
        )
    except TaskFileError as e:
        msg = str(e)
        m = re.search(r"step id '([^']+)'|step '([^']+)'", msg)
        line = _line_of(text, f'"{m.group(1) or m.group(2)}"') if m else None
        if line is not None and msg.startswith(f"{p}: "):
            raise TaskFileError(f"{p}:{line}: " + msg[len(f"{p}: ") :]) from None
        raise


def _task_table(p: Path, doc: dict[str, Any], text: str) -> dict[str, str]:
    """The checked [task] table (and no other top-level key than [task] and [[step]])."""
    unknown = set(doc) - {"task", "step"}
    if unknown:
        key = sorted(unknown)[0]
        raise TaskFileError(
            f"{p}:{_line_of(text, key) or '?'}: unknown table or key {key!r}; use [task] and [[step]]"
        )
    head = doc.get("task")
    if not isinstance(head, dict):
        raise TaskFileError(f'{p}: the [task] table is missing; add [task] with name = "..."')
    for k in head:
        if k not in _TASK_KEYS:
            known = ", ".join(sorted(_TASK_KEYS))
            raise TaskFileError(f"{p}:{_line_of(text, k) or '?'}: unknown key task.{k} (known: {known})")
    for k in _TASK_KEYS:
        if k in head and not isinstance(head[k], str):
            raise TaskFileError(f"{p}:{_line_of(text, k) or '?'}: task.{k} must be a string")
    return head


def _step_table(p: Path, i: int, s: object, text: str) -> Step:
    """Step `i` (from 1) of the file, checked; errors name the line of its id."""
    if not isinstance(s, dict):
        raise TaskFileError(f"{p}: step {i} is not a table; write each step as [[step]]")
    sid = s.get("id")

    def at() -> str:
        # Only an error needs the line: finding it for every step is most of a load's time.
        if not isinstance(sid, str):
            return f"{p}: step {i}"
        return f"{p}:{_line_of(text, f'id = {json.dumps(sid)}') or '?'}: step {i}"

    for k in s:
        if k not in _STEP_KEYS:
            raise TaskFileError(f"{at()}: unknown key {k!r} (known: {', '.join(sorted(_STEP_KEYS))})")
    if not isinstance(sid, str) or not sid.strip():
        raise TaskFileError(f"{at()}: the field 'id' is missing or not a string")
    txt = s.get("text")
    if not isinstance(txt, str) or not txt.strip():
        raise TaskFileError(f"{at()} ({sid}): the field 'text' is missing or empty")
    fields = {k: _field(s, k, at, sid) for k in ("after", "tools", "objects", "amounts", "hazards")}
    return make_step(
        sid.strip(),
        txt,
        fields["after"],
        tools=fields["tools"],
        objects=fields["objects"],
        amounts=fields["amounts"],
        hazards=fields["hazards"],
    )


_PREFIX = re.compile(r"^\s*(?:\([^)]*\)\s*)?[A-Za-z][A-Za-z ]{0,30}?\s*-\s*(?=\S)")


def clean_step(text: str) -> str:
    """Drop CaptainCook4D's "Verb-" label in front of a description ("Pour-Pour 1 egg")."""
    t = " ".join(text.split())
    m = _PREFIX.match(t)
    if m and len(m.group(0).split()) <= 4:
        rest = t[m.end() :].strip()
        if rest:
            # A leading "(Drop)" note says what went wrong: keep it, after the action.
            note = re.match(r"^\s*(\([^)]*\))", m.group(0))
            t = f"{rest} {note.group(1)}" if note else rest
    return t[:1].upper() + t[1:] if t else t


def load_captaincook_json(path: str | Path, *, name: str | None = None, source: str = "") -> Task:
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFileError(f"{p}: no such task graph") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise TaskFileError(f"{p}: not a readable JSON task graph ({e})") from None
    except (ValueError, RecursionError):
        # A number of thousands of digits, or arrays nested thousands deep: not a task graph.
        raise TaskFileError(f"{p}: not a task graph (a number too long or nesting too deep)") from None
    return from_captaincook(doc, name or p.stem, source=source or str(p), where=str(p))


def from_captaincook(doc: Any, name: str, *, source: str = "", where: str = "") -> Task:
    """A task from a parsed CaptainCook4D task graph (START and END are anchors, not steps)."""
    p = where or name
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("steps"), dict)
        or not isinstance(doc.get("edges"), list)
    ):
        raise TaskFileError(f"{p}: a CaptainCook4D task graph needs 'steps' (an object) and 'edges' (a list)")
    texts: dict[str, str] = {}
    for k, v in doc["steps"].items():
        if not isinstance(v, str):
            raise TaskFileError(f"{p}: steps.{k} must be a string")
        texts[str(k)] = v
    anchors = {k for k, v in texts.items() if v.strip().upper() in ("START", "END")}
    after: dict[str, list[str]] = {k: [] for k in texts if k not in anchors}
    for edge in doc["edges"]:
        if not (isinstance(edge, list) and len(edge) == 2):
            raise TaskFileError(f"{p}: edges must be [from, to] pairs, found {edge!r}")
        a, b = str(edge[0]), str(edge[1])
        for x in (a, b):
            if x not in texts:
                raise TaskFileError(f"{p}: edge {edge!r} names step {x}, which is not in 'steps'")
        if a in anchors or b in anchors:
            continue
        after[b].append(a)
    steps = []
    for k in sorted(after, key=lambda x: (len(x), x)):
        text = clean_step(texts[k])
        hazards = tuple(h for h, rx in _HAZARD_WORDS.items() if re.search(rx, text, re.IGNORECASE))
        steps.append(make_step(k, text, sorted(after[k], key=lambda x: (len(x), x)), hazards=hazards))
    return Task.build(name, name, steps, source=source, kind="recipe", where=p)


def dump_toml(task: Task) -> str:
    """The task as a TOML file `load_toml` reads back to the same task."""

    def q(s: str) -> str:
        return json.dumps(s, ensure_ascii=False)

    def arr(xs: tuple[str, ...] | list[str]) -> str:
        return "[" + ", ".join(q(x) for x in xs) + "]"

    lines = ["[task]", f"name = {q(task.name)}", f"title = {q(task.title)}", f"kind = {q(task.kind)}"]
    if task.source:
        lines.append(f"source = {q(task.source)}")
    for s in task.steps:
        lines += ["", "[[step]]", f"id = {q(s.id)}", f"text = {q(s.text)}", f"after = {arr(s.after)}"]
        if s.hazards:
            lines.append(f"hazards = {arr(s.hazards)}")
        if s.details.objects:
            lines.append(f"objects = {arr(s.details.objects)}")
    return "\n".join(lines) + "\n"


# limits.task_file_bytes' default: the largest bundled task is 2.5 kB.
MAX_TASK_FILE_BYTES = 262_144


_ITEM = re.compile(r"^\s*(?:\d+\s*[.)]|[-*•])\s*")
_MAX_LINE = 500


def load_text_list(path: str | Path) -> Task:
    """A task from a plain list of steps, one per line; errors name the file and the line."""
    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TaskFileError(f"{p}: no such task file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise TaskFileError(f"{p}: cannot read it ({e}); save it as UTF-8 text") from None
    title, texts = "", list[str]()
    for n, line in enumerate(raw.splitlines(), start=1):
        text = " ".join(line.split())
        if not text or text.startswith("#"):
            continue
        if "\x00" in text or len(text) > _MAX_LINE:
            raise TaskFileError(f"{p}:{n}: not a step (one step per line, at most {_MAX_LINE} characters)")
        if not texts and not title and text.endswith(":"):
            title = text.rstrip(":").strip()
            continue
        step = _ITEM.sub("", text).strip()
        if not step:
            raise TaskFileError(f"{p}:{n}: a numbered line with no step; write the step after the number")
        texts.append(step)
    if len(texts) < 2:
        raise TaskFileError(f"{p}: {len(texts)} step(s); a list task needs at least two lines, one step each")
    return list_task(p.stem, title or p.stem, texts, source=str(p), kind="list", where=str(p))


def load_file(path: str | Path, *, max_bytes: int = MAX_TASK_FILE_BYTES) -> Task:
    p = Path(path)
    _check_size(p, max_bytes)
    if p.suffix.lower() == ".json":
        return load_captaincook_json(p)
    if p.suffix.lower() == ".toml":
        return load_toml(p)
    if p.suffix.lower() == ".txt":
        return load_text_list(p)
    raise TaskFileError(
        f"{p}: a task file ends in .toml (our format), .txt (a list of steps, one per line) or .json "
        f"(a CaptainCook4D task graph)"
    )


def _check_size(p: Path, max_bytes: int) -> None:
    try:
        size = p.stat().st_size
    except FileNotFoundError:
        raise TaskFileError(f"{p}: no such task file") from None
    except OSError as e:
        raise TaskFileError(f"{p}: cannot read it ({e.strerror})") from None
    if size > max_bytes:
        raise TaskFileError(
            f"{p}: {size:,} bytes, over limits.task_file_bytes = {max_bytes:,}; a task is a few kB of steps"
        )
