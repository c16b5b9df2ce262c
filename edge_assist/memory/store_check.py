"""Is this file an edge-assist memory store? The one check every command's open goes through.

A file at the store's path that is not ours (a zero-byte file, random bytes, somebody's
SQLite database) is refused with one line and never written: opening it read-write would
let SQLite adopt it (write a header, a WAL, our tables). A new store is created under a
temporary name and renamed into place once its schema is committed, so a file at the
store's path was always made whole by us, and a kill during creation leaves no half-store.
"""

from __future__ import annotations

from pathlib import Path

from edge_assist.errors import StoreError
from edge_assist.memory.sqlite import connect, sqlite_module

SQLITE_HEADER = b"SQLite format 3\x00"
# Meta keys every store has had since schema 1: their presence is what makes a file ours.
STORE_KEYS = ("schema_version", "text_encoder", "text_dim")

_MOVE_ASIDE = (
    "it was left untouched: move it aside (or restore a backup), or use another general.wearer or "
    "general.data_dir"
)


def check_header(path: Path) -> None:
    """A file that does not start like SQLite is reported, never opened (SQLite might rewrite it)."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as e:
        raise StoreError(f"cannot read memory store {path}: {e.strerror}") from None
    if not head:
        raise StoreError(
            f"memory store {path} is an empty file, not an edge-assist memory store; {_MOVE_ASIDE}"
        )
    if head != SQLITE_HEADER:
        raise StoreError(
            f"memory store {path} is not an SQLite database (corrupt or overwritten); {_MOVE_ASIDE}"
        )


def read_store_meta(path: Path) -> dict[str, str]:
    """The meta table of an existing store, read-only; StoreError if the file is not a store."""
    check_header(path)
    mod = sqlite_module()
    try:
        probe = connect(f"file:{path}?mode=ro", uri=True)
    except mod.Error as e:
        raise StoreError(f"cannot open memory store {path}: {e}") from None
    try:
        has_meta = probe.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
        ).fetchone()
        meta = dict(probe.execute("SELECT key, value FROM meta").fetchall()) if has_meta else {}
    except mod.DatabaseError as e:
        raise StoreError(f"memory store {path} is corrupt ({e}); {_MOVE_ASIDE}") from None
    finally:
        probe.close()
    if not all(k in meta for k in STORE_KEYS):
        raise StoreError(f"{path} is an SQLite database but not an edge-assist memory store; {_MOVE_ASIDE}")
    return meta


def creating_path(path: Path) -> Path:
    """Where a new store is built before it is renamed to `path`."""
    return path.with_name(path.name + ".creating")


def remove_leftovers(path: Path) -> None:
    """A kill during creation leaves `<store>.creating` (+ -wal, -shm): ours by name, never adopted."""
    base = creating_path(path)
    for p in (base, Path(f"{base}-wal"), Path(f"{base}-shm"), Path(f"{base}-journal")):
        p.unlink(missing_ok=True)
