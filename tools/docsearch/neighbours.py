"""A passage ranks with a little of the passages beside it in its section: a lead sentence and the paragraph or
code that completes it are read together.

A section is cut into passages on paragraph and code boundaries (tools/docsearch/passages.py), so a passage can be
a bare code block, or a one-line lead ("To execute a job that depends on another job, use `depends_on`:") whose
meaning the next passage carries. For ranking, each passage's vector is taken as itself plus NEIGHBOUR_SHARE of
each neighbour's in the same section, renormalised; computed on the cosines (one norm kept per passage), so a
query costs two shifted additions. The cosine shown with a hit, and the "not covered" rule's similarity
(tools/docsearch/confidence.py), stay the passage's own. Chosen on the development sets only (RQ's 48 and 13,
Starlette's 33: bench/evals/starlette_docs_dev.jsonl): shares of 0.07 to 0.12 all gave the same figures, one more
question in the top 3 and one more first of 94, no set lower; 0.05 changed nothing, 0.15 and over lost questions
first (63 and under against 64). The held-out sets were measured after, never tuned on.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from tools.docsearch.minilm import Vectors

NEIGHBOUR_SHARE = 0.1  # of each neighbour's vector added to a passage's for ranking (see the module's note)


class Neighbours:
    """Which passages have a neighbour in their own section, and each mixed vector's norm."""

    def __init__(self, vectors: Vectors, starts: NDArray[np.intp], share: float = NEIGHBOUR_SHARE) -> None:
        """`vectors`: the passages' unit vectors in order; `starts`: the index of each section's first passage."""
        n = len(vectors)
        opens = np.zeros(n, bool)
        opens[starts[starts < n]] = True  # a passage that opens its section has no previous neighbour in it
        self.share = share
        self._prev = ~opens[1:]  # passage i + 1 has passage i before it
        mixed = vectors.astype(np.float32, copy=True)
        if n > 1:
            mixed[1:][self._prev] += share * vectors[:-1][self._prev]
            mixed[:-1][self._prev] += share * vectors[1:][self._prev]
        self._norms = np.maximum(np.linalg.norm(mixed, axis=1), 1e-12) if n else np.ones(0, np.float32)

    def cosines(self, cosine: Vectors) -> Vectors:
        """Each passage's cosine to a question as its mixed vector's: its own plus `share` of its neighbours'."""
        out = cosine.astype(np.float32, copy=True)
        if len(out) > 1:
            out[1:] += self.share * np.where(self._prev, cosine[:-1], 0)
            out[:-1] += self.share * np.where(self._prev, cosine[1:], 0)
        mixed: Vectors = out / self._norms
        return mixed
