"""The bridge's own errors: the glasses side must not need edge_assist to raise them."""

from __future__ import annotations


class BridgeError(Exception):
    """A bridge failure a person can fix (a port, a key, a missing package); the message says how."""

    exit_code = 2
