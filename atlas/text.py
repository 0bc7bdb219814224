"""Small text helpers every layer shares (one copy each)."""

from __future__ import annotations

from collections.abc import Mapping


def clip(text: str, limit: int, ellipsis: str = "…") -> str:
    """`text` cut to at most `limit` characters, ending in `ellipsis` (no space before it) when cut."""
    if len(text) <= limit:
        return text
    return text[: limit - len(ellipsis)].rstrip() + ellipsis


def fit_list(items: list[str], budget: int, separator: str = ", ") -> list[str]:
    """As many of `items` as fit in `budget` characters joined by `separator`, then "+N more" for
    the rest: a sources line stays within a platform's limit and still says how many it left out."""
    shown: list[str] = []
    for index, item in enumerate(items):
        if sum(len(s) + len(separator) for s in shown) + len(item) > budget:
            shown.append(f"+{len(items) - index} more")
            break
        shown.append(item)
    return shown


def text_of(value: object, sep: str = "\n") -> str:
    """The text of a message content or tool output: a string, or a list of parts with `text` (joined
    by `sep`: lines for the context window's counts, "" to read a message back as the model wrote it)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return sep.join(str(part.get("text", "")) for part in value if isinstance(part, Mapping))
    return ""
