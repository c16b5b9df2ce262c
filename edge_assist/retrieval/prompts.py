"""The prompts retrieval sends: the visual path's query rewrite and reconstruction.

Their wording is covered by `reasoning.prompts.PROMPT_VERSION` with every other prompt:
change it whenever a prompt here changes. The caption-line helpers live here because
retrieval formats remembered captions; the reasoner's prompts format its own with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from edge_assist.inference.base import Message
from edge_assist.text.stream_time import stream_clock

# Characters, not tokens (about 4 a token): one caption line in any prompt.
LINE_CHARS = 220
# The whole remembered context of one prompt; the reasoner's prompts use the same budget.
CONTEXT_CHARS = 3000
# A memory search query, as the visual path rewrites it.
QUERY_CHARS = 70

RECONSTRUCT_SYSTEM = (
    "You rebuild what happened from camera captions. Write one short account, in time order, "
    "of what the captions say about the question. Name objects and places; keep the times; "
    "do not invent anything."
)

VISUAL_SYSTEM = (
    "Rewrite a question into a short description of what a camera image of the answer "
    "would show: objects, colours, places. No question words."
)


def clip_time(t0: float, t1: float) -> str:
    """Stream seconds as m:ss-m:ss (h:mm:ss past the first hour), the form answers cite."""
    return f"{stream_clock(t0)}-{stream_clock(t1)}"


def clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def caption_lines(lines: Sequence[tuple[float, float, str]], budget: int) -> str:
    out: list[str] = []
    used = 0
    # Newest last, but when the budget is tight the oldest lines go first.
    for t0, t1, text in reversed(lines):
        line = f"[{clip_time(t0, t1)}] {clip(text, LINE_CHARS)}"
        if used + len(line) > budget:
            break
        out.append(line)
        used += len(line) + 1
    return "\n".join(reversed(out)) or "(none)"


def reconstruct_messages(*, query: str, captions: Sequence[tuple[float, float, str]]) -> list[Message]:
    user = f"Question: {clip(query, LINE_CHARS)}\nCaptions:\n{caption_lines(captions, CONTEXT_CHARS)}"
    return [{"role": "system", "content": RECONSTRUCT_SYSTEM}, {"role": "user", "content": user}]


def reconstruct_vlm_prompt(*, query: str, captions: Sequence[tuple[float, float, str]]) -> str:
    """The VLM sees the keyframes of the clips; the captions anchor references and times."""
    return (
        f"{RECONSTRUCT_SYSTEM} Add what the images show that the captions miss.\n"
        f"Question: {clip(query, LINE_CHARS)}\nCaptions:\n{caption_lines(captions, CONTEXT_CHARS // 2)}"
    )


def visual_messages(*, query: str) -> list[Message]:
    return [
        {"role": "system", "content": VISUAL_SYSTEM},
        {"role": "user", "content": "Question: where did I leave my keys?"},
        {"role": "assistant", "content": '{"looks_like": "a set of keys on a wooden table or shelf"}'},
        {"role": "user", "content": f"Question: {clip(query, LINE_CHARS)}"},
    ]


def visual_rewrite_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"looks_like": {"type": "string", "maxLength": QUERY_CHARS}},
        "required": ["looks_like"],
    }


def reconstruction_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"account": {"type": "string", "maxLength": 360}},
        "required": ["account"],
    }
