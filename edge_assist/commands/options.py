"""The options every command shares: where the config comes from and what overrides it.

`--config` and `--set` are accepted before or after a command's action alike
(`tasks --set K=V list` and `tasks list --set K=V`). argparse parses an action's options
into a namespace of its own and copies it over the command's, so on an action's parser
the options default to nothing (an absent `--config` keeps the one given before the
action) and `--set` collects into a second list that `override_items` appends in order.
"""

from __future__ import annotations

import argparse

from edge_assist.config import Config, load_config, parse_override

SET_AFTER_ACTION = "set_after_action"


def add_config_args(p: argparse.ArgumentParser, *, after_action: bool = False) -> None:
    """`--config` and `--set` on one parser; `after_action` on an action's own parser."""
    p.add_argument(
        "--config",
        "-c",
        metavar="PATH",
        default=argparse.SUPPRESS if after_action else None,
        help="settings file (default: ./edge-assist.toml or $EDGE_ASSIST_CONFIG)",
    )
    p.add_argument(
        "--set",
        "-s",
        metavar="SECTION.KEY=VALUE",
        action="append",
        dest=SET_AFTER_ACTION if after_action else "set",
        default=argparse.SUPPRESS if after_action else [],
        help="override one setting, e.g. --set segmenter.clip_s=5 (repeatable)",
    )


def share_config_args(parser: argparse.ArgumentParser) -> None:
    """Give every command of `parser`, and every action of those commands, the config options."""
    for command in subcommands(parser):
        add_config_args(command)
        for action in subcommands(command):
            add_config_args(action, after_action=True)


def subcommands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parsers of `parser`'s sub-commands, each once (an alias shares its parser)."""
    found: dict[int, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found.setdefault(id(child), child)
    return list(found.values())


def override_items(args: argparse.Namespace) -> list[str]:
    """Every `--set` value, those before the action first, in the order given."""
    before = getattr(args, "set", None) or []
    after = getattr(args, SET_AFTER_ACTION, None) or []
    return [*before, *after]


def config_from_args(args: argparse.Namespace, **extra: object) -> Config:
    overrides = dict(parse_override(item) for item in override_items(args))
    overrides.update(extra)
    return load_config(getattr(args, "config", None), overrides)
