"""`edge-assist hud-emulator`: pretend to be the glasses in a terminal."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tty
from typing import TYPE_CHECKING

from edge_assist.commands.options import config_from_args
from edge_assist.config import Config
from edge_assist.errors import EdgeAssistError

if TYPE_CHECKING:
    from firmware_bridge.transports import Transport


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hud-emulator",
        help="a terminal emulator of the glasses' HUD (no hardware needed)",
        description="Connect to the assistant as the glasses over the configured transport, "
        "show HUD messages, and send questions, button presses and battery/thermal status.",
    )
    p.add_argument(
        "--pty",
        action="store_true",
        help="serial only: create a pseudo-terminal and print the device the assistant should open",
    )
    p.set_defaults(func=_run)


def _transport(cfg: Config, use_pty: bool) -> tuple[Transport, str]:
    from edge_assist.outputs.glasses_link import transport_from_config
    from firmware_bridge.transports import FdStreamTransport

    if cfg.bridge.transport == "serial" and use_pty:
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        name = os.ttyname(slave)
        # The slave fd stays open for the life of the process so the master never sees EIO.
        return FdStreamTransport("pty", lambda: master, None), (
            f"serial pty ready: start the assistant with --set bridge.serial_device={name}"
        )
    return transport_from_config(cfg, role="glasses"), f"connecting over {cfg.bridge.transport}"


def _run(args: argparse.Namespace) -> int:
    # The bridge's modules load here, not at every start of every command.
    from firmware_bridge.errors import BridgeError
    from firmware_bridge.keys import load_key

    cfg = config_from_args(args)
    if cfg.bridge.transport == "off":
        raise EdgeAssistError(
            "bridge.transport is off; run with --set bridge.transport=udp (and the same on the assistant)"
        )
    try:
        key = load_key(cfg.data_path(cfg.bridge.key_file))
    except BridgeError as e:
        raise EdgeAssistError(str(e)) from None
    transport, banner = _transport(cfg, args.pty)
    asyncio.run(_main(cfg, key, transport, banner))
    return 0


async def _main(cfg: Config, key: bytes, transport: Transport, banner: str) -> None:
    from edge_assist.outputs.glasses_link import timing_from_config
    from firmware_bridge.emulator import HELP, HudEmulator

    loop = asyncio.get_running_loop()
    emu: HudEmulator
    tty_out = sys.stdout.isatty()
    told: list[bool] = []

    def redraw() -> None:
        # A terminal is redrawn whole; a pipe or a log gets the banner and the help once, then
        # only the display as it changes.
        if tty_out:
            sys.stdout.write("\x1b[2J\x1b[H")
        if tty_out or not told:
            print(banner)
        print(emu.render())
        if tty_out or not told:
            print(HELP)
        told.append(True)
        print("> ", end="", flush=True)

    emu = HudEmulator(transport, key, timing=timing_from_config(cfg), on_change=redraw)
    lines: asyncio.Queue[str | None] = asyncio.Queue()

    def on_stdin() -> None:
        line = sys.stdin.readline()
        lines.put_nowait(line if line else None)

    await emu.start()
    loop.add_reader(sys.stdin.fileno(), on_stdin)
    try:
        redraw()
        while True:
            line = await lines.get()
            if line is None or not await emu.handle(line):
                break
            redraw()
    finally:
        with contextlib.suppress(Exception):
            loop.remove_reader(sys.stdin.fileno())
        await emu.close()
