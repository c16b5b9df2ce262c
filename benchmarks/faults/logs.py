"""The log lines a fault causes, as its record keeps them."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def captured_logs(level: int = logging.WARNING) -> Iterator[list[str]]:
    """The log lines (level name, logger, message) emitted inside the block."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(f"{record.levelname} {record.name}: {record.getMessage()}")

    handler = Keep(level)
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(min(old, level) if old else level)
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        root.setLevel(old)
