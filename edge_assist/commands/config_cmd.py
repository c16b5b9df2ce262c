"""`edge-assist config show`: the effective settings as a documented TOML file."""

from __future__ import annotations

import argparse

from edge_assist.commands.options import config_from_args
from edge_assist.config import Config, render_toml


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("config", help="show the effective settings", description="Inspect settings.")
    csub = p.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    show = csub.add_parser(
        "show", help="print the effective settings as TOML, every key documented with its unit"
    )
    show.add_argument(
        "--defaults", action="store_true", help="print the built-in defaults, ignoring any file"
    )
    show.set_defaults(func=_show)


def _show(args: argparse.Namespace) -> int:
    cfg = Config() if args.defaults else config_from_args(args)
    print(render_toml(cfg), end="")
    return 0
