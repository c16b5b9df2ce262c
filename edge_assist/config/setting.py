"""How a settings key is declared: its default, a one-line doc with the unit, its valid range.

`Config` reads the declarations back (dataclass field metadata) to validate values and to
print `edge-assist config show`, so a key's doc and range live in one place.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any


def setting(
    default: Any,
    doc: str,
    *,
    lo: float | None = None,
    hi: float | None = None,
    choices: tuple[str, ...] | None = None,
) -> Any:
    """Declare a key: its default, a one-line doc (say the unit), and its valid range."""
    meta = {"doc": doc, "lo": lo, "hi": hi, "choices": choices}
    if isinstance(default, dict | list):
        frozen_default = default

        def factory() -> Any:
            return type(frozen_default)(frozen_default)

        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)
