"""The layout rules the import contracts cannot express, checked by `make lint`.

- the package's top level keeps at most 6 modules (package plumbing, `__init__` and
  `__main__`, aside): everything else lives in a room named after what it does;
- no module is over 400 lines and no function over 60 (from `def` to its last line), so a
  file or a function that grows past them is split when it is next touched.

Run: `python -m tests.check_layout [ROOT]` (ROOT defaults to the repository). Exit 1 and one
line per violation, or exit 0 and a one-line summary.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "edge_assist"
CHECKED = ("edge_assist", "firmware_bridge", "benchmarks", "tests")
MAX_TOP_LEVEL_MODULES = 6
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
PLUMBING = frozenset({"__init__.py", "__main__.py"})


@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def _sources(root: Path) -> Iterator[Path]:
    for name in CHECKED:
        base = root / name
        if base.is_dir():
            yield from sorted(p for p in base.rglob("*.py") if ".venv" not in p.parts)


def top_level(root: Path) -> list[Violation]:
    modules = sorted(p.name for p in (root / PACKAGE).glob("*.py") if p.name not in PLUMBING)
    if len(modules) <= MAX_TOP_LEVEL_MODULES:
        return []
    what = (
        f"{len(modules)} top-level modules ({', '.join(modules)}); at most {MAX_TOP_LEVEL_MODULES}:"
        " move the rest into the room that owns them"
    )
    return [Violation(PACKAGE, 0, what)]


def module(path: Path, rel: str) -> list[Violation]:
    text = path.read_text(encoding="utf-8")
    out: list[Violation] = []
    lines = len(text.splitlines())
    if lines > MAX_MODULE_LINES:
        out.append(Violation(rel, lines, f"module has {lines} lines (max {MAX_MODULE_LINES}): split it"))
    for node in ast.walk(ast.parse(text, filename=rel)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            n = (node.end_lineno or node.lineno) - node.lineno + 1
            if n > MAX_FUNCTION_LINES:
                what = f"function {node.name} has {n} lines (max {MAX_FUNCTION_LINES}): split it"
                out.append(Violation(rel, node.lineno, what))
    return out


def check(root: Path) -> list[Violation]:
    found = top_level(root)
    for path in _sources(root):
        found.extend(module(path, path.relative_to(root).as_posix()))
    return found


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parents[1]
    found = check(root)
    for v in found:
        print(v)
    if found:
        print(f"layout: {len(found)} violation(s)", file=sys.stderr)
        return 1
    print(f"layout: ok ({sum(1 for _ in _sources(root))} modules checked)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
