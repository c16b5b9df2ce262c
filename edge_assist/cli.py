"""The `edge-assist` command line.

Each command group lives in its own module under `edge_assist/commands/` and exposes
`register(subparsers)`; this module finds them, parses, loads the config and turns an
`EdgeAssistError` into one line on stderr with a non-zero exit code.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import pkgutil
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from edge_assist import __version__, commands
from edge_assist.commands.options import share_config_args
from edge_assist.config.privacy import make_private_process
from edge_assist.errors import EdgeAssistError
from edge_assist.memory import heap
from edge_assist.runtime.stop_deadline import watch_signals
from firmware_bridge.errors import BridgeError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="edge-assist",
        description="On-device proactive assistant for smart glasses: "
        "watches, remembers, speaks up when it helps.",
    )
    parser.add_argument("--version", action="version", version=f"edge-assist {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    # One convention for every command: --config and --set before or after its action.
    share_config_args(parser)
    return parser


def _terminate(signum: int, frame: Any) -> None:
    if frame is not None and "llama_cpp" in frame.f_code.co_filename:
        # Raised inside llama.cpp's ctypes log callback, the exception would be printed and
        # dropped (the load goes on, the process never ends): ask again a moment later.
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
    raise KeyboardInterrupt


def _forget_interrupt() -> None:
    """Let a stop this function handled end as exit code 130, never as a death by SIGINT.

    CPython remembers a KeyboardInterrupt that left any code run from a string (`exec` and
    `eval` of source, as dataclasses and namedtuple do while modules load), even one caught
    later, and at exit kills its own process with SIGINT. The next string it runs without an
    interrupt clears that mark."""
    eval("None")


def main(argv: Sequence[str] | None = None) -> int:
    # Before any thread exists: a process that runs for days keeps its C heap compact (heap.py).
    heap.tune()
    # Before any file exists: what the glasses saw is the wearer's only (config/privacy.py).
    make_private_process()
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        # SIGTERM while starting up (loading models) ends as cleanly as Ctrl-C; once the
        # pipeline runs, its own handlers take over and flush everything. Installed inside the
        # try: a signal right after it is a KeyboardInterrupt caught below, never a crash.
        signal.signal(signal.SIGTERM, _terminate)
        if argv is None:  # the command line itself, not a caller's process (tests, scripts)
            signal.signal(signal.SIGINT, _terminate)
            # The deadline after a stop signal (runtime/stop_deadline.py), counted as it arrives.
            watch_signals()
        return int(func(args) or 0)
    except (EdgeAssistError, BridgeError) as e:
        print(f"edge-assist: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        _forget_interrupt()
        return 130
