"""Small text helpers every layer shares (one copy each)."""

from __future__ import annotations


def clip(text: str, limit: int, ellipsis: str = "…") -> str:
    """`text` cut to at most `limit` characters, ending in `ellipsis` (no space before it) when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - len(ellipsis)].rstrip() + ellipsis
