"""The question's words in each passage: BM25 over the passages the embedding model reads, for the hybrid ranking.

Search by meaning scores a section by its best passage; section-level BM25 (tools/docsearch/index.py) counts words
over the whole section. A long section that mentions a question's words in one passage and means it in another
is then as good as one whose single passage both means it and says it. Adding a small share of each passage's
own word score to its cosine before taking a section's best (`PASSAGE_WORDS`) prefers the passage that does
both. Chosen on the RQ development questions only (bench/evals/rq_docs.jsonl): shares of 0.04 to 0.08 of the
best passage's word score all put the right section first on 36 of 48 questions against 32 (recall@3 unchanged
within one question), 0.02 on 34, 0.1 on 33 and 0.12 on 30; 0.06 is the middle. The held-out sets were measured
after, never tuned on.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from tools.docsearch.terms import tokens

PASSAGE_WORDS = 0.06  # share of the best passage's word score added to a passage's cosine (see the module's note)
K1, B = 1.2, 0.75  # BM25's usual saturation and length normalisation: passages are of about one length already


class PassageWords:
    """Word scores of a fixed list of passages: an inverted index of their tokens."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.size = len(texts)
        counts = [Counter(tokens(text)) for text in texts]
        lengths = np.array([sum(c.values()) for c in counts], np.float64)
        average = float(lengths.mean()) if self.size else 1.0
        self._postings: dict[str, list[tuple[int, float]]] = defaultdict(list)
        for i, count in enumerate(counts):
            norm = K1 * (1 - B + B * lengths[i] / (average or 1.0))
            for term, tf in count.items():
                self._postings[term].append((i, tf * (K1 + 1) / (tf + norm)))
        n = self.size
        self._idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self._postings.items()}

    def scores(self, weights: dict[str, float]) -> np.ndarray:
        """Each passage's BM25 score for the weighted query tokens, scaled so that the best passage's is 1 (all 0
        when no passage holds any)."""
        total = np.zeros(self.size, np.float32)
        for term, weight in weights.items():
            for i, saturated in self._postings.get(term, ()):
                total[i] += weight * self._idf[term] * saturated
        best = float(total.max()) if self.size else 0.0
        return total / best if best > 0 else total
