"""Cutting text to a bound: a caption or a question over its limit keeps its first words."""

from __future__ import annotations


def cut_text(text: str, limit: int) -> str:
    """`text` within `limit` characters, cut at the last space when one is in the second half."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space > limit // 2:
        head = head[:space]
    return head.rstrip() + "…"
