"""Fuzzing of every input parser, short form: a few dozen hypothesis inputs each in
`make test`, a few hundred in the long suite.

The targets (strategies, parsers, clean error classes, invariants of accepted input) are
in `benchmarks/fuzz_targets.py`; `python -m benchmarks.fuzz_parsers` runs 10k+ each and
writes `benchmarks/results/fuzz/results.json`. Below them, the inputs that broke a parser
before it was fixed, kept as regressions.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from benchmarks.fuzz_targets import TARGETS, Target, run_one

QUICK_EXAMPLES = 50
SHORT_EXAMPLES = 300


@pytest.mark.parametrize(
    "examples",
    [
        pytest.param(QUICK_EXAMPLES, id="quick"),
        pytest.param(SHORT_EXAMPLES, id="short", marks=pytest.mark.heavy),
    ],
)
@pytest.mark.parametrize("target", TARGETS, ids=[t.name for t in TARGETS])
def test_parser_gives_only_clean_errors(target: Target, examples: int) -> None:
    @settings(max_examples=examples, deadline=2000, database=None, suppress_health_check=list(HealthCheck))
    @given(target.inputs)
    def prop(value: Any) -> None:
        assert run_one(target, value) in ("ok", "clean")

    prop()


_BY_NAME = {t.name: t for t in TARGETS}
# Each broke its parser (an uncaught exception, or an accepted non-finite time) before the fix.
FOUND = [
    ("caption-jsonl", b"[" * 5000),  # RecursionError out of json.loads
    ("caption-jsonl", b'{"t0": 1' + b"0" * 5000 + b', "t1": 2, "text": "x"}'),  # int digit limit ValueError
    ("caption-jsonl", b'{"t0": 1' + b"0" * 400 + b', "t1": 2, "text": "x"}'),  # OverflowError in float()
    ("caption-jsonl", b'{"t0": NaN, "t1": NaN, "text": "x"}'),  # accepted NaN times
    ("caption-jsonl", b'{"t0": 0, "t1": Infinity, "text": "x"}'),  # accepted an infinite clip
    (
        "caption-srt",
        b"1\n" + b"9" * 400 + b":00:00,000 --> " + b"9" * 401 + b":00:00,000\nhi\n",
    ),  # OverflowError
    ("config-toml", "[scheduler]\nstep_budget_s = nan\n"),  # accepted NaN
    ("config-toml", "[general]\nwearer = 1" + "0" * 5000 + "\n"),  # tomllib's ValueError (digit limit)
    ("config-toml", "[policy]\ncooldown_s = {NSG = nan}\n"),  # accepted NaN in a table
    ("bridge-message", ("status", b'{"battery_pct": 1' + b"0" * 400 + b"}")),  # OverflowError in isfinite
    ("bridge-message", ("question", b"[" * 1000)),  # RecursionError inside one 1 KiB payload
    # A bad annotation record is reported as a problem and the rest read ("ok"), never raised.
    ("annotations", b'{"sub_type": "ER", "t0": 1' + b"0" * 400 + b', "t1": 2}'),  # OverflowError
    ("annotations", b'{"sub_type": "ER", "t0": NaN, "t1": NaN}'),  # accepted NaN window
    ("annotations", b"[" * 5000),  # RecursionError
]


@pytest.mark.parametrize(("name", "value"), FOUND, ids=[f"{n}-{i}" for i, (n, _) in enumerate(FOUND)])
def test_inputs_that_broke_a_parser_now_end_in_a_clean_error(name: str, value: Any) -> None:
    assert run_one(_BY_NAME[name], value) == (
        "ok" if name == "annotations" and not value.startswith(b"[") else "clean"
    )
