"""One structured model call, off the event loop, with the retry rule for bad answers.

A grammar-constrained local model always returns schema-valid JSON; a remote server may
not. An answer that does not parse, does not fit the schema, or cannot be acted on is
retried once; a second failure is returned as `None` with the reason, and the caller
treats it as "stay silent" (issue 5). Cancellation (CancelledError, GenerationCancelled)
is never caught here.

What is logged: a failed attempt that is retried is a debug line (the trace keeps it); a
final failure because the answer ran out of tokens is one warning naming the setting to
raise, once per setting per process; other final failures are debug lines, since the
trace records them and nothing the wearer can set would change them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from edge_assist.clock import Clock
from edge_assist.errors import AnswerCutError, ModelError
from edge_assist.inference.base import LLM, Message, warn_answer_cut

log = logging.getLogger(__name__)

T = TypeVar("T")
ATTEMPTS = 2  # the first answer and one retry


@dataclass
class CallResult(Generic[T]):
    value: T | None
    raw: dict[str, Any] | None
    seconds: float
    attempts: int
    error: str = ""
    errors: list[str] = field(default_factory=list)

    def trace(self) -> dict[str, Any]:
        out: dict[str, Any] = {"raw": self.raw, "seconds": round(self.seconds, 4), "attempts": self.attempts}
        if self.errors:
            out["errors"] = self.errors
        return out


async def call_json(
    llm: LLM,
    clock: Clock,
    what: str,
    messages: Sequence[Message],
    schema: dict[str, Any],
    parse: Callable[[dict[str, Any]], T],
    *,
    max_tokens: int,
    temperature: float = 0.0,
    attempts: int = ATTEMPTS,
    setting: str = "reasoner.max_tokens",
) -> CallResult[T]:
    """Ask for JSON, parse it; retry once on a bad answer, then give up with a reason.

    The retry gets twice the token allowance: at temperature 0 a local model repeats
    itself exactly, so the only retry that can succeed where the first was cut short is
    a longer one (a remote server's failures are more often transient: any retry helps).
    `setting` is the config key `max_tokens` comes from, named when the answer is too long.
    """
    errors: list[str] = []
    raw: dict[str, Any] | None = None
    start = time.perf_counter()
    cut: AnswerCutError | None = None
    for attempt in range(1, attempts + 1):
        allowance = max_tokens * (2 if attempt > 1 else 1)
        try:
            raw = await clock.run_blocking(
                lambda n=allowance: llm.chat_json(messages, schema, max_tokens=n, temperature=temperature)  # type: ignore[misc]
            )
            value = parse(raw)
        except (ModelError, ValueError) as e:  # json.JSONDecodeError and AnswerFormatError are ValueErrors
            errors.append(f"attempt {attempt}: {e}")
            cut = e if isinstance(e, AnswerCutError) else None
            log.debug("%s: bad model answer (attempt %d of %d): %s", what, attempt, attempts, e)
            continue
        return CallResult(value, raw, time.perf_counter() - start, attempt, errors=errors)
    if cut is not None:
        # The retry already had twice the tokens: that is the allowance to go beyond.
        warn_answer_cut(log, what, setting, cut.max_tokens)
    reason = f"{what}: no valid answer after {attempts} attempts ({errors[-1]})"
    return CallResult(None, raw, time.perf_counter() - start, attempts, error=reason, errors=errors)
