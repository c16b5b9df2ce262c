"""The options every command shares: where the config comes from and what overrides it."""

from __future__ import annotations

import argparse

from edge_assist.config import Config, load_config, parse_override


def add_config_args(p: argparse.ArgumentParser) -> None:
    """The config options every command that builds a pipeline accepts."""
    p.add_argument(
        "--config",
        "-c",
        metavar="PATH",
        help="settings file (default: ./edge-assist.toml or $EDGE_ASSIST_CONFIG)",
    )
    p.add_argument(
        "--set",
        "-s",
        metavar="SECTION.KEY=VALUE",
        action="append",
        default=[],
        help="override one setting, e.g. --set segmenter.clip_s=5 (repeatable)",
    )


def config_from_args(args: argparse.Namespace, **extra: object) -> Config:
    overrides = dict(parse_override(item) for item in getattr(args, "set", []) or [])
    overrides.update(extra)
    return load_config(getattr(args, "config", None), overrides)
