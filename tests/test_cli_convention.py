"""One command-line convention: `--config` and `--set` before or after the action, in every command."""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

from edge_assist.cli import build_parser
from edge_assist.commands.options import config_from_args, override_items, subcommands


def _filler(parser: argparse.ArgumentParser) -> list[str]:
    """The least argv that satisfies a parser's own required arguments."""
    argv: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.nargs == 0:
            continue
        value = str(next(iter(action.choices))) if action.choices else "1"
        if not action.option_strings and action.nargs not in ("?", "*"):
            argv.append(value)
        elif action.option_strings and action.required:
            argv += [action.option_strings[0], value]
    return argv


def _commands() -> list[tuple[str, ...]]:
    """Every command, and every command + action, of the real parser."""
    paths: list[tuple[str, ...]] = []
    top = build_parser()
    for name, command in _named(top):
        actions = _named(command)
        paths += [(name, action) for action, _ in actions]
        if not actions or not _required(command):
            paths.append((name,))
    return paths


def _named(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    found = {id(p) for p in subcommands(parser)}
    named: list[tuple[str, argparse.ArgumentParser]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                if id(child) in found:
                    found.discard(id(child))
                    named.append((name, child))
    return named


def _required(parser: argparse.ArgumentParser) -> bool:
    return any(isinstance(a, argparse._SubParsersAction) and a.required for a in parser._actions)


def _argv(path: tuple[str, ...], before: list[str], after: list[str]) -> list[str]:
    """`command [before] [action] <required args> [after]`."""
    parser = build_parser()
    parsers = [parser]
    for name in path:
        parsers.append(dict(_named(parsers[-1]))[name])
    head, *rest = path
    argv = [head, *_filler(parsers[1]), *before]
    for name, p in zip(rest, parsers[2:], strict=True):
        argv += [name, *_filler(p)]
    return [*argv, *after]


@pytest.fixture(autouse=True)
def _no_ambient_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EDGE_ASSIST_CONFIG", raising=False)


COMMANDS = _commands()


def test_the_walk_reaches_every_command() -> None:
    names = {p[0] for p in COMMANDS}
    assert {"run", "replay", "ask", "doctor", "memory", "models", "tasks", "eval", "config"} <= names
    assert ("memory", "stats") in COMMANDS and ("tasks", "list") in COMMANDS
    assert ("models", "list") in COMMANDS and ("eval", "score") in COMMANDS


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
@pytest.mark.parametrize("where", ["before", "after"])
def test_set_and_config_parse_before_and_after_the_action(
    path: tuple[str, ...], where: str, tmp_path: Path
) -> None:
    data_dir = str(tmp_path / "elsewhere")
    opts = ["--set", f"general.data_dir={data_dir}"]
    argv = _argv(path, opts, []) if where == "before" else _argv(path, [], opts)
    args = build_parser().parse_args(argv)
    assert override_items(args) == [f"general.data_dir={data_dir}"]
    assert config_from_args(args).general.data_dir == data_dir

    toml = tmp_path / "settings.toml"
    toml.write_text(f'[general]\ndata_dir = "{tmp_path / "from-file"}"\n', encoding="utf-8")
    opts = ["--config", str(toml)]
    argv = _argv(path, opts, []) if where == "before" else _argv(path, [], opts)
    args = build_parser().parse_args(argv)
    assert args.config == str(toml)
    assert config_from_args(args).general.data_dir == str(tmp_path / "from-file")


@pytest.mark.parametrize("path", [p for p in COMMANDS if len(p) == 2], ids=" ".join)
def test_both_positions_combine_in_order(path: tuple[str, ...], tmp_path: Path) -> None:
    toml = tmp_path / "settings.toml"
    toml.write_text('[segmenter]\nclip_s = 7\n[general]\ndata_dir = "from-file"\n', encoding="utf-8")
    before = ["-c", str(toml), "-s", "general.data_dir=first", "-s", "segmenter.keyframes_per_clip=3"]
    args = build_parser().parse_args(_argv(path, before, ["--set", "general.data_dir=second"]))
    assert override_items(args) == [
        "general.data_dir=first",
        "segmenter.keyframes_per_clip=3",
        "general.data_dir=second",
    ]
    cfg = config_from_args(args)
    # The file from before the action survives an action that names no file; the later --set wins.
    assert cfg.segmenter.clip_s == 7.0 and cfg.segmenter.keyframes_per_clip == 3
    assert cfg.general.data_dir == "second"


def test_config_after_the_action_wins_over_one_before(tmp_path: Path) -> None:
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    first.write_text('[general]\ndata_dir = "a"\n', encoding="utf-8")
    second.write_text('[general]\ndata_dir = "b"\n', encoding="utf-8")
    args = build_parser().parse_args(["memory", "-c", str(first), "stats", "-c", str(second)])
    assert config_from_args(args).general.data_dir == "b"


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_help_names_the_options_once(path: tuple[str, ...]) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args([*path, "--help"])
    text = out.getvalue()
    assert text.count("override one setting") == 1 and text.count("settings file (default") == 1
