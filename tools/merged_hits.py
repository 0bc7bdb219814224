"""A search over several repositories as one list (issue 38): the best `limit` hits of all of them, not each one's.

A search tool gives its hits as a `Ranked` value (tools/issue_tools.py, docs_tools.py, history_tools.py,
code_tools.py): its own order, each hit's lines as one repository's result shows them, and a score. `text` renders
one repository's result exactly as the tool always did; `merged` takes every repository's and keeps the best
`limit` across them.

Scores from different indexes are not comparable as they are: bm25 (the issues' FTS5, the docs' BM25F) weighs a
word by its IDF in that corpus, so the same match scores higher in a small repository or one where the word is
rare, and a repository with no good match still has a high raw best. So a hit is compared on what does not depend
on its corpus, then on how close it comes to its repository's best:

1. `grade`: a property of the hit against the question alone (an issue or history item holding every word of the
   query, 1, or some of them, 0, a pull request changing a file the query names or a definition of a name asked,
   2; a doc section holding every word, by the docs' coverage). An issue that has every word comes before
   one that has only some, whichever repository holds it.
2. the score scaled by its repository's best of that grade (best = 1): the repository's own ranking, put on one
   scale. Round-robin by rank would treat a repository's tenth hit as its first's peer however far it falls behind;
   scaling keeps that gap.

When every hit's score is already comparable (`comparable`: the docs' cosine similarity to the question, one model
for every repository), it is used as it is after the grade: the docs' hybrid score min-max scales the cosines
within each repository, so a repository's best section is near the top whether or not it is about the question,
and the raw cosine is not. Either way the merge takes the best head of the repositories' lists one at a time (ties:
the served order), so each repository's own order is kept: the hits of one repository in the merged list are the
start of its own.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Key = tuple[int, float]


@dataclass(frozen=True)
class Hit:
    """One hit as its repository's result shows it (`lines`), with what the merge compares."""

    lines: tuple[str, ...]
    score: float  # higher is better
    grade: int = 0  # comparable across repositories: the hit against the question alone
    comparable: bool = False  # `score` means the same in every repository (a cosine), not only in this one


@dataclass(frozen=True)
class Ranked:
    """A search's result in one repository: a head (`before` + where it searched + `after`), notes, hits."""

    before: str
    after: str
    notes: tuple[str, ...]
    hits: tuple[Hit, ...]
    empty: str  # what the tool says when nothing matches


def text(ranked: Ranked) -> str:
    """One repository's result, as the tool shows it."""
    if not ranked.hits and not ranked.notes:
        return ranked.empty
    return "\n".join([ranked.before + ranked.after, *ranked.notes, *(line for h in ranked.hits for line in h.lines)])


def merged(parts: Sequence[tuple[str, Ranked]], limit: int, named: Callable[[str, str], str]) -> str:
    """The best `limit` hits of every repository's result (in the served order), each named with its repository by
    `named(repo, lines)`; a note is kept when every repository with hits gave it (it holds for all of them)."""
    hits = [h for _, r in parts for h in r.hits]
    raw = bool(hits) and all(h.comparable for h in hits)
    keyed = [[(key, repo, h) for key, h in zip(_keys(r.hits, raw), r.hits, strict=True)] for repo, r in parts]
    best = list(itertools.islice(heapq.merge(*keyed, key=lambda k: k[0]), limit))
    first, found = parts[0][1], [r for _, r in parts if r.hits or r.notes]  # no hit: no note on the query
    notes = [n for n in found[0].notes if all(n in r.notes for r in found)] if found else []
    if not best and not notes:
        return first.empty
    where = f" in {len(parts)} repositories"
    shown = [named(repo, "\n".join(h.lines)) for _, repo, h in best]
    return "\n".join([first.before + where + first.after, *notes, *shown])


def _keys(hits: tuple[Hit, ...], raw: bool) -> list[Key]:
    """Ascending is best first: the grade, then the score, scaled by the repository's best of that grade unless
    every score is comparable as it is."""
    if raw:
        return [(-h.grade, -h.score) for h in hits]
    top: dict[int, float] = {}
    for h in hits:
        top[h.grade] = max(top.get(h.grade, h.score), h.score)
    return [(-h.grade, -(h.score / top[h.grade] if top[h.grade] > 0 else 1.0)) for h in hits]
