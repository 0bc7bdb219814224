"""Ranked search over doc sections: BM25 in process, per field (title, heading path, text, users' words).

Each searched unit (a page's intro, or a section as `Page.units` splits them) has five fields: the
page title, its own heading, its parent headings, its text, and the words of the issue threads that
name its rare identifiers (`docs_bridge`). Per-field scores are summed with coarse weights (a grid
over the RQ development questions, BM25F's single saturation among the variants, moved MRR by a few
points at most, so nothing here is tuned per question). Headings count each word once. Words and
identifiers are tokenized as tools/docsearch/terms.py says. With the embedding model installed
(tools/docsearch/semantic.py), the score is blended with each section's similarity in meaning to the question:
that of its best passage, a passage's cosine counting a little of its own word score
(tools/docsearch/passage_words.py; `_blend`) and of its neighbours' (tools/docsearch/neighbours.py); a changelog's
entries a little lower (tools/docsearch/releases.py).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tools.docsearch.bridge import ThreadNames, asked_from, rare_owners
from tools.docsearch.pages import SEP, Page
from tools.docsearch.releases import RELEASE_PENALTY, is_release, names_version
from tools.docsearch.snippets import snippet
from tools.docsearch.terms import QUIET, compounds, expanded_tokens, query_tokens, tokens
from tools.docsearch.vocabulary import is_rare
from tools.fts_query import TERM

if TYPE_CHECKING:  # numpy and the model's module load only where docs are searched by meaning, not on import
    from tools.docsearch.semantic import SectionVectors, Vectors

FIELDS = {
    "title": 2.0,
    "heading": 3.0,
    "parents": 1.0,
    "text": 1.0,
    "asked": 0.5,
}  # per-field BM25 scores are summed with these weights
# Length normalisation per field: a heading that is nothing but the query term is about that term
# ("ORB-1403 PostgresLockTimeout" over "Lock timeouts and ORB-1403"); long sections are penalised less.
B = {"title": 0.9, "heading": 0.9, "parents": 0.9, "text": 0.5, "asked": 0.75}
K1 = 1.2
HEADINGS = ("title", "heading", "parents")
# Hybrid ranking: SEMANTIC_SHARE of the cosine similarity (min-max scaled over the sections) plus the
# rest of the lexical score (scaled by the best one). Chosen on the RQ development questions only
# (0.5-0.9 probed; 0.7 had the best MRR there, and with passages 0.7-0.85 stay within one question of
# each other); the held-out sets were not used. Reciprocal rank fusion (k=60) did worse there (recall@3
# 0.71-0.75 against 0.77, MRR 0.62-0.65 against 0.69) and a z-score blend no better, so scores are blended.
SEMANTIC_SHARE = 0.7
# A question that names an exact code or identifier the docs hold (`ORB-1202`, `enqueue_at`) is what
# words rank best and the model knows least: there the lexical score leads.
NAMED_SHARE = 0.3
# The lexical score enters the blend scaled by the best hit's, or by what a strong match scores when the
# best is weaker: a question none of whose words any section holds well must not have its best weak
# match stretched to 1. A strong match is LEXICAL_FULL times the query's idf mass (its words' weights
# times their idf). Chosen on the RQ development questions only: 1.5-4 all beat scaling by the best hit
# alone there (recall@3 0.79-0.81 against 0.77, MRR@5 0.70-0.74 against 0.69); 3 is near the middle.
LEXICAL_FULL = 3.0
Mode = Literal["lexical", "semantic", "hybrid"]


@dataclass(frozen=True)
class DocHit:
    """One ranked section; `heading` is '' for a page's intro."""

    doc_id: str
    title: str
    heading: str
    snippet: str
    score: float
    coverage: float = 1.0  # idf-weighted share of the query's words this section holds (0-1)
    similarity: float | None = None  # cosine similarity to the question (None: lexical search only)


@dataclass(frozen=True)
class _Unit:
    doc_id: str
    title: str
    heading: str
    text: str
    fields: dict[str, Counter[str]]
    lengths: dict[str, int]
    release: bool  # a changelog's entry (tools/docsearch/releases.py)


class DocsIndex:
    """All sections of a set of pages, searchable by relevance."""

    def __init__(
        self,
        pages: dict[str, Page],
        threads: Sequence[str] = (),
        semantic: bool = False,
        vectors_store: Path | None = None,
        names: ThreadNames | None = None,
        _vectors: SectionVectors | None = None,
    ) -> None:
        """`semantic`: rank by meaning too (when the model's package is installed), with the vectors kept
        in `vectors_store` between processes. `names`: the threads' identifiers remembered (`rebridged`)."""
        self.pages = pages
        parts: list[tuple[str, str, tuple[str, ...], str]] = [
            (p.doc_id, p.title, (), p.intro) for p in pages.values() if p.intro or not p.sections
        ]
        parts += [(s.doc_id, s.title, s.path, s.text) for p in pages.values() for s in p.units()]
        self._rare = rare_owners([f"{SEP.join(path)}\n{text}" for _, _, path, text in parts])
        asked = asked_from(self._rare, len(parts), threads, names)
        self._bridge = _digest(asked)
        self._units = [_unit(*part, extra) for part, extra in zip(parts, asked, strict=True)]
        n = len(self._units) or 1
        self._avg = {f: sum(u.lengths[f] for u in self._units) / n or 1.0 for f in FIELDS}
        df: Counter[str] = Counter()
        for unit in self._units:
            df.update(set().union(*(unit.fields[f] for f in FIELDS)))
        self._idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self._unseen = max(self._idf.values(), default=1.0)
        self._written = set().union(*(u.fields[f] for u in self._units for f in FIELDS if f != "asked"))
        self.vectors_store = vectors_store
        self.vectors: SectionVectors | None = _vectors
        if semantic and _vectors is None:
            from tools.docsearch.semantic import SectionVectors

            self.vectors = SectionVectors([(u.title, u.heading, u.text) for u in self._units], vectors_store)

    def rebridged(self, threads: Sequence[str], names: ThreadNames) -> DocsIndex:
        """This index for the same pages and changed issue threads: itself when no section's bridged words
        (`asked`) changed, which is the usual case after one issue's edit; else one built again, keeping these
        pages and their vectors (what is embedded does not hold the threads' words)."""
        if _digest(asked_from(self._rare, len(self._units), threads, names)) == self._bridge:
            return self
        semantic = self.vectors is not None
        return DocsIndex(self.pages, threads, semantic, self.vectors_store, names, self.vectors)

    @property
    def sections(self) -> list[tuple[str, str, str, str]]:
        """Every section as (doc id, page title, heading path, text), in the order its vectors are kept."""
        return [(u.doc_id, u.title, u.heading, u.text) for u in self._units]

    @property
    def written(self) -> set[str]:
        """Every token the docs themselves hold (not the issue threads' words)."""
        return self._written

    def weight(self, token: str) -> float:
        """A token's IDF over the sections; a token no section has weighs like the rarest."""
        return self._idf.get(token, self._unseen)

    def warm(self, wait: bool = True) -> bool:
        """Load the embedding model and the section vectors now; False when search is lexical (or, unless
        `wait`, while new sections are embedded in the background: a worker at start takes jobs meanwhile)."""
        return self.vectors is not None and self.vectors.ready(wait) is not None

    def search(self, query: str, k: int = 5, mode: Mode | None = None) -> list[DocHit]:
        """The `k` best sections for `query`, best first; [] when nothing matches. `mode` defaults to
        hybrid when this index ranks by meaning and the model is installed, else lexical."""
        asked = query_tokens(query)
        weights = {t: w for t, w in expanded_tokens(query).items() if t in self._idf}
        wanted = [t for t in asked if t in self._idf]
        total = sum(self.weight(t) for t in asked) or 1.0
        scored = self._rank(weights)
        words = None if mode == "semantic" else weights  # by meaning alone: the passages' cosines only
        found = self.vectors.scores(query, words) if self.vectors is not None and mode != "lexical" else None
        similarity, meaning = found if found is not None else (None, None)
        if meaning is not None and len(self._units):
            named = any(t in self._idf for t in compounds(query))
            share = 1.0 if mode == "semantic" else NAMED_SHARE if named else SEMANTIC_SHARE
            strong = LEXICAL_FULL * sum(w * self._idf[t] for t, w in weights.items())
            scored = _blend(scored, self._units, meaning, share, strong, not names_version(query))
        position = {id(u): i for i, u in enumerate(self._units)}
        return [
            DocHit(
                u.doc_id,
                u.title,
                u.heading,
                snippet(u.text, list(weights)),
                round(s, 3),
                round(sum(self._idf[t] for t in wanted if _holds(u, t)) / total, 3),
                None if similarity is None else round(float(similarity[position[id(u)]]), 3),
            )
            for s, u in scored[:k]
        ]

    def _rank(self, weights: dict[str, float]) -> list[tuple[float, _Unit]]:
        scored = []
        for unit in self._units:
            score = sum(w * self._idf[t] * self._term_score(unit, t) for t, w in weights.items())
            if score > 0:
                scored.append((score, unit))
        scored.sort(key=lambda pair: (-pair[0], pair[1].doc_id, pair[1].heading))
        return scored

    def unknown_words(self, query: str) -> list[str]:
        """The query's names that no section contains at all (a sign the docs do not cover the topic): the
        rare or identifier-like words (`is_rare`: Kafka, PostgreSQL, sign-on, ORB-9999), never ordinary ones."""
        words = TERM.findall(query)
        return [
            w
            for w in dict.fromkeys(words)
            if w.lower() not in QUIET
            and is_rare(w, first=w == words[0])
            and tokens(w)[:1]
            and tokens(w)[0] not in self._written
        ]  # a compound by itself: 'script' is not 'JavaScript'

    def _term_score(self, unit: _Unit, term: str) -> float:
        """Sum of per-field saturated scores: a heading or title match counts on its own."""
        total = 0.0
        for name, weight in FIELDS.items():
            tf = unit.fields[name].get(term, 0)
            if tf:
                norm = 1 - B[name] + B[name] * unit.lengths[name] / self._avg[name]
                total += weight * _saturate(tf / norm)
        return total


def _blend(
    lexical: list[tuple[float, _Unit]],
    units: list[_Unit],
    similarity: Vectors,
    share: float,
    strong: float,
    demote: bool = True,
) -> list[tuple[float, _Unit]]:
    """Every section ranked by `share` of its scaled similarity plus the rest of its lexical score, scaled
    by the best one's or by `strong` (what a strong match scores, LEXICAL_FULL) when that is higher; changelog
    entries less RELEASE_PENALTY when `demote` (the question names no version)."""
    low, high = float(similarity.min()), float(similarity.max())
    meaning = (similarity - low) / (high - low) if high > low else similarity * 0
    scale = max(lexical[0][0] if lexical else 0.0, strong) or 1.0
    words = {id(u): s / scale for s, u in lexical}
    blended = [
        (share * float(meaning[i]) + (1 - share) * words.get(id(u), 0.0) - RELEASE_PENALTY * (demote and u.release), u)
        for i, u in enumerate(units)
    ]
    blended.sort(key=lambda pair: (-pair[0], pair[1].doc_id, pair[1].heading))
    return blended


def _unit(doc_id: str, title: str, path: tuple[str, ...], text: str, asked: str = "") -> _Unit:
    texts = {
        "title": title,
        "heading": path[-1] if path else "",
        "parents": " ".join(path[:-1]),
        "text": text,
        "asked": asked,
    }
    fields = {
        name: Counter(tokens(value, QUIET)) if name == "asked" else Counter(tokens(value))
        for name, value in texts.items()
    }
    for name in HEADINGS:  # a heading names each thing once: 'run_both became run_once' is not 'run' twice
        fields[name] = Counter(set(fields[name]))
    # Length in words, not tokens: a compound's extra parts must not make its field look longer.
    lengths = {f: len(TERM.findall(t)) for f, t in texts.items()}
    return _Unit(doc_id, title, SEP.join(path), text, fields, lengths, is_release(path))


def _digest(asked: list[str]) -> bytes:
    return hashlib.blake2b("\0".join(asked).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _holds(unit: _Unit, term: str) -> bool:
    return any(term in unit.fields[f] for f in FIELDS)


def _saturate(tf: float) -> float:
    return tf * (K1 + 1) / (tf + K1) if tf else 0.0
