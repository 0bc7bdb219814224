"""Cosine similarity between issues, as of a point in the history, from one in-memory index.

Each issue is a sparse vector of its words (sublinear tf, times idf). The idf and every document's
norm are computed from the issues *before* the point only (`before` = a seq, history.py), so an
issue written later changes neither which issues are candidates nor any score: the as-of filter is
a prefix of the index (`seq < before`), never a rebuild. Postings are numpy arrays sorted by seq,
so a query reads each of its terms' postings up to `before` with one binary search, and the
document frequencies and norms at that point are one `bincount` each over the index's prefix.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from tools.docsearch.terms import tokens
from tools.fts_query import STOPWORDS

TITLE_WEIGHT = 2  # a title says in a line what the body says in many: its words count twice
REFERENCE = re.compile(r"(?<![\w/])#\d+\b|https?://\S+")  # "#12", links: pointers, not words of the problem


def features(title: str, body: str) -> Counter[str]:
    """An issue's terms and counts: stemmed words and whole identifiers, stopwords and bare numbers out."""
    counts: Counter[str] = Counter()
    for text, weight in ((title, TITLE_WEIGHT), (body, 1)):
        for token in tokens(REFERENCE.sub(" ", text)):
            if token in STOPWORDS or token.isdigit() or len(token) < 2:
                continue
            counts[token] += weight
    return counts


@dataclass(frozen=True)
class Neighbour:
    """An earlier issue (by seq) and its cosine similarity in [0, 1]."""

    seq: int
    similarity: float


class AsOfIndex:
    """Term vectors of every issue in seq order; `nearest` answers as of any seq."""

    n: int
    ptr: npt.NDArray[np.int64]  # doc seq -> its first entry (one past the last: the next doc's first)

    def __init__(self, docs: Sequence[Counter[str]], base: AsOfIndex | None = None) -> None:
        """`base`: an index of the issues before `docs` (the same history, fewer issues), extended here, not
        re-read: terms get the ids a build over all the issues at once would give them, so the arrays are equal."""
        self.vocab: dict[str, int] = dict(base.vocab) if base is not None else {}
        start = 0 if base is None else int(base.ptr[-1])
        ptr, terms, weights = [start], [], []
        for counts in docs:
            for term, tf in counts.items():
                terms.append(self.vocab.setdefault(term, len(self.vocab)))
                weights.append(1.0 + math.log(tf))
            ptr.append(start + len(terms))
        self.n = len(docs) + (0 if base is None else base.n)
        self.ptr = np.asarray(ptr, dtype=np.int64)
        self.terms = np.asarray(terms, dtype=np.int64)
        self.weights = np.asarray(weights, dtype=np.float64)
        if base is not None:
            self.ptr = np.concatenate((base.ptr[:-1], self.ptr))
            self.terms = np.concatenate((base.terms, self.terms))
            self.weights = np.concatenate((base.weights, self.weights))
        self.owner = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.ptr))  # entry -> doc seq
        order = np.argsort(self.terms, kind="stable")  # stable: each term's postings stay in seq order
        self.post_docs = self.owner[order]
        self.post_weights = self.weights[order]
        self.term_ptr = np.concatenate(([0], np.cumsum(np.bincount(self.terms, minlength=len(self.vocab)))))
        self._idf: tuple[int, npt.NDArray[np.float64]] | None = None  # the last one computed: a triage asks twice

    def idf(self, before: int) -> npt.NDArray[np.float64]:
        """Inverse document frequency of every term over the issues with seq < before (read-only: it is kept)."""
        last = self._idf  # read once: another thread's triage may replace it meanwhile (the index is shared)
        if last is not None and last[0] == before:
            return last[1]
        end = int(self.ptr[before])
        df = np.bincount(self.terms[:end], minlength=len(self.vocab)).astype(np.float64)
        idf = np.log((before + 1.0) / (df + 0.5))
        idf.flags.writeable = False
        self._idf = (before, idf)
        return idf

    def nearest(self, query: Counter[str], before: int, k: int) -> list[Neighbour]:
        """The k issues before `before` most similar to `query` (cosine, as-of idf), best first."""
        if before <= 0 or not query:
            return []
        idf = self.idf(before)
        unseen = math.log((before + 1.0) / 0.5)
        q_norm2 = 0.0
        slices: list[tuple[int, int, float]] = []
        for term, tf in query.items():
            tid = self.vocab.get(term)
            w = (1.0 + math.log(tf)) * (float(idf[tid]) if tid is not None else unseen)
            q_norm2 += w * w
            if tid is None:
                continue
            lo, hi = int(self.term_ptr[tid]), int(self.term_ptr[tid + 1])
            stop = lo + int(np.searchsorted(self.post_docs[lo:hi], before))
            if stop > lo:
                slices.append((lo, stop, w * float(idf[tid])))
        if not slices or q_norm2 <= 0:
            return []
        docs = np.concatenate([self.post_docs[lo:hi] for lo, hi, _ in slices])
        contrib = np.concatenate([self.post_weights[lo:hi] * w for lo, hi, w in slices])
        dots = np.bincount(docs, weights=contrib, minlength=before)
        end = int(self.ptr[before])
        entry_w = self.weights[:end] * idf[self.terms[:end]]
        entry_w *= entry_w
        # each document's entries are contiguous (ptr): one segment sum each, an empty document's set to 0
        starts = self.ptr[:before]
        norms = np.add.reduceat(entry_w, np.minimum(starts, max(end - 1, 0))) if end else np.zeros(before)
        norms[starts == self.ptr[1 : before + 1]] = 0.0
        np.sqrt(norms, out=norms)
        sims = np.divide(dots, norms * math.sqrt(q_norm2), out=np.zeros(before), where=norms > 0)
        k = min(k, before)
        top = np.argpartition(-sims, k - 1)[:k] if k < before else np.arange(before)
        ranked = sorted(((float(sims[i]), int(i)) for i in top if sims[i] > 0), key=lambda p: (-p[0], -p[1]))
        return [Neighbour(seq, round(sim, 6)) for sim, seq in ranked]
