"""A passage ranks with a little of its neighbours in the same section (tools/docsearch/neighbours.py): a lead
sentence and the passage that completes it are read together, never across a section's edge."""

from __future__ import annotations

import numpy as np
import pytest

from tools.docsearch.neighbours import NEIGHBOUR_SHARE, Neighbours
from tools.docsearch.semantic import SectionVectors

E1, E2, E3 = np.eye(3, dtype=np.float32)
QUESTION = (E1 + E2) / np.sqrt(2)  # half of it said by one passage, half by the next
CLOSE = 0.75 * QUESTION + np.sqrt(1 - 0.75**2) * E3  # one passage that says most of it (cosine 0.75)


def vectors(rows: list[np.ndarray], starts: list[int]) -> SectionVectors:
    """Passage vectors as a built index holds them, without the model."""
    kept = SectionVectors([], None)
    kept._vectors = np.stack(rows).astype(np.float32)
    kept._starts = np.array(starts, np.intp)
    return kept


def test_a_mixed_cosine_is_the_cosine_of_the_mixed_vector() -> None:
    rows = np.stack([E1, E2, CLOSE, E3]).astype(np.float32)
    cosine = rows @ QUESTION
    mixed = Neighbours(rows, np.array([0, 2], np.intp)).cosines(cosine)
    first = E1 + NEIGHBOUR_SHARE * E2  # section one: passages 0 and 1; section two: passages 2 and 3
    last = E3 + NEIGHBOUR_SHARE * CLOSE
    assert mixed[0] == pytest.approx(float(first @ QUESTION / np.linalg.norm(first)), abs=1e-6)
    assert mixed[3] == pytest.approx(float(last @ QUESTION / np.linalg.norm(last)), abs=1e-6)


def test_two_passages_that_answer_together_outrank_one_a_little_closer() -> None:
    """By the best passage alone the single close passage (0.75) led the two halves (0.71 each)."""
    kept = vectors([E1, E2, CLOSE], [0, 2])
    cosine = kept._vectors @ QUESTION  # type: ignore[operator]
    best, ranking = kept.by_section(cosine)
    assert best[1] > best[0]  # the cosine shown stays the passage's own
    assert ranking[0] > ranking[1]
    assert ranking[1] == pytest.approx(float(cosine[2]))  # a one-passage section: its neighbour is another section's
