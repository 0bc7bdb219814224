"""Ranked search over doc sections: BM25 in process, per field (title, heading, text), heading boosted.

Each `## ` section (and each page's intro) is a unit with three fields: title, heading, text.
Tokens are lowercased words; `ORB-1202`, `3.1.0` and `lease_seconds` are kept whole *and* split
into their parts, so an exact code outranks a loose mention while partial queries still match.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from tools.docs_pages import Page
from tools.fts_query import STOPWORDS, TERM

PART = re.compile(r"[^\W_]+")
FIELDS = {"title": 2.0, "heading": 3.0, "text": 1.0}  # per-field BM25 scores are summed with these weights
# Length normalisation per field: a heading that is nothing but the query term is about that term
# ("ORB-1403 PostgresLockTimeout" over "Lock timeouts and ORB-1403"); long sections are penalised less.
B = {"title": 0.9, "heading": 0.9, "text": 0.5}
K1 = 1.2
SNIPPET_CHARS = 160


@dataclass(frozen=True)
class DocHit:
    """One ranked section; `heading` is '' for a page's intro."""

    doc_id: str
    title: str
    heading: str
    snippet: str
    score: float


@dataclass(frozen=True)
class _Unit:
    doc_id: str
    title: str
    heading: str
    text: str
    fields: dict[str, Counter[str]]
    lengths: dict[str, int]


def tokens(text: str) -> list[str]:
    """Index tokens: each word, and for compounds (ORB-1202, 3.1.0, lease_seconds) also their parts."""
    out: list[str] = []
    for word in TERM.findall(text.lower()):
        out.append(_stem(word))
        parts = PART.findall(word)
        if len(parts) > 1:
            out.extend(_stem(p) for p in parts)
    return out


def query_tokens(query: str) -> list[str]:
    """Distinct query tokens without stopwords (kept if the query is nothing but stopwords)."""
    found = [t for t in tokens(query)]
    kept = [t for t in found if t not in STOPWORDS]
    return list(dict.fromkeys(kept or found))


class DocsIndex:
    """All sections of a set of pages, searchable by relevance."""

    def __init__(self, pages: dict[str, Page]) -> None:
        self.pages = pages
        self._units = [_unit(p.doc_id, p.title, "", p.intro) for p in pages.values()]
        self._units += [_unit(s.doc_id, s.title, s.heading, s.text) for p in pages.values() for s in p.sections]
        n = len(self._units) or 1
        self._avg = {f: sum(u.lengths[f] for u in self._units) / n or 1.0 for f in FIELDS}
        df: Counter[str] = Counter()
        for unit in self._units:
            df.update(set().union(*(unit.fields[f] for f in FIELDS)))
        self._idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def search(self, query: str, k: int = 5) -> list[DocHit]:
        """The `k` best sections for `query`, best first; [] when nothing matches."""
        wanted = [t for t in query_tokens(query) if t in self._idf]
        scored = []
        for unit in self._units:
            score = sum(self._idf[t] * self._term_score(unit, t) for t in wanted)
            if score > 0:
                scored.append((score, unit))
        scored.sort(key=lambda pair: (-pair[0], pair[1].doc_id, pair[1].heading))
        return [DocHit(u.doc_id, u.title, u.heading, snippet(u.text, wanted), round(s, 3)) for s, u in scored[:k]]

    def _term_score(self, unit: _Unit, term: str) -> float:
        """Sum of per-field saturated scores: a heading or title match counts on its own."""
        total = 0.0
        for name, weight in FIELDS.items():
            tf = unit.fields[name].get(term, 0)
            if tf:
                norm = 1 - B[name] + B[name] * unit.lengths[name] / self._avg[name]
                total += weight * _saturate(tf / norm)
        return total


def snippet(text: str, wanted: list[str]) -> str:
    """The line of `text` that holds the most query tokens, as one short line of plain text."""
    best, best_hits = "", -1
    for line in text.splitlines():
        clean = " ".join(line.replace("**", "").replace("`", "").strip("#>|- ").split())
        if not clean or clean.startswith("```"):
            continue
        hits = len(set(tokens(clean)) & set(wanted))
        if hits > best_hits:
            best, best_hits = clean, hits
    return best if len(best) <= SNIPPET_CHARS else best[: SNIPPET_CHARS - 3].rstrip() + "..."


def _unit(doc_id: str, title: str, heading: str, text: str) -> _Unit:
    fields = {"title": Counter(tokens(title)), "heading": Counter(tokens(heading)), "text": Counter(tokens(text))}
    return _Unit(doc_id, title, heading, text, fields, {f: sum(c.values()) for f, c in fields.items()})


def _saturate(tf: float) -> float:
    return tf * (K1 + 1) / (tf + K1) if tf else 0.0


def _stem(word: str) -> str:
    """Fold plurals so 'retries' meets 'retry' and 'workers' meets 'worker'."""
    if len(word) > 4 and word.isalpha():
        if word.endswith("ies"):
            return word[:-3] + "y"
        if word.endswith("s") and not word.endswith(("ss", "us", "is")):
            return word[:-1]
    return word
