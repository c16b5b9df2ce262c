"""The rules `make lint` enforces fail when broken: a planted import across the layers, a
module or a function that grew too long, a crowded top level."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import check_layout

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _copy_package(tmp_path: Path) -> Path:
    for name in ("edge_assist", "firmware_bridge"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("data", "__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
    )


@pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter is installed by `make setup`")
def test_the_contracts_hold_and_a_planted_violation_breaks_them(tmp_path: Path) -> None:
    root = _copy_package(tmp_path)
    clean = _lint_imports(root)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "BROKEN" not in clean.stdout

    # The answers room opening the store directly: what the contracts exist to stop.
    planted = root / "edge_assist" / "answers" / "planted.py"
    planted.write_text("from edge_assist.memory.api import MemoryReader\n\nREADER = MemoryReader\n")
    broken = _lint_imports(root)
    assert broken.returncode != 0
    assert "edge_assist.answers.planted -> edge_assist.memory.api" in broken.stdout
    assert "never open the store" in broken.stdout and "BROKEN" in broken.stdout

    # The glasses side reaching into the host: the bridge must stand alone.
    planted.unlink()
    (root / "firmware_bridge" / "planted.py").write_text("from edge_assist.events import Decision\n")
    assert "firmware_bridge.planted -> edge_assist.events" in _lint_imports(root).stdout


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_the_layout_of_this_repository_is_checked_and_violations_are_named(tmp_path: Path) -> None:
    long_body = "".join(f"    x{i} = {i}\n" for i in range(60))
    root = _tree(
        tmp_path,
        {
            "edge_assist/__init__.py": "",
            "edge_assist/__main__.py": "",
            **{f"edge_assist/top{i}.py": "" for i in range(6)},
            "edge_assist/room/short.py": "def f():\n    return 1\n",
            "edge_assist/room/long_function.py": "def grown():\n" + long_body,
            "benchmarks/long_module.py": "x = 1\n" * 401,
        },
    )
    assert check_layout.check(root) == [
        check_layout.Violation(
            "edge_assist/room/long_function.py", 1, "function grown has 61 lines (max 60): split it"
        ),
        check_layout.Violation("benchmarks/long_module.py", 401, "module has 401 lines (max 400): split it"),
    ]
    (root / "edge_assist" / "top6.py").write_text("")
    crowded = check_layout.top_level(root)
    assert len(crowded) == 1 and "7 top-level modules" in crowded[0].what
