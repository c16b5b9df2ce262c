"""What every benchmark writes beside its numbers: the machine, and the JSON file itself."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    """Numbers from a loaded machine read differently: record the load with them."""
    return {"cpus": os.cpu_count(), "platform": platform.platform(), "load_avg_1m": os.getloadavg()[0]}


def write(path: str | Path, result: dict[str, Any]) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return p
