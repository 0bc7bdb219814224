"""Word evidence for labels: a naive Bayes over the words of earlier labelled issues, as of any point.

The neighbours' vote (label_votes.py) asks "what were the issues most like this one labelled?"; a
repository's labels are often about words that a few earlier reports shared without being near
neighbours overall (`fmt: off`, `vim`, "second pass" on black; "question" titles on Orbit). Each
label family gets the log-odds that an issue carries it from the words it shows (its terms, its cues
and its template's section headings): the family's share of the earlier labelled issues, moved by
each word seen on at least MIN_WORD of them by how much more often issues with the family showed it
than issues without (Laplace-smoothed, damped by DAMPING: words in one report are far from independent).

As of `before` (a seq), with nothing trained: the terms' postings are the word index's
(similarity.AsOfIndex, sorted by seq: a prefix is one binary search), and which families each issue
carries is a matrix by seq, so an issue written later changes nothing, a replay needs no retraining,
and a grown history rebuilds only that matrix. Only topic families are modelled (labels.py).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from workers.triage.similarity import AsOfIndex

MIN_WORD = 3  # earlier labelled issues showing a word before it says anything
MIN_FAMILY = 3  # earlier labelled issues carrying a family before it is modelled
SMOOTHING = 1.0  # Laplace: a word never seen with a family is not proof against it
DAMPING = 0.3  # each word's log-likelihood ratio counts this much (correlated words are not independent proof)


class LabelWords:
    """Which topic families each issue carries, by seq, laid over the word index's postings."""

    def __init__(self, index: AsOfIndex, families: Sequence[frozenset[str]], marks: Sequence[frozenset[str]]) -> None:
        """`families[seq]`: the topic families issue seq carries; `marks[seq]`: its cues and section headings
        (words that are not terms of the index)."""
        self.index = index
        self.names = sorted({f for fams in families for f in fams})
        column = {f: i for i, f in enumerate(self.names)}
        # by seq, its families' columns (CSR: columns[first[seq]:first[seq + 1]]), and how many families it carries
        self.columns = np.asarray([column[f] for fams in families for f in sorted(fams)], dtype=np.int64)
        self.count = np.asarray([len(fams) for fams in families], dtype=np.int64)
        self.first = np.concatenate(([0], np.cumsum(self.count)))
        # upto[seq]: per family, the labelled issues before seq that carry it; the last column: labelled at all
        carries = np.zeros((len(families) + 1, len(self.names) + 1), dtype=np.int64)
        for seq, fams in enumerate(families):
            if fams:
                carries[seq + 1, [column[f] for f in fams]] = 1
                carries[seq + 1, -1] = 1
        self.upto = np.cumsum(carries, axis=0)
        # Each term's postings twice, still by term and then seq: its labelled issues (`labelled`), and one entry
        # per (issue, family it carries) (`by_family`, the family's column in `family_of`): a count as of `before`
        # is then one binary search and one bincount over a slice.
        docs = index.post_docs
        per = self.count[docs] if len(self.count) else np.zeros(len(docs), dtype=np.int64)
        self.labelled, self.labelled_ptr = docs[per > 0], np.concatenate(([0], np.cumsum(per > 0)))[index.term_ptr]
        self.by_family, self.family_of = self._expand(docs, per)
        self.by_family_ptr = np.concatenate(([0], np.cumsum(per)))[index.term_ptr]
        self.mark_seqs: dict[str, list[int]] = defaultdict(list)
        for seq, shown in enumerate(marks):
            for mark in shown:
                self.mark_seqs[mark].append(seq)

    def rates(self, terms: Iterable[str], marks: Iterable[str], before: int) -> dict[str, float]:
        """family -> the probability that an issue with `terms` (index terms) and `marks` (cues, sections),
        opened at seq `before`, carries it."""
        before = min(before, len(self.count))
        totals = self.upto[before]
        labelled, nf = int(totals[-1]), totals[:-1].astype(np.float64)
        rest = labelled - nf
        modelled = (nf >= MIN_FAMILY) & (rest > 0)
        if labelled == 0 or not modelled.any():
            return {}
        width = len(self.names)
        seen = self._term_counts(terms, before, width)
        for mark in marks:
            seqs = self.mark_seqs.get(mark, [])
            chosen = np.asarray(seqs[: bisect.bisect_left(seqs, before)], dtype=np.int64)
            chosen = chosen[self.count[chosen] > 0]
            if len(chosen) >= MIN_WORD:
                _, cols = self._expand(chosen, self.count[chosen])
                seen.append((len(chosen), np.bincount(cols, minlength=width)))
        odds = np.log(np.where(modelled, nf, 1.0) / np.where(modelled, rest, 1.0))
        if seen:
            df = np.asarray([float(d) for d, _ in seen])[:, None]
            k = np.vstack([c for _, c in seen]).astype(np.float64)
            carrying = (k + SMOOTHING) / (nf + 2 * SMOOTHING)
            not_carrying = (df - k + SMOOTHING) / (rest + 2 * SMOOTHING)
            odds = odds + DAMPING * np.log(carrying / not_carrying).sum(axis=0)
        probability = 1.0 / (1.0 + np.exp(-np.clip(odds, -30.0, 30.0)))
        return {self.names[i]: float(probability[i]) for i in np.flatnonzero(modelled)}

    def _term_counts(self, terms: Iterable[str], before: int, width: int) -> list[tuple[int, npt.NDArray[np.int64]]]:
        """For each index term seen on at least MIN_WORD earlier labelled issues: how many, and per family how
        many of them carry it."""
        out = []
        index = self.index
        for term in terms:
            tid = index.vocab.get(term)
            if tid is None or tid + 1 >= len(index.term_ptr):
                continue
            lo, hi = int(self.labelled_ptr[tid]), int(self.labelled_ptr[tid + 1])
            df = int(np.searchsorted(self.labelled[lo:hi], before))
            if df < MIN_WORD:
                continue
            lo, hi = int(self.by_family_ptr[tid]), int(self.by_family_ptr[tid + 1])
            stop = lo + int(np.searchsorted(self.by_family[lo:hi], before))
            out.append((df, np.bincount(self.family_of[lo:stop], minlength=width)))
        return out

    def _expand(
        self, docs: npt.NDArray[np.int64], per: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """`docs` repeated once per family each carries (`per[i]` of them), beside those families' columns."""
        starts = np.concatenate(([0], np.cumsum(per)[:-1])) if len(per) else np.zeros(0, dtype=np.int64)
        offsets = np.repeat(self.first[docs] - starts, per) + np.arange(int(per.sum()))
        return np.repeat(docs, per), self.columns[offsets]
