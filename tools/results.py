"""Long results: show the head that fits a token budget, stash the whole, say how to read on.

Every cut goes through `cut`: the loop's cut of a whole tool result, a tool's own cut of one
part (an issue's body, a comment, a doc section), and `read_more`'s pages. So every cut reads
the same, names a ref and a token offset, and `read_more` pages from there to the end.
A result and its note together never exceed the budget they were cut to.
"""

from __future__ import annotations

from atlas import tokens
from tools.context import ResultStash

NOTE_TOKENS = 64
"""Tokens kept free for the note and separator after a cut or a page. The longest note (a
10-character ref, offsets in the billions) is about 40 tokens; the rest covers the few tokens a
cut piece can gain when it is encoded again on its own (its first and last words re-merge)."""


def page_tokens(limit: int) -> int:
    """How many tokens of text a cut or a page shows so that it fits `limit` with its note."""
    return max(limit - NOTE_TOKENS, 1)


def read_on(ref: str, offset: int, more: int, label: str = "truncated") -> str:
    """The note after a cut: how much is left and the exact read_more call that continues."""
    return f'[{label}: {more:,} more tokens; use read_more(ref="{ref}", offset={offset})]'


def cut(text: str, limit: int, stash: ResultStash | None, label: str = "truncated") -> str:
    """`text` if it fits `limit` tokens; else its head, stashed whole, with a note to read on.

    Without a stash (`atlas tool`, benchmarks) the note says how much was left out but names no
    ref: there is nothing to page.
    """
    if tokens.bound(text) <= limit:
        return text  # fits by its bytes: nothing to count (atlas/tokens.py `bound`)
    token_ids = tokens.ids(text)
    if len(token_ids) <= limit:
        return text
    end = tokens.split_point(token_ids, 0, page_tokens(limit))
    shown, more = tokens.decode(token_ids[:end]), len(token_ids) - end
    if stash is None:
        return f"{shown}\n[{label}: {more:,} more tokens]"
    return f"{shown}\n{read_on(stash.put(text), end, more, label)}"
