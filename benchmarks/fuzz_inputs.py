"""The fuzz targets' shared parts: the `Target` record, its runner, and input building blocks.

A `Target` pairs a hypothesis strategy (inputs shaped like the real format, broken in every way
the format allows, plus plain noise) with the parser and its clean error class. `run_one` says
whether one input had a good outcome; anything else raised, or accepted nonsense, is a bug.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st


@dataclass(frozen=True)
class Target:
    name: str
    inputs: st.SearchStrategy[Any]
    parse: Callable[[Any], Any]
    clean: tuple[type[BaseException], ...]
    check: Callable[[Any], None] | None = None  # invariants of what the parser accepted


def run_one(target: Target, value: Any) -> str:
    """'ok' or 'clean' for a good outcome; raises AssertionError for a bug (wrong error, bad output)."""
    try:
        out = target.parse(value)
    except target.clean as e:
        msg = str(e)
        assert msg.strip() and "\n" not in msg, f"{type(e).__name__} without one clear line: {msg!r}"
        return "clean"
    except Exception as e:
        raise AssertionError(f"{target.name}: {type(e).__name__}: {e}"[:500]) from e
    if target.check is not None:
        target.check(out)
    return "ok"


# -- building blocks ----------------------------------------------------------------------

# Numbers as a JSON or TOML file can carry them, the nasty ones often.
nasty_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.sampled_from([0, -0.0, -1, 1e308, -1e308, 5e-324, 2**63, -(2**63), 10**309]),
)
json_scalars = st.one_of(st.none(), st.booleans(), nasty_numbers, st.text(max_size=20))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def dump(value: Any) -> str:
    # json.dumps writes NaN/Infinity (which json.loads reads back) and any int size.
    return json.dumps(value, ensure_ascii=False)


def deeply_nested(max_depth: int = 5000) -> st.SearchStrategy[str]:
    return st.integers(min_value=1, max_value=max_depth).flatmap(
        lambda d: st.sampled_from(["[" * d + "]" * d, '{"a":' * d + "1" + "}" * d, "[" * d])
    )


def with_noise(doc: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A document, its truncation, a byte flipped, or plain noise."""

    def damage(text: str, data: st.DataObject) -> str:
        how = data.draw(st.sampled_from(["keep", "cut", "flip", "insert"]))
        if not text or how == "keep":
            return text
        i = data.draw(st.integers(0, len(text) - 1))
        if how == "cut":
            return text[:i]
        if how == "flip":
            return text[:i] + data.draw(st.characters()) + text[i + 1 :]
        return text[:i] + data.draw(st.text(max_size=5)) + text[i:]

    return st.one_of(doc, st.builds(damage, doc, st.data()), st.text(max_size=200), deeply_nested())


class Scratch:
    """One scratch directory for file-reading parsers (they take a path, as in real use)."""

    _dir: Path | None = None

    @classmethod
    def file(cls, name: str, content: bytes) -> Path:
        if cls._dir is None:
            cls._dir = Path(tempfile.mkdtemp(prefix="edge-assist-fuzz-"))
        p = cls._dir / name
        p.write_bytes(content)
        return p


def as_bytes(text: st.SearchStrategy[str]) -> st.SearchStrategy[bytes]:
    """UTF-8 text mostly, raw bytes sometimes (a file can hold anything)."""
    utf8 = text.map(lambda s: s.encode("utf-8", "surrogatepass"))
    return st.one_of(utf8, utf8, utf8, st.binary(max_size=300))


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))
