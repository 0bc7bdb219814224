"""The hybrid ranking counts each passage's own words (tools/docsearch/passage_words.py): of two sections alike in
meaning and in words, the one whose passage closest to the question also holds its words comes first."""

from __future__ import annotations

import numpy as np
import pytest

from tools.docsearch.index import DocsIndex
from tools.docsearch.minilm import model_dir
from tools.docsearch.pages import parse_page
from tools.docsearch.passage_words import PassageWords

FILLER = "Workers listen on their queues in the order given, so the first queue is drained before the next one. " * 9
CANCEL = "A job that should not run any more can be cancelled before a worker takes it."
AFTER = (
    "Its result is then never written to Redis, and its dependents are left waiting in the deferred registry for good."
)


def test_a_passage_scores_by_its_own_words_and_the_best_scores_one() -> None:
    words = PassageWords(["Jobs › Cancelling\nCancel a job.", "Jobs › Results\nA job's result is kept.", "Queues"])
    scores = words.scores({"result": 1.0, "job": 0.5})
    assert scores[1] == pytest.approx(1.0) and 0 < scores[0] < 1 and scores[2] == 0
    assert not np.any(words.scores({"nowhere": 1.0}))


@pytest.mark.skipif(model_dir() is None, reason="the embedding model's package is not installed (make setup)")
def test_the_section_whose_closest_passage_holds_the_words_comes_first() -> None:
    """Both sections hold the same words and mean the same; in `together` the passage about cancelling also says
    what happens to the dependents, in `apart` that is said at the end of a long section, in another passage. By the
    best passage's cosine alone `apart` came first (its first passage is a little closer to the question)."""
    pages = {
        p.doc_id: p
        for p in (
            parse_page("together", f"# Jobs\n\n## Cancelling\n\n{CANCEL} {AFTER}\n\n{FILLER}\n"),
            parse_page("apart", f"# Jobs\n\n## Cancelling\n\n{CANCEL}\n\n{FILLER} {AFTER}\n"),
            parse_page(
                "queues", "# Queues\n\n## Priorities\n\nQueues are listened to in order; put urgent work first.\n"
            ),
        )
    }
    index = DocsIndex(pages, semantic=True)
    assert index.warm()
    hits = index.search("How do I cancel a queued job before it runs, what happens to its dependents?", 3)
    assert [h.doc_id for h in hits[:2]] == ["together", "apart"]
    assert hits[1].similarity is not None and hits[0].similarity is not None  # the cosines shown stay the model's
    assert hits[1].similarity > hits[0].similarity
