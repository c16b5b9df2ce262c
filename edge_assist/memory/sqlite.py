"""An SQLite connection that can load sqlite-vec.

The stdlib `sqlite3` is used where it can load extensions; Python builds without
`enable_load_extension` (pyenv's, some distributions') fall back to `pysqlite3`
(the `pysqlite3-binary` wheel on x86-64 Linux).
"""

from __future__ import annotations

import sqlite3 as _stdlib_sqlite3
from types import ModuleType
from typing import Any

from edge_assist.errors import StoreError


def sqlite_module() -> ModuleType:
    probe = _stdlib_sqlite3.connect(":memory:")
    try:
        if hasattr(probe, "enable_load_extension"):
            return _stdlib_sqlite3
    finally:
        probe.close()
    try:
        import pysqlite3.dbapi2 as mod  # type: ignore[import-not-found]
    except ImportError:
        raise StoreError(
            "this Python's sqlite3 cannot load extensions and pysqlite3 is missing; "
            "run `pip install pysqlite3-binary` (x86-64) or use a Python built with loadable SQLite "
            "extensions"
        ) from None
    return mod


def connect(path: str, **kwargs: Any) -> Any:
    """Open `path` with sqlite-vec loaded. Returns a DB-API connection."""
    try:
        import sqlite_vec
    except ImportError:
        raise StoreError("sqlite-vec is not installed; run `pip install sqlite-vec`") from None
    mod = sqlite_module()
    conn = mod.connect(path, **kwargs)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    return conn
