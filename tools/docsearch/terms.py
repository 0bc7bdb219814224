"""The words docs search indexes and asks for: stemmed words, identifiers and codes kept whole and split.

Words are stemmed (Snowball English, so 'scheduling' meets 'schedule' and 'dependencies' meets 'depends');
identifiers and codes (`ORB-1202`, `3.1.0`, `enqueue_at`, `rq.Retry`, `FailedJobRegistry`) are kept whole,
unstemmed, *and* split into their stemmed parts, so an exact code outranks a loose mention while plain words
still reach it. The same tokens serve the issues' and the code's lexical matching elsewhere.
"""

from __future__ import annotations

import functools
import re
import threading

import snowballstemmer

from tools.docsearch.vocabulary import EXPANSION_WEIGHT, FILLER, expansions
from tools.fts_query import STOPWORDS, TERM

QUIET = STOPWORDS | FILLER
PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")  # lease_seconds, FailedJobRegistry, ORB-1202

_local = threading.local()  # a Snowball stemmer keeps its working state on itself: one per thread


def tokens(text: str, drop: frozenset[str] = frozenset()) -> list[str]:
    """Index tokens: each word stemmed; a compound (ORB-1202, 3.1.0, enqueue_at, FailedJobRegistry)
    kept whole and lowercased, plus its stemmed parts. Parts in `drop` are left out."""
    out: list[str] = []
    for word in TERM.findall(text):
        parts = [p.lower() for p in PART.findall(word)]
        if len(parts) <= 1:
            if word.lower() not in drop:
                out.append(stem(word.lower().strip("_")))
            continue
        out.append(word.lower())
        out.extend(stem(p) for p in parts if p not in drop)
    return out


def query_tokens(query: str) -> list[str]:
    """Distinct query tokens without stopwords or filler (kept if the query is nothing but those)."""
    found = tokens(query, QUIET)
    kept = [t for t in found if t not in QUIET]
    return list(dict.fromkeys(kept or found))


def expanded_tokens(query: str) -> dict[str, float]:
    """Query tokens with their weights: the user's own at 1, doc words for their plain phrases lower."""
    weights = dict.fromkeys(query_tokens(query), 1.0)
    for token in tokens(" ".join(expansions(query, stem)), QUIET):
        weights.setdefault(token, EXPANSION_WEIGHT)
    return weights


def compounds(query: str) -> list[str]:
    """The codes and identifiers in `query`, as the index keeps them whole: 'orb-1202', 'enqueue_at', '3.1.0'."""
    return [w.lower() for w in TERM.findall(query) if len(PART.findall(w)) > 1]


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Snowball English for words; numbers and mixed tokens as they are (cached: docs repeat words)."""
    if not word.isalpha():
        return word
    if not hasattr(_local, "stemmer"):
        _local.stemmer = snowballstemmer.stemmer("english")
    stemmed: str = _local.stemmer.stemWord(word)  # snowballstemmer ships no types
    return stemmed
