"""The task library: bundled tasks, the TOML format, bad files, and the `tasks` command."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_assist.cli import main
from edge_assist.tasks.formats import dump_toml, load_captaincook_json, load_file, load_toml
from edge_assist.tasks.library import TaskLibrary
from edge_assist.tasks.model import TaskFileError

GOOD = """\
[task]
name = "tea"
title = "Make a cup of tea"

[[step]]
id = "boil"
text = "Boil water in the kettle"
after = []
hazards = ["hot"]

[[step]]
id = "bag"
text = "Put a tea bag in the cup"
after = []

[[step]]
id = "pour"
text = "Pour 250 ml of hot water over the tea bag"
after = ["boil", "bag"]
"""


def _write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_bundled_library_has_the_24_recipes_and_the_non_cooking_examples() -> None:
    lib = TaskLibrary.load()
    recipes = [t for t in lib.tasks() if t.kind == "recipe"]
    assert len(recipes) == 24
    assert {"inner-tube", "pcr-setup", "flatpack-shelf"} <= set(lib.names())
    egg = lib.get("microwaveeggsandwich")
    assert egg is not None
    # The graph, not the list: cutting the muffin needs nothing before it.
    cut = next(s for s in egg.steps if s.text.startswith("Cut the English muffin"))
    assert cut.after == ()
    assert "sharp" in cut.hazards


def test_toml_round_trip_and_details(tmp_path: Path) -> None:
    t = load_toml(_write(tmp_path, GOOD))
    assert [s.id for s in t.steps] == ["boil", "bag", "pour"]
    pour = t.steps[2]
    assert pour.after == ("boil", "bag")
    assert pour.details.amounts[0].dim == "volume" and pour.details.amounts[0].value == pytest.approx(250)
    again = load_toml(_write(tmp_path, dump_toml(t), "again.toml"))
    assert [(s.id, s.text, s.after) for s in again.steps] == [(s.id, s.text, s.after) for s in t.steps]


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (
            lambda s: s.replace('after = ["boil", "bag"]', 'after = ["boil", "milk"]'),
            "'milk' is not a step id",
        ),
        (lambda s: s.replace('id = "bag"', 'id = "boil"'), "used twice"),
        (lambda s: s.replace("after = []\nhazards", 'after = ["pour"]\nhazards'), "cycle"),
        (lambda s: s.replace('text = "Put a tea bag in the cup"\n', ""), "'text' is missing"),
        (lambda s: s.replace('name = "tea"\n', ""), "task.name is missing"),
        (lambda s: s.replace("[task]", "[task\n"), "not valid TOML"),
        (lambda s: s.replace('hazards = ["hot"]', 'hazards = ["lava"]'), "unknown hazard 'lava'"),
        (lambda s: s.replace("after = []\nhazards", "afterwards = []\nhazards"), "unknown key 'afterwards'"),
    ],
)
def test_bad_task_files_are_one_line_naming_the_file(tmp_path: Path, edit, needle: str) -> None:
    p = _write(tmp_path, edit(GOOD))
    with pytest.raises(TaskFileError) as e:
        load_file(p)
    msg = str(e.value)
    assert needle in msg and str(p) in msg and "\n" not in msg


def test_unknown_step_error_names_the_line(tmp_path: Path) -> None:
    p = _write(tmp_path, GOOD.replace('after = ["boil", "bag"]', 'after = ["boil", "milk"]'))
    with pytest.raises(TaskFileError, match=rf"{p}:\d+:"):
        load_file(p)


def test_captaincook_json_with_a_bad_edge(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        '{"steps": {"0": "START", "1": "Cut-Cut it", "2": "Eat-Eat it", "3": "END"}, '
        '"edges": [[0, 1], [1, 2], [2, 9]]}',
        "g.json",
    )
    with pytest.raises(TaskFileError, match="names step 9"):
        load_captaincook_json(p)


def test_tasks_command_list_show_check_add(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = ["--set", f"general.data_dir={tmp_path / 'data'}"]
    assert main(["tasks", *data, "list"]) == 0
    assert "27 tasks" in capsys.readouterr().out
    assert main(["tasks", *data, "show", "inner-tube"]) == 0
    assert "[lever-tyre]" in capsys.readouterr().out
    good = _write(tmp_path, GOOD)
    assert main(["tasks", *data, "check", str(good)]) == 0
    assert main(["tasks", *data, "add", str(good)]) == 0
    assert (tmp_path / "data" / "tasks" / "tea.toml").exists()
    capsys.readouterr()
    assert main(["tasks", *data, "list"]) == 0
    assert "28 tasks" in capsys.readouterr().out
    bad = _write(tmp_path, GOOD.replace('id = "bag"', 'id = "boil"'), "bad.toml")
    assert main(["tasks", *data, "add", str(bad)]) == 2
    assert "used twice" in capsys.readouterr().err
    assert not (tmp_path / "data" / "tasks" / "bad.toml").exists()
    assert main(["tasks", *data, "show", "nope"]) == 2


def test_resolve_by_name_by_listed_steps_and_ad_hoc() -> None:
    lib = TaskLibrary.load()
    assert lib.resolve("", name="pinwheels").name == "pinwheels"  # type: ignore[union-attr]
    egg = lib.get("microwaveeggsandwich")
    assert egg is not None
    listed = "Recipe: something. Steps in order: " + "; ".join(
        f"{i}. {s.text}" for i, s in enumerate(egg.steps, 1)
    )
    assert lib.resolve(listed).name == "microwaveeggsandwich"  # type: ignore[union-attr]
    adhoc = lib.resolve("Steps: water the plants; feed the cat; lock the door")
    # A list's order is a default: steps that share nothing may come in any order.
    assert adhoc is not None and adhoc.name == "ad-hoc" and all(not s.after for s in adhoc.steps)
    kettle = lib.resolve("Steps: fill the kettle with water; put a tea bag in the mug; boil the water")
    assert kettle is not None and kettle.steps[2].after == ("1",)  # both name the water
    assert lib.resolve("") is None


def test_a_plain_text_list_loads_and_a_bad_one_is_one_line(tmp_path: Path) -> None:
    good = _write(
        tmp_path,
        "Make a cup of tea:\n\n# kettle first\n1. Fill the kettle with water\n2) Boil the water\n"
        "- Put a tea bag in the mug\n",
        "tea.txt",
    )
    task = load_file(good)
    assert (task.name, task.title, task.kind) == ("tea", "Make a cup of tea", "list")
    assert [s.text for s in task.steps] == [
        "Fill the kettle with water",
        "Boil the water",
        "Put a tea bag in the mug",
    ]
    assert [s.after for s in task.steps] == [(), ("1",), ()]
    for text, needle in [
        ("Only one step\n", r"tea1.txt: 1 step\(s\); a list task needs at least two"),
        ("1. Fill the kettle\n2.\n", "tea1.txt:2: a numbered line with no step"),
        ("x" * 600 + "\nBoil\n", "tea1.txt:1: not a step"),
    ]:
        with pytest.raises(TaskFileError, match=needle) as e:
            load_file(_write(tmp_path, text, "tea1.txt"))
        assert "\n" not in str(e.value)
    bad = tmp_path / "bin.txt"
    bad.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(TaskFileError, match="save it as UTF-8"):
        load_file(bad)
