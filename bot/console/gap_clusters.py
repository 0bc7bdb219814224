"""Which gap questions ask about the same thing, by their kept vectors (workers/console_data/question_vectors.py): the
Coverage gaps page's grouping by meaning, in numpy, with no model.

Each question, newest first, joins the group whose centroid (the normalised sum of its questions' vectors) is
closest when that cosine is at least THRESHOLD, else starts a group; then any two groups whose centroids are
that close merge, so the order the questions came in does not split a topic. At most a few hundred questions
(the page's LATEST): a matrix product per question, and one row of similarities per merge.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

# all-MiniLM-L6-v2 cosines (float16 as kept) on gap questions as people ask them, three topics asked three ways
# and five unrelated questions (tests/bot/console/test_gaps_groups.py): a question scores 0.44-0.79 against each
# other wording of its topic and 0.53-0.78 against the centroid of the others; unrelated questions score at
# most 0.47 against each other (two that both name the project: "Does Orbit support Windows?", "What license is
# Orbit released under?") and 0.43 against a topic's centroid ("delete all queued jobs" beside "make a job wait
# until another has finished"). 0.5 keeps each topic whole and the rest apart; 0.45 joins the two "Orbit"
# questions, 0.55 splits the topics (the test fails at both).
THRESHOLD = 0.5


def _unit(rows: NDArray[np.float32]) -> NDArray[np.float32]:
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    unit: NDArray[np.float32] = (rows / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


def by_meaning(vectors: NDArray[np.float32], threshold: float = THRESHOLD) -> list[list[int]]:
    """Groups of row indices of `vectors` (unit rows, newest first), each group in row order; groups in the
    order they were started (the group of the newest question first)."""
    sums = np.zeros_like(vectors)
    members: list[list[int]] = []
    for i, vector in enumerate(vectors):
        if members:
            near = _unit(sums[: len(members)]) @ vector
            best = int(np.argmax(near))
            if near[best] >= threshold:
                sums[best] += vector
                members[best].append(i)
                continue
        sums[len(members)] = vector
        members.append([i])
    return _merged(sums[: len(members)], members, threshold)


def _merged(sums: NDArray[np.float32], members: list[list[int]], threshold: float) -> list[list[int]]:
    """Merge the two groups with the closest centroids while they are at least `threshold` apart in cosine."""
    if len(members) < 2:
        return members
    centroids = _unit(sums)
    near = centroids @ centroids.T
    np.fill_diagonal(near, -np.inf)
    alive = np.ones(len(members), bool)
    while True:
        a, b = np.unravel_index(int(np.argmax(near)), near.shape)
        if near[a, b] < threshold:
            break
        keep, gone = (int(a), int(b)) if a < b else (int(b), int(a))  # the earlier (newer) group keeps its place
        sums[keep] += sums[gone]
        members[keep] = sorted(members[keep] + members[gone])
        alive[gone] = False
        near[gone, :] = near[:, gone] = -np.inf
        row = _unit(sums[keep]) @ _unit(sums).T
        row[~alive] = -np.inf
        row[keep] = -np.inf
        near[keep, :] = near[:, keep] = row
    return [m for m, live in zip(members, alive, strict=True) if live]
