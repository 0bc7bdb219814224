"""Free text to a safe FTS5 MATCH expression.

Every term is double-quoted, so FTS5 syntax in user text (NEAR, column filters, '*', '^', quotes)
is inert; a quoted term with '-' or '.' is a phrase of adjacent tokens, which is how `ORB-1202` and
`3.1.0` match exactly under the unicode61 tokenizer. Common words are dropped: they add nothing to
bm25 and make every query scan most of the index.
"""

from __future__ import annotations

from typing import Literal

from datasets.fts_text import WORD
from tools.errors import ToolError

TERM = WORD  # a query term is what the issues' index stores as one token (datasets/fts_text.py)
MAX_TERMS = 12
STOPWORDS = frozenset(
    """a about after all also an and any are as at be been before but by can could did do does doing
    for from get gets got had has have having how i if in into is it its just me mean means my no not
    of on or our out over same so some than that the their them then there these they this to too
    up us was we were what when where which while who why will with would you your""".split()
)


def terms(query: str) -> list[str]:
    """The distinct searchable terms of `query`, lowercased, stopwords dropped (unless that is all)."""
    found = [t.lower() for t in TERM.findall(query)]
    found = [t.strip("_") or t for t in found]
    kept = [t for t in found if t not in STOPWORDS]
    return list(dict.fromkeys(kept or found))[:MAX_TERMS]


def searchable(query: str, limit: int, example: str) -> str | ToolError:
    """The model's `query` trimmed and cut to `limit` characters, or the error it reads when that holds no
    searchable term; `example` completes the hint ("Use words ..., e.g. ...")."""
    kept = query.strip()[:limit]
    if not terms(kept):
        return ToolError("The query has no searchable words.", f"Use {example}.")
    return kept


def match_expression(query: str, mode: Literal["all", "any"] = "any") -> str | None:
    """An FTS5 query requiring all (AND) or any (OR) of the terms; None when there are no terms."""
    found = terms(query)
    if not found:
        return None
    return (" AND " if mode == "all" else " OR ").join(f'"{t}"' for t in found)
