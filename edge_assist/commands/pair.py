"""`edge-assist pair`: make the key the glasses and the assistant share, and show it."""

from __future__ import annotations

import argparse

from edge_assist.commands.options import config_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "pair",
        help="create the pairing key shared with the glasses",
        description="Generate a new pairing key (stored with mode 0600 at bridge.key_file) and print "
        "what to enter on the glasses.",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an existing key: rotates the pre-shared key and both pinned keys, which locks out "
        "a lost or stolen pair of glasses (the glasses you keep must pair again)",
    )
    p.add_argument("--show", action="store_true", help="print the existing key instead of making a new one")
    p.set_defaults(func=_pair)


def _pair(args: argparse.Namespace) -> int:
    # The bridge's crypto loads here, not at every start of every command.
    from firmware_bridge.crypto import fingerprint
    from firmware_bridge.keys import format_key, generate_key, load_key, store_key

    cfg = config_from_args(args)
    path = cfg.data_path(cfg.bridge.key_file)
    if args.show:
        key = load_key(path)
    else:
        key = generate_key()
        store_key(path, key, overwrite=args.force)
    b = cfg.bridge
    where = (
        f"serial {b.serial_device} at {b.baud} baud"
        if b.transport == "serial"
        else f"udp {b.host}:{b.port}"
        if b.transport == "udp"
        else "no transport yet (set bridge.transport to udp or serial)"
    )
    print(f"pairing key {'stored in' if not args.show else 'read from'} {path} (mode 0600)")
    print()
    print("Enter on the glasses (companion app → Pair → enter key):")
    print(f"    {format_key(key)}")
    print(f"Check that the glasses show the code {fingerprint(key)}.")
    if args.force:
        print("The previous pairing no longer works: glasses paired with it are locked out.")
    print(f"The assistant listens on: {where}")
    print("Try it without hardware: edge-assist hud-emulator")
    return 0
