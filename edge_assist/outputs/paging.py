"""Paging: a long text in screen-sized pieces, cut between sentences or words, never inside one.

The HUD shows one page at a time; a wearer reads at a glance, so a page is short.
"""

from __future__ import annotations


def _split_words(text: str, limit: int) -> list[str]:
    out: list[str] = []
    line = ""
    for w in text.split():
        while len(w) > limit:  # one word longer than a page: the only place a word is split
            if line:
                out.append(line)
                line = ""
            out.append(w[: limit - 1] + "-")
            w = w[limit - 1 :]
        if not line:
            line = w
        elif len(line) + 1 + len(w) <= limit:
            line += " " + w
        else:
            out.append(line)
            line = w
    if line:
        out.append(line)
    return out


def pages(text: str, limit: int) -> list[str]:
    """`text` in pieces of at most `limit` characters, cut between words, and between
    sentences when a sentence ends in the second half of the page: never inside a word."""
    words: list[str] = []
    for w in text.split():
        words.extend(_split_words(w, limit) if len(w) > limit else [w])
    out: list[str] = []
    cur: list[str] = []
    for w in words:
        if len(" ".join([*cur, w])) <= limit:
            cur.append(w)
            continue
        ends = [
            k
            for k, x in enumerate(cur[:-1])
            if x.endswith((".", "!", "?")) and len(" ".join(cur[: k + 1])) >= limit // 2
        ]
        if ends:
            out.append(" ".join(cur[: ends[-1] + 1]))
            cur = cur[ends[-1] + 1 :]
            if len(" ".join([*cur, w])) <= limit:
                cur.append(w)
                continue
        out.append(" ".join(cur))
        cur = [w]
    if cur:
        out.append(" ".join(cur))
    return out
