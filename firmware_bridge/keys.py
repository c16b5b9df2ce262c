"""The pairing key on disk: generate it once (`edge-assist pair`), read it at start-up.

The key file holds 64 hex characters and is created with mode 0600: the PSK and both
sides' static keys come from it, so anyone who can read it can speak as either side from
then on (sessions recorded before stay sealed: their ephemeral keys are gone). Pairing
again (`edge-assist pair --force`) replaces it and locks out whoever holds the old one.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

from firmware_bridge.crypto import KEY_LEN
from firmware_bridge.errors import BridgeError


class PairingError(BridgeError):
    """The pairing key is missing, unreadable or malformed."""


def generate_key() -> bytes:
    return secrets.token_bytes(KEY_LEN)


def parse_key(text: str) -> bytes:
    """A key as typed or stored: 64 hex characters; spaces and dashes are ignored."""
    cleaned = "".join(ch for ch in text.strip() if ch not in " -:\n\t")
    try:
        key = bytes.fromhex(cleaned)
    except ValueError:
        raise PairingError(
            "pairing key must be 64 hex characters; run `edge-assist pair` to make a new one"
        ) from None
    if len(key) != KEY_LEN:
        raise PairingError(
            f"pairing key has {len(key)} bytes, expected {KEY_LEN}; run `edge-assist pair` to make a new one"
        )
    return key


def format_key(key: bytes) -> str:
    """Hex in groups of 8, easier to type on a companion app."""
    h = key.hex().upper()
    return " ".join(h[i : i + 8] for i in range(0, len(h), 8))


def store_key(path: Path, key: bytes, *, overwrite: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and not overwrite:
        raise PairingError(
            f"{path} already holds a pairing key; pass --force to replace it (the glasses must pair again)"
        )
    tmp = path.with_name(path.name + ".tmp")
    # Created 0600 from the start: never a moment where the key is world-readable.
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, (key.hex() + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def load_key(path: Path) -> bytes:
    try:
        text = path.read_text(encoding="ascii")
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise PairingError(
            f"no pairing key at {path}; run `edge-assist pair` with this general.data_dir, "
            "or set bridge.key_file to the pairing.key of the data folder you paired in"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise PairingError(f"cannot read pairing key {path}: {e}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise PairingError(f"pairing key {path} is readable by others; run `chmod 600 {path}`")
    return parse_key(text)
